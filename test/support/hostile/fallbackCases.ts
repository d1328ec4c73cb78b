/**
 * Generated requests for the route fallback: any path and method on `$default` (but the served
 * routes), and the named-but-unspecified routes, with the template's paths matched independently
 * of lib/routes.ts.
 */
import fc from "fast-check";
import type { HttpEvent } from "../../../lib/http/message.ts";
import { routesOf } from "../../../local/template.ts";
import { loadEvent } from "../../functions/harness.ts";
import { bodyArb } from "./bodies.ts";
import type { BodyCase } from "./bodyCase.ts";
import { randomKeyLike, stringOf } from "./characters.ts";
import type { Common } from "./handlerEvents.ts";
import { commonArbs, withBody } from "./handlerEvents.ts";
import type { HostileHandlers } from "./handlerRig.ts";

/** The routes the template serves, `$default` aside (infra/template.yaml, the declaration). */
const servedRoutes = new Set([...routesOf().keys()].filter((routeKey) => routeKey !== "$default"));
/**
 * Each served path as a pattern, with the methods served there in the template's order (the
 * `Allow` of a 405): matched here independently of lib/routes.ts.
 */
export const knownPaths: readonly { readonly pattern: RegExp; readonly allow: string }[] = [
  ...Map.groupBy([...servedRoutes], (routeKey) => routeKey.split(" ")[1] ?? "").entries(),
].map(([path, routeKeys]) => ({
  pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`),
  allow: routeKeys.map((routeKey) => routeKey.split(" ")[0]).join(", "),
}));

/** A path segment: URL-safe, any text, the key itself, or something key-shaped. */
function segmentArb(key: string): fc.Arbitrary<string> {
  return fc.oneof(
    stringOf("abcdefghijklmnopqrstuvwxyz0123456789-._~%", 1, 12),
    fc.string({ unit: "binary", minLength: 1, maxLength: 12 }).map((s) => s.replaceAll("/", "")),
    fc.constant(key),
    randomKeyLike,
  );
}

function pathArb(segment: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(
      "/",
      "/v1",
      "/v1/",
      "/v1/categories",
      "/v1/categories/",
      "/v1/categories/1",
      "/V1/CATEGORIES",
      "/v2/categories",
      "/v1/pets",
      "/v1/pets/",
      "/v1/pets/7",
      "/v1/pets/7/x",
      "/v1/store",
      "/v1/store/orders",
      "/v1/store/orders/1",
      "//v1/categories",
      "/v1//categories",
      "/v1/categories%2f",
      "/v1/%2e%2e/categories",
    ),
    segment.map((s) => `/v1/pets/${s}`),
    fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `/${parts.join("/")}`),
    fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => `/v1/${parts.join("/")}`),
  );
}

const methodArb = fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "FOO");

export interface FallbackCase extends Common {
  readonly route: "$default" | "GET /v1/pets/{petId}" | "GET /v1/store/orders";
  readonly method: string;
  readonly path: string;
  readonly body: BodyCase | undefined;
}

export function fallbackCaseArb(key: string): fc.Arbitrary<FallbackCase> {
  const segment = segmentArb(key);
  return fc
    .record({
      ...commonArbs(key),
      route: fc.constantFrom(
        "$default",
        "$default",
        "GET /v1/pets/{petId}",
        "GET /v1/store/orders",
      ),
      method: methodArb,
      path: pathArb(segment),
      petId: segment,
      body: fc.option(bodyArb, { nil: undefined, freq: 3 }),
    })
    .map(({ petId, ...input }): FallbackCase => {
      if (input.route === "GET /v1/pets/{petId}") {
        return { ...input, method: "GET", path: `/v1/pets/${petId}` };
      }
      if (input.route === "GET /v1/store/orders") {
        return { ...input, method: "GET", path: "/v1/store/orders" };
      }
      return input;
    })
    .filter((input) => {
      if (input.route !== "$default") return true;
      // API Gateway routes a served method on a served path to its function, never to $default.
      return !knownPaths.some(
        ({ pattern, allow }) =>
          pattern.test(input.path) && allow.split(", ").includes(input.method),
      );
    });
}

export function fallbackEvent(rig: HostileHandlers, input: FallbackCase): HttpEvent {
  const event = rig.withHeaders(loadEvent("unknown-route.json"), input);
  event.routeKey = input.route;
  event.requestContext.routeKey = input.route;
  event.rawPath = input.path;
  event.requestContext.http.path = input.path;
  event.requestContext.http.method = input.method;
  if (input.route === "GET /v1/pets/{petId}") {
    event.pathParameters = { petId: input.path.slice("/v1/pets/".length) };
  }
  return input.body ? withBody(event, input.body) : event;
}
