/**
 * The middy middlewares every function shares, in the order the contract checks a request:
 * metrics, log and error shaping wrap everything; then authentication, then the key's rate limit
 * (lib/rateLimit/); handlers return a `Reply` and the response middleware writes it. Request
 * bodies: lib/http/jsonBody.ts.
 */
import type { MiddlewareObj, MiddyfiedHandler, Request } from "@middy/core";
import type { Context } from "aws-lambda";
import type { Authenticator, Principal } from "./auth.ts";
import { parseAuthorization } from "./auth.ts";
import type { Clock } from "./clock.ts";
import { systemClock } from "./clock.ts";
import type { ApiError } from "./errors.ts";
import { errors } from "./errors.ts";
import { toErrorResponse } from "./http/errorResponse.ts";
import type { HttpEvent, HttpResponse, Reply } from "./http/message.ts";
import { header } from "./http/message.ts";
import { notModifiedResponse, validatorHeaders } from "./http/conditional.ts";
import { EncodedBodies, jsonResponse } from "./http/response.ts";
import type { RequestLog } from "./log.ts";
import { describeFailure } from "./log.ts";
import type { ServiceMetrics } from "./metrics.ts";
import type { Scope } from "./scopes.ts";
import { policyField, rateLimitField } from "./rateLimit/headers.ts";
import type { Admission, RateLimiting } from "./rateLimit/limiter.ts";
import type { RateLimit } from "./rateLimit/policy.ts";

export interface ServiceContext extends Context {
  principal?: Principal;
  /** Set by the handler when it replays a stored idempotent response. */
  replayed?: boolean;
  /** The error this request answered with, for the log line. */
  apiError?: ApiError;
  /** The key's rate limit as this request found it (set for every request with a valid key). */
  rateLimit?: Admission;
}

/** A handler's Reply until the response middleware has written it as an HttpResponse. */
export type ServiceResult = Reply | HttpResponse;

/** A wired function: what `functions/<operation>/handler.ts` builds and index.ts exports. */
export type ServiceHandler = MiddyfiedHandler<HttpEvent, HttpResponse, Error, ServiceContext>;

type ServiceRequest = Request<HttpEvent, ServiceResult, Error, ServiceContext>;
export type ServiceMiddleware = MiddlewareObj<HttpEvent, ServiceResult, Error, ServiceContext>;

/** Local runs and tests may invoke without a Lambda context; they get this budget. */
const defaultBudgetMs = 10_000;
/** Kept back from the Lambda timeout so a 503 can still be written and logged. */
const safetyMarginMs = 300;

export function deadlineOf(
  context: Partial<Pick<Context, "getRemainingTimeInMillis">>,
  now: Clock = systemClock,
): number {
  const remaining =
    typeof context.getRemainingTimeInMillis === "function"
      ? context.getRemainingTimeInMillis()
      : defaultBudgetMs;
  return now() + Math.max(0, remaining - safetyMarginMs);
}

export function isHttpResponse(result: ServiceResult | null | undefined): result is HttpResponse {
  return result !== null && result !== undefined && "headers" in result;
}

/**
 * The request's id: API Gateway's (`requestContext.requestId`, also its `apigw-requestid` header
 * and the access log's `requestId`), the key that joins the access log, the function's log line
 * and the answer's `Request-Id`. An event made by hand without one falls back to Lambda's.
 */
export function requestIdOf(event: HttpEvent, context: Pick<Context, "awsRequestId">): string {
  const gateway = event.requestContext as HttpEvent["requestContext"] | undefined;
  return gateway?.requestId || context.awsRequestId || "unknown";
}

/**
 * `Request-Id` on every answer, success or error: used right after the request log, so its
 * `after` and `onError` run once the response (or the Error shape) is in place.
 */
export function requestIdHeader(): ServiceMiddleware {
  const stamp = (request: ServiceRequest): void => {
    if (isHttpResponse(request.response)) {
      request.response.headers["request-id"] = requestIdOf(request.event, request.context);
    }
  };
  return { after: stamp, onError: stamp };
}

/** Writes the request's one log line, after success and after an error alike. Use it early. */
export function requestLog(logger: RequestLog, now: Clock): ServiceMiddleware {
  const started = new WeakMap<ServiceRequest, number>();
  const write = (request: ServiceRequest): void => {
    const status = request.response?.statusCode ?? 500;
    const failure = request.context.apiError;
    // API Gateway always sends requestContext; a hand-made event without one still gets a line.
    const gateway = request.event.requestContext as HttpEvent["requestContext"] | undefined;
    logger.write({
      requestId: requestIdOf(request.event, request.context),
      lambdaRequestId: request.context.awsRequestId || undefined,
      route: request.event.routeKey,
      method: gateway?.http.method ?? "unknown",
      status,
      latencyMs: now() - (started.get(request) ?? now()),
      code: failure?.code,
      keyId: request.context.principal?.keyId,
      legacyKey: request.context.principal?.legacyKey,
      replayed: request.context.replayed,
      rateLimitFailedOpen: failedOpen(request.context.rateLimit),
      detail: isFault(status) && request.error ? describeFailure(request.error) : undefined,
    });
  };
  return {
    before: (request) => {
      started.set(request, now());
    },
    after: write,
    onError: write,
  };
}

function failedOpen(admission: Admission | undefined): string | undefined {
  if (!admission?.failedOpen) return undefined;
  const { cause } = admission;
  if (cause === undefined) return "the store failed less than a second ago; not asked again yet";
  return cause instanceof Error ? `${cause.name}: ${cause.message}` : "the store failed";
}

/** 500 and 503 are the service's own failures; their cause belongs in the log. */
function isFault(status: number): boolean {
  return status === 500 || status === 503;
}

