/**
 * API Gateway's part of the local stand-in: route a request by the template's route keys (the
 * `$default` route as the fallback), turn it into a payload 2.0 event, invoke the function's
 * container and turn its result (or its failure) into HTTP, as the HTTP API does.
 */
import type { IncomingMessage } from "node:http";
import { pathMatches } from "../lib/routes.ts";
import { fromResult, gatewayError, parseTarget, toEvent } from "./apiGateway.ts";
import type { HttpAnswer } from "./apiGateway.ts";
import { docsAnswer, isDocsPath } from "./docsPage.ts";
import { stoppedName } from "./functionPool.ts";
import type { FunctionPool, Outcome } from "./functionPool.ts";
import { routesOf } from "./template.ts";

/** What the gateway did with one request, for the terminal's line (local/requestLines.ts). */
export interface Handled {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly ms: number;
  /** The request id the gateway gave the event; undefined when no function ran (/docs). */
  readonly requestId: string | undefined;
  /** What the terminal adds: a cold start, a throttle, a timeout, an out-of-memory. */
  readonly note?: string | undefined;
}

/**
 * API Gateway: route by the template's route keys, invoke, and turn the result into HTTP;
 * `handled` hears of every request once answered.
 */
export function gatewayTo(
  hosts: ReadonlyMap<string, FunctionPool>,
  handled?: (request: Handled) => void,
): (request: IncomingMessage, body: Buffer, requestId: string) => Promise<HttpAnswer> {
  const route = routing(hosts);
  if (!handled)
    return async (request, body, requestId) => (await route(request, body, requestId)).answer;
  return async (request, body, requestId) => {
    const started = performance.now();
    const answered = await route(request, body, requestId);
    handled({
      method: request.method ?? "?",
      path: (request.url ?? "/").split("?", 1)[0] ?? "/",
      status: answered.answer.status,
      ms: performance.now() - started,
      requestId: answered.requestId,
      note: answered.note,
    });
    return answered.answer;
  };
}

function routing(
  hosts: ReadonlyMap<string, FunctionPool>,
): (
  request: IncomingMessage,
  body: Buffer,
  requestId: string,
) => Promise<{ answer: HttpAnswer; requestId?: string | undefined; note?: string | undefined }> {
  const routeTable = routesOf();
  const routes = [...routeTable.entries()]
    .filter(([key]) => key !== "$default")
    .map(([routeKey, spec]) => {
      const [method = "", pattern = ""] = routeKey.split(" ");
      return { routeKey, method, pattern, host: hosts.get(spec.name) };
    });
  const fallback = routeTable.get("$default");
  const fallbackHost = fallback && hosts.get(fallback.name);

  return async (request, body, requestId) => {
    const target = parseTarget(request.url ?? "/");
    const path = target.decodedPath;
    // Local only: the API reference (npm run docs); API Gateway serves no such route.
    if (path !== undefined && isDocsPath(path) && ["GET", "HEAD"].includes(request.method ?? "")) {
      return { answer: await docsAnswer() };
    }
    const route =
      path === undefined
        ? undefined
        : routes.find((r) => r.method === request.method && pathMatches(r.pattern, path));
    const host = route?.host ?? fallbackHost;
    if (!host) {
      const answer = {
        status: 404,
        headers: { "content-type": "application/json" },
        body: Buffer.from('{"message":"Not Found"}'),
      };
      return { answer };
    }
    const event = toEvent(request, body, target, route?.routeKey ?? "$default", requestId);
    const outcome = await host.invoke(event);
    const note = noteOf(outcome);
    if (outcome.ok) return { answer: fromResult(outcome.result), requestId, note };
    // Every failed invocation is API Gateway's own 500 {"message":"Internal Server Error"}: a
    // function that throws, times out (Lambda ends it at its Timeout, well inside the HTTP API's
    // 30 s integration timeout) or runs out of memory is a function error, and a throttle is
    // Lambda refusing the invocation (429 TooManyRequestsException to API Gateway). "API Gateway
    // treats all invocation and function errors as internal errors"; that page gives 500 for a
    // refused invocation and 502 for a function error, but describes REST APIs' proxy
    // integrations (docs.aws.amazon.com/lambda/latest/dg/services-apigateway-errors.html). For an
    // HTTP API AWS documents the body, {"message":"Internal Server Error"}, the cause only in
    // $context.integrationErrorMessage (docs.aws.amazon.com/apigateway/latest/developerguide/
    // http-api-troubleshooting-lambda.html), and users report a 500 for a failing function
    // (awslabs/aws-lambda-cpp#117) and for a Node.js one timing out (denoland/deno_registry2#87):
    // not verified against a deployed stage (docs/local.md).
    // A throttle, or the server's own stop, is no failure of the function's.
    if (outcome.failure !== "throttled" && outcome.error.name !== stoppedName)
      process.stderr.write(
        `${host.spec.name} invocation failed: ${outcome.error.name}: ${outcome.error.message}\n`,
      );
    return { answer: gatewayError, requestId, note };
  };
}

function noteOf(outcome: Outcome): string | undefined {
  if (!outcome.ok && outcome.failure !== "error") return `(${outcome.failure})`;
  const initMs = outcome.report?.initMs;
  return initMs === undefined ? undefined : `(cold start ${Math.round(initMs)} ms)`;
}
