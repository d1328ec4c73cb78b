import middy from "@middy/core";
import type { DepsOptions, ServiceDeps } from "../../lib/deps.ts";
import { createServiceParts } from "../../lib/deps.ts";
import { errors } from "../../lib/errors.ts";
import type { HttpEvent, HttpResponse } from "../../lib/http/message.ts";
import type {
  ServiceContext,
  ServiceHandler,
  ServiceMiddleware,
  ServiceResult,
} from "../../lib/middleware.ts";
import { answerEnvelope, isHttpResponse, keyCheck } from "../../lib/middleware.ts";
import type { Declared, RouteTable } from "../../lib/routes.ts";
import { decideFallback } from "../../lib/routes.ts";

/**
 * Everything the operations do not serve: API Gateway's `$default` route (404 / 405) and
 * the routes the interface names without specifying (501, after authentication; the pets route
 * 410 once its sunset date has passed). The envelope is the operations' (lib/middleware.ts).
 */
export function routeFallbackHandler(deps: ServiceDeps, routes: RouteTable): ServiceHandler {
  return middy<HttpEvent, ServiceResult, Error, ServiceContext>()
    .use(answerEnvelope(deps, routeHeaders(deps)))
    .use(unknownRoutes(routes))
    .use(keyCheck(deps))
    .handler<HttpEvent, HttpResponse>((event) => {
      if (event.routeKey === petsRoute) {
        const { petsSunsetAt } = deps.config;
        if (petsSunsetAt && deps.now() >= petsSunsetAt.getTime())
          throw errors.gone("the pets API", petsSunsetAt);
        throw errors.notImplemented("the pets API");
      }
      throw errors.notImplemented("the store orders API");
    });
}

/** The function as its index.ts and the tests build it: the shared parts are all it uses. */
export function build(options: DepsOptions, declared: Declared): ServiceHandler {
  return routeFallbackHandler(createServiceParts(options), declared.routes);
}

/** `$default`: 404, or 405 with Allow when the path is served with other methods; no key needed. */
function unknownRoutes(routes: RouteTable): ServiceMiddleware {
  return {
    before: (request) => {
      if (request.event.routeKey !== "$default") return;
      const { rawPath, requestContext } = request.event;
      const decision = decideFallback(routes, rawPath, requestContext.http.method);
      throw decision.kind === "not_found"
        ? errors.notFound()
        : errors.methodNotAllowed(decision.path, decision.allow);
    },
  };
}

const petsRoute = "GET /v1/pets/{petId}";
const storeOrdersRoute = "GET /v1/store/orders";

/**
 * Headers on every answer of a named route (its 401s included). The pets route is deprecated:
 * RFC 9745 Deprecation (a structured-field date) and, when configured, RFC 8594 Sunset. The store
 * route is experimental (openapi.yaml `x-stability`): `Stability: experimental`. Used before
 * errorResponse, so its onError runs after the Error shape is in place.
 */
function routeHeaders(deps: ServiceDeps): ServiceMiddleware {
  const { petsDeprecatedAt, petsSunsetAt } = deps.config;
  const byRoute = new Map<string, Readonly<Record<string, string>>>([
    [
      petsRoute,
      {
        deprecation: `@${Math.floor(petsDeprecatedAt.getTime() / 1000)}`,
        ...(petsSunsetAt && { sunset: petsSunsetAt.toUTCString() }),
      },
    ],
    [storeOrdersRoute, { stability: "experimental" }],
  ]);
  return {
    onError: (request) => {
      const headers = byRoute.get(request.event.routeKey);
      if (!headers || !isHttpResponse(request.response)) return;
      Object.assign(request.response.headers, headers);
    },
  };
}