/** The single place a thrown error becomes the Error shape, and is counted by its code. */
export function errorResponse(metrics: Pick<ServiceMetrics, "error">): ServiceMiddleware {
  return {
    onError: (request) => {
      const credentials = parseAuthorization(header(request.event, "authorization"));
      const { response, error } = toErrorResponse(
        request.error,
        credentials.kind === "bearer" ? credentials.token : undefined,
      );
      request.context.apiError = error;
      request.response = response;
      metrics.error(error.code);
    },
  };
}

/**
 * Writes the handler's Reply: JSON with the contract's headers, compressed as Accept-Encoding
 * allows, within Lambda's 6 MB limit (lib/http/response.ts), and `Idempotent-Replayed` on a replay.
 * A versioned reply's encoded bodies are kept in `bodies` (one per container, as the handler is).
 * What it throws (406 too large) reaches errorResponse like any other error.
 */
export function respond(bodies = new EncodedBodies()): ServiceMiddleware {
  return {
    after: (request) => {
      const reply = request.response;
      if (!reply || isHttpResponse(reply)) return;
      const acceptEncoding = header(request.event, "accept-encoding");
      const validators = reply.version ? validatorHeaders(acceptEncoding, reply.version) : {};
      if (reply.statusCode === 304) {
        request.response = notModifiedResponse(validators);
        return;
      }
      request.response = jsonResponse(
        reply.statusCode,
        reply.data,
        acceptEncoding,
        { ...validators, ...(request.context.replayed && { "idempotent-replayed": "true" }) },
        reply.version === undefined ? undefined : bodies,
      );
    },
  };
}

export function authorize(verifier: Authenticator, now: Clock): ServiceMiddleware {
  return {
    before: async (request) => {
      request.context.principal = await verifier.authenticate(
        header(request.event, "authorization"),
        deadlineOf(request.context, now),
      );
    },
  };
}

/**
 * 403 `insufficient_scope` unless the request's key has `scope` (lib/scopes.ts). Used by a
 * handler right after authenticatedService, so it runs after authentication and the rate limit
 * and before the body is read.
 */
export function requireScope(scope: Scope): ServiceMiddleware {
  return {
    before: (request) => {
      const scopes = request.context.principal?.scopes;
      if (!scopes?.includes(scope)) throw errors.insufficientScope(scope);
    },
  };
}

/**
 * Counts a request with a valid key against the key's rate limit (its own, else the stage's
 * default): right after authentication, before scope and body (the contract's order). Over the
 * limit: 429, and nothing after this runs. A bucket out of reach admits (fail open), counted.
 */
export function rateLimit(
  limiter: RateLimiting,
  defaultLimit: RateLimit,
  metrics: Pick<ServiceMetrics, "count">,
  now: Clock,
): ServiceMiddleware {
  return {
    before: async (request) => {
      const { principal } = request.context;
      if (!principal) return;
      const admission = await limiter.admit(
        principal.bucket,
        principal.rateLimit ?? defaultLimit,
        deadlineOf(request.context, now),
      );
      request.context.rateLimit = admission;
      if (admission.failedOpen) metrics.count("rateLimitFailOpen");
      if (admission.admitted) return;
      metrics.count("rateLimited");
      throw errors.rateLimited(admission.retryAfterSeconds);
    },
  };
}

/**
 * `RateLimit-Policy` and `RateLimit` (lib/rateLimit/headers.ts) on every answer to a request with
 * a valid key, its errors and 429s included. Used before errorResponse and respond, so that it
 * runs after both have written the answer.
 */
export function rateLimitHeaders(): ServiceMiddleware {
  const write = (request: ServiceRequest): void => {
    const admission = request.context.rateLimit;
    const response = request.response;
    if (!admission || !isHttpResponse(response)) return;
    response.headers["ratelimit-policy"] = policyField(admission.limit);
    response.headers.ratelimit = rateLimitField(admission.remaining, admission.resetSeconds);
  };
  return { after: write, onError: write };
}

type EnvelopeDeps = {
  readonly logger: RequestLog;
  readonly now: Clock;
  readonly verifier: Authenticator;
  readonly limiter: RateLimiting;
  readonly config: { readonly defaultRateLimit: RateLimit };
  readonly metrics: ServiceMetrics;
};

/**
 * Metrics, log, request id, error shaping, response writing, authentication and the rate limit:
 * the envelope of every operation. A handler's scope (requireScope) comes right after it.
 */
export function authenticatedService(deps: EnvelopeDeps): ServiceMiddleware[] {
  return [...answerEnvelope(deps), respond(), ...keyCheck(deps)];
}

/**
 * The envelope's outer part: metrics, log, request id and the Error shape. The route fallback
 * (functions/routeFallback/) composes it with keyCheck as authenticatedService does, with headers
 * of its own on every answer (`answerHeaders`: its onError runs once the Error shape is in
 * place) and without the response writer (it only ever answers errors, and its bundle stays
 * without the compression code).
 */
export function answerEnvelope(
  deps: EnvelopeDeps,
  answerHeaders?: ServiceMiddleware,
): ServiceMiddleware[] {
  return [
    deps.metrics.middleware(),
    requestLog(deps.logger, deps.now),
    requestIdHeader(),
    ...(answerHeaders ? [answerHeaders] : []),
    rateLimitHeaders(),
    errorResponse(deps.metrics),
  ];
}

/** The envelope's inner part: the key, then its rate limit. */
export function keyCheck(deps: EnvelopeDeps): ServiceMiddleware[] {
  return [
    authorize(deps.verifier, deps.now),
    rateLimit(deps.limiter, deps.config.defaultRateLimit, deps.metrics, deps.now),
  ];
}
