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

/** API Gateway: route by the template's route keys, invoke, and turn the result into HTTP. */
export function gatewayTo(
  hosts: ReadonlyMap<string, FunctionHost>,
): (request: IncomingMessage, body: Buffer, requestId: string) => Promise<HttpAnswer> {
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
      return docsAnswer();
    }
    const route =
      path === undefined
        ? undefined
        : routes.find((r) => r.method === request.method && pathMatches(r.pattern, path));
    const host = route?.host ?? fallbackHost;
    if (!host) {
      return {
        status: 404,
        headers: { "content-type": "application/json" },
        body: Buffer.from('{"message":"Not Found"}'),
      };
    }
    const event = toEvent(
      request,
      body,
      target,
      {
        routeKey: route?.routeKey ?? "$default",
        pattern: route?.pattern,
      },
      requestId,
    );
    const outcome = await host.invoke(event);
    if (outcome.ok) return fromResult(outcome.result);
    // A function that throws is a Lambda invocation error: API Gateway answers its own 500.
    process.stderr.write(`${host.spec.name} invocation failed: ${outcome.error.message}\n`);
    return gatewayError;
  };
}
