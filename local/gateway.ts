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
import type { FunctionHost } from "./functionHost.ts";
import { routesOf } from "./template.ts";

/** What the gateway did with one request, for the terminal's line (local/requestLines.ts). */
export interface Handled {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly ms: number;
  /** The request id the gateway gave the event; undefined when no function ran (/docs). */
  readonly requestId: string | undefined;
}

/**
 * API Gateway: route by the template's route keys, invoke, and turn the result into HTTP;
 * `handled` hears of every request once answered.
 */
export function gatewayTo(
  hosts: ReadonlyMap<string, FunctionHost>,
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
    });
    return answered.answer;
  };
}

function routing(
  hosts: ReadonlyMap<string, FunctionHost>,
): (
  request: IncomingMessage,
  body: Buffer,
  requestId: string,
) => Promise<{ answer: HttpAnswer; requestId?: string | undefined }> {
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
    if (outcome.ok) return { answer: fromResult(outcome.result), requestId };
    // A function that throws is a Lambda invocation error: API Gateway answers its own 500.
    process.stderr.write(`${host.spec.name} invocation failed: ${outcome.error.message}\n`);
    return { answer: gatewayError, requestId };
  };
}
