/**
 * Every failure the service reports is an ApiError: a code, a status and a message a person can
 * act on. They are created here and turned into the Error shape in one place (`toErrorResponse`
 * in lib/http/errorResponse.ts), so no other module decides what an error looks like on the wire.
 */
export type ErrorCode =
  | "invalid_json"
  | "invalid_body"
  | "invalid_idempotency_key"
  | "unauthorized"
  | "insufficient_scope"
  | "gone"
  | "not_found"
  | "method_not_allowed"
  | "idempotency_in_progress"
  | "payload_too_large"
  | "unsupported_media_type"
  | "idempotency_key_reused"
  | "rate_limited"
  | "response_too_large"
  | "internal_error"
  | "not_implemented"
  | "service_unavailable"
  // Answered by the local gateway for requests Node's HTTP parser refuses (local/httpFront.ts).
  | "bad_request"
  | "request_timeout"
  | "request_header_fields_too_large";

export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    code: ErrorCode,
    message: string,
    headers: Record<string, string> = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/** The store stayed throttled or unreachable for the whole of the request's time budget. */
export class StoreUnavailableError extends Error {
  override readonly name = "StoreUnavailableError";
}

const realm = 'Bearer realm="petstore"';

export const errors = {
  invalidJson: (why = "the request body is not well-formed JSON"): ApiError =>
    new ApiError(400, "invalid_json", why),
  invalidBody: (why: string): ApiError => new ApiError(400, "invalid_body", why),
  invalidIdempotencyKey: (): ApiError =>
    new ApiError(
      400,
      "invalid_idempotency_key",
      "the Idempotency-Key header must be 1 to 255 printable ASCII characters",
    ),
  missingKey: (): ApiError =>
    new ApiError(
      401,
      "unauthorized",
      "an API key is required: send it as 'Authorization: Bearer <API_KEY>'",
      { "www-authenticate": realm },
    ),
  malformedAuthorization: (): ApiError =>
    new ApiError(
      401,
      "unauthorized",
      "the Authorization header must use the Bearer scheme: 'Authorization: Bearer <API_KEY>'",
      { "www-authenticate": realm },
    ),
  keyNotAccepted: (): ApiError =>
    new ApiError(401, "unauthorized", "the API key was not accepted", {
      "www-authenticate": `${realm}, error="invalid_token"`,
    }),
  insufficientScope: (scope: string): ApiError =>
    new ApiError(403, "insufficient_scope", `this API key lacks the scope ${scope}`, {
      "www-authenticate": `${realm}, error="insufficient_scope", scope="${scope}"`,
    }),
  // Neither message repeats the path or method the client sent: nothing a caller puts in a
  // request (possibly a key, pasted in the wrong place) is ever reflected back or logged.
  notFound: (): ApiError =>
    new ApiError(404, "not_found", "no such route; the API serves /v1/categories"),
  methodNotAllowed: (path: string, allow: readonly string[]): ApiError =>
    new ApiError(405, "method_not_allowed", `${path} allows only ${allow.join(", ")}`, {
      allow: allow.join(", "),
    }),
  idempotencyInProgress: (): ApiError =>
    new ApiError(
      409,
      "idempotency_in_progress",
      "a request with this Idempotency-Key is still being processed; retry later",
      { "retry-after": "1" },
    ),
  payloadTooLarge: (limit: number): ApiError =>
    new ApiError(413, "payload_too_large", `the request body is over ${limit} bytes`),
  unsupportedMediaType: (): ApiError =>
    new ApiError(
      415,
      "unsupported_media_type",
      "the request body must be JSON in UTF-8: send 'Content-Type: application/json'",
    ),
  unsupportedContentEncoding: (): ApiError =>
    new ApiError(
      415,
      "unsupported_media_type",
      "the request body must not be compressed: send it without Content-Encoding",
    ),
  idempotencyKeyReused: (): ApiError =>
    new ApiError(
      422,
      "idempotency_key_reused",
      "this Idempotency-Key was already used with a different request body",
    ),
  rateLimited: (retryAfterSeconds: number): ApiError =>
    new ApiError(
      429,
      "rate_limited",
      "this API key has used its rate limit; retry after the delay in the Retry-After header",
      { "retry-after": String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    ),
  responseTooLarge: (): ApiError =>
    new ApiError(
      406,
      "response_too_large",
      "the response is too large to send uncompressed; retry with 'Accept-Encoding: gzip' or 'br'",
      // Another Accept-Encoding gets the list: a cache must not keep this for every request.
      { vary: "accept-encoding" },
    ),
  internal: (cause?: unknown): ApiError =>
    new ApiError(
      500,
      "internal_error",
      "the service failed unexpectedly; try again later",
      {},
      {
        cause,
      },
    ),
  notImplemented: (what: string): ApiError =>
    new ApiError(501, "not_implemented", `${what} is not implemented in this version`),
  gone: (what: string, since: Date): ApiError =>
    new ApiError(410, "gone", `${what} was withdrawn on ${since.toISOString()}`),
  serviceUnavailable: (retryAfterSeconds = 1): ApiError =>
    new ApiError(
      503,
      "service_unavailable",
      "the service is busy; retry after the delay in the Retry-After header",
      { "retry-after": String(retryAfterSeconds) },
    ),
  badRequest: (why: string): ApiError => new ApiError(400, "bad_request", why),
  requestTimeout: (seconds: number): ApiError =>
    new ApiError(408, "request_timeout", `the request did not arrive within ${seconds} s`),
  headersTooLarge: (): ApiError =>
    new ApiError(431, "request_header_fields_too_large", "the request headers are too large"),
};
