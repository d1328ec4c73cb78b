/**
 * The middy middlewares every function shares, in the order the contract checks a request:
 * log and error shaping wrap everything; then authentication; then (for bodies) media type,
 * size and UTF-8, after which @middy/http-json-body-parser does the JSON syntax.
 */
import type { MiddlewareObj, MiddyfiedHandler, Request } from "@middy/core";
import type { Context } from "aws-lambda";
import type { ApiKeyVerifier, Principal } from "./auth.ts";
import { parseAuthorization } from "./auth.ts";
import { errors } from "./errors.ts";
import type { ApiError } from "./errors.ts";
import type { HttpEvent, HttpResponse } from "./http.ts";
import { header, isJsonMediaType, readBodyText, toErrorResponse } from "./http.ts";
import type { RequestLogger } from "./log.ts";
import { describeFailure } from "./log.ts";

export interface ServiceContext extends Context {
  principal?: Principal;
  /** Set by the handler when it replays a stored idempotent response. */
  replayed?: boolean;
  /** The error this request answered with, for the log line. */
  apiError?: ApiError;
}

/** A wired function: what `functions/<operation>/handler.ts` builds and index.ts exports. */
export type ServiceHandler = MiddyfiedHandler<HttpEvent, HttpResponse, Error, ServiceContext>;

type ServiceRequest = Request<HttpEvent, HttpResponse, Error, ServiceContext>;
type ServiceMiddleware = MiddlewareObj<HttpEvent, HttpResponse, Error, ServiceContext>;

/** Local runs and tests may invoke without a Lambda context; they get this budget. */
const defaultBudgetMs = 10_000;
/** Kept back from the Lambda timeout so a 503 can still be written and logged. */
const safetyMarginMs = 300;

export function deadlineOf(context: Partial<Pick<Context, "getRemainingTimeInMillis">>): number {
  const remaining =
    typeof context.getRemainingTimeInMillis === "function"
      ? context.getRemainingTimeInMillis()
      : defaultBudgetMs;
  return Date.now() + Math.max(0, remaining - safetyMarginMs);
}

/** Writes the request's one log line, after success and after an error alike. Use it first. */
export function requestLog(logger: RequestLogger, now: () => number): ServiceMiddleware {
  const started = new WeakMap<ServiceRequest, number>();
  const write = (request: ServiceRequest): void => {
    const status = request.response?.statusCode ?? 500;
    const failure = request.context.apiError;
    // API Gateway always sends requestContext; a hand-made event without one still gets a line.
    const gateway = request.event.requestContext as HttpEvent["requestContext"] | undefined;
    logger.write({
      requestId: request.context.awsRequestId || (gateway?.requestId ?? "unknown"),
      route: request.event.routeKey,
      method: gateway?.http.method ?? "unknown",
      status,
      latencyMs: now() - (started.get(request) ?? now()),
      code: failure?.code,
      keyId: request.context.principal?.keyId,
      replayed: request.context.replayed,
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

/** 500 and 503 are the service's own failures; their cause belongs in the log. */
function isFault(status: number): boolean {
  return status === 500 || status === 503;
}

/** The single place a thrown error becomes the Error shape. Use it second. */
export function errorResponse(): ServiceMiddleware {
  return {
    onError: (request) => {
      const credentials = parseAuthorization(header(request.event, "authorization"));
      const { response, error } = toErrorResponse(
        request.error,
        credentials.kind === "bearer" ? credentials.token : undefined,
      );
      request.context.apiError = error;
      request.response = response;
    },
  };
}

export function authorize(verifier: ApiKeyVerifier): ServiceMiddleware {
  return {
    before: async (request) => {
      request.context.principal = await verifier.authenticate(
        header(request.event, "authorization"),
        deadlineOf(request.context),
      );
    },
  };
}

/**
 * Media type (415), size (413) and UTF-8 checks before JSON parsing. A POST with no
 * Content-Type is read as JSON (contract), and a base64 body (API Gateway encodes bodies it
 * does not consider text) is decoded here, so the JSON parser always receives checked text.
 */
export function jsonRequestBody(): ServiceMiddleware {
  return {
    before: (request) => {
      const contentType = header(request.event, "content-type");
      if (contentType !== undefined && !isJsonMediaType(contentType)) {
        throw errors.unsupportedMediaType();
      }
      const text = readBodyText(request.event);
      if (text === undefined || text.trim() === "") {
        throw errors.invalidBody("the request body is missing: send a JSON object with a 'name'");
      }
      refuseDeepNesting(text);
      request.event.body = text;
      request.event.isBase64Encoded = false;
    },
  };
}

/** Log, error shaping and authentication: the envelope of every served operation. */
export function authenticatedService(deps: {
  readonly logger: RequestLogger;
  readonly now: () => number;
  readonly verifier: ApiKeyVerifier;
}): ServiceMiddleware[] {
  return [requestLog(deps.logger, deps.now), errorResponse(), authorize(deps.verifier)];
}

/** A NewCategory is a flat object; anything nested deeper than this cannot be one. */
const maxJsonDepth = 64;

/**
 * The JSON body parser parses with a reviver (its `__proto__` guard), which recurses and
 * overflows the stack near 2,300 levels of nesting. Deeper bodies are settled here instead:
 * plain JSON.parse (no recursion limit) tells malformed JSON (invalid_json) from well-formed JSON
 * that is no NewCategory (invalid_body), keeping the contract's order of checks.
 */
function refuseDeepNesting(text: string): void {
  if (jsonDepth(text) <= maxJsonDepth) return;
  try {
    JSON.parse(text);
  } catch {
    throw errors.invalidJson();
  }
  throw errors.invalidBody(
    `the body nests deeper than ${maxJsonDepth} levels; send a flat JSON object`,
  );
}

/** The deepest bracket nesting outside strings; a linear scan, cheap for a 64 KiB body. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}
