/**
 * Property-based hostile input against routeFallback, invoked directly with generated API Gateway
 * (payload 2.0) events on any path, method, header or body: 404 or 405 (with Allow) before any
 * key for what the template does not route, 401 or 501 after the key for the named-but-
 * unspecified routes, and the invariants of test/support/hostileHandlers.ts on every answer.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { HttpEvent } from "../../lib/http/message.ts";
import { loadEvent } from "../functions/harness.ts";
import { bodyArb } from "../support/hostile/bodies.ts";
import type { BodyCase } from "../support/hostile/bodyCases.ts";
import type { Common } from "../support/hostile/events.ts";
import { commonArbs, presentedBy, withBody } from "../support/hostile/events.ts";
import { randomKeyLike, stringOf } from "../support/hostile/keys.ts";
import { scaledRuns, useHostileHandlers } from "../support/hostileHandlers.ts";

const runs = scaledRuns({ fallback: 900 });

const rig = useHostileHandlers("routes");
const handlers = rig.handlers;
const key = rig.key;
const common = commonArbs(key);

const servedRoutes = new Set([
  "GET /v1/categories",
  "POST /v1/categories",
  "GET /v1/pets/{petId}",
  "GET /v1/store/orders",
]);
/** The template's paths, matched independently of lib/routes.ts. */
const knownPaths: readonly { readonly pattern: RegExp; readonly allow: string }[] = [
  { pattern: /^\/v1\/categories$/, allow: "GET, POST" },
  { pattern: /^\/v1\/pets\/[^/]+$/, allow: "GET" },
  { pattern: /^\/v1\/store\/orders$/, allow: "GET" },
];

const segment = fc.oneof(
  stringOf("abcdefghijklmnopqrstuvwxyz0123456789-._~%", 1, 12),
  fc.string({ unit: "binary", minLength: 1, maxLength: 12 }).map((s) => s.replaceAll("/", "")),
  fc.constant(key),
  randomKeyLike,
);
const pathArb = fc.oneof(
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
const methodArb = fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "FOO");

interface FallbackCase extends Common {
  readonly route: "$default" | "GET /v1/pets/{petId}" | "GET /v1/store/orders";
  readonly method: string;
  readonly path: string;
  readonly body: BodyCase | undefined;
}

const fallbackCaseArb: fc.Arbitrary<FallbackCase> = fc
  .record({
    ...common,
    route: fc.constantFrom("$default", "$default", "GET /v1/pets/{petId}", "GET /v1/store/orders"),
    method: methodArb,
    path: pathArb,
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
    const served = `${input.method} ${input.path.replace(/^\/v1\/pets\/[^/]+$/, "/v1/pets/{petId}")}`;
    return !servedRoutes.has(served);
  });

function fallbackEvent(input: FallbackCase): HttpEvent {
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

describe("routeFallback: 404 / 405 before any key, 401 or 501 after it, on any path, method, header or body", () => {
  it(`holds for ${runs.fallback} generated requests`, async () => {
    await fc.assert(
      fc.asyncProperty(fallbackCaseArb, async (input) => {
        const { response } = await rig.serve(
          handlers().fallback,
          fallbackEvent(input),
          // Path segments as long as a key; shorter runs ("categories") are the route's own words.
          presentedBy(input, ...input.path.split("/").filter((part) => part.length >= 20)),
        );
        if (input.route !== "$default") {
          expect(response.statusCode).toBe(input.auth.verdict === "accept" ? 501 : 401);
          if (input.route === "GET /v1/pets/{petId}") {
            expect(response.headers.deprecation).toMatch(/^@\d+$/);
          }
          return;
        }
        const known = knownPaths.find(({ pattern }) => pattern.test(input.path));
        expect(response.statusCode).toBe(known ? 405 : 404);
        if (known) expect(response.headers.allow).toBe(known.allow);
      }),
      { numRuns: runs.fallback },
    );
  });
});

// ---------------------------------------------------------------------------------------------
