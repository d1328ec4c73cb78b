/**
 * Generated handler requests and what the contract allows for them: createCategory requests and
 * the statuses of its order of checks (key, then media type, size, JSON syntax, fields,
 * Idempotency-Key); and any path and method on the route fallback's `$default` (but the served
 * routes) or its named-but-unspecified routes, with the template's paths matched independently
 * of lib/routes.ts.
 */
import fc from "fast-check";
import { expect } from "vitest";
import type { Category } from "../../../lib/category.ts";
import type { HttpEvent } from "../../../lib/http/message.ts";
import { routesOf } from "../../../local/template.ts";
import { fallbackReads, routedPath } from "../openapi.ts";
import { bodyText, loadEvent } from "../../functions/harness.ts";
import type { BodyCase } from "./bodies.ts";
import { bodyArb } from "./bodies.ts";
import type { Common, HostileHandlers } from "./handlerRig.ts";
import { commonArbs, decodedBody, presentedBy, sentWithPath, withBody } from "./handlerRig.ts";
import type { IdempotencyCase, MediaCase } from "./headers.ts";
import {
  authorizationArb,
  contentTypeArb,
  contentTypeName,
  idempotencyArb,
  randomKeyLike,
  setHeader,
  stringOf,
  weighted,
} from "./headers.ts";

export interface CreateCase extends Common {
  readonly media: MediaCase;
  readonly mediaName: string;
  readonly body: BodyCase;
  readonly idempotency: IdempotencyCase;
}

/** Everything random: mostly decided by the key and the media type. */
export function createCaseArb(key: string): fc.Arbitrary<CreateCase> {
  return fc.record({
    ...commonArbs(key),
    media: contentTypeArb,
    mediaName: contentTypeName,
    body: bodyArb,
    idempotency: idempotencyArb,
  });
}

/** The same, with an accepted key and mostly a JSON media type, so the body decides. */
export function createBodyCaseArb(key: string): fc.Arbitrary<CreateCase> {
  return fc.record({
    ...commonArbs(key),
    auth: authorizationArb(key).filter((auth) => auth.verdict === "accept"),
    media: weighted(
      [9, contentTypeArb.filter((media) => media.verdict === "json")],
      [1, contentTypeArb],
    ),
    mediaName: contentTypeName,
    body: bodyArb,
    idempotency: idempotencyArb,
  });
}

/** Serves one generated create and checks its status against what the generators made. */
export async function checkCreate(rig: HostileHandlers, input: CreateCase): Promise<void> {
  const { response } = await rig.serve(
    rig.create(),
    createEvent(rig, input),
    presentedBy(input, input.idempotency.value),
    { idempotencyKey: input.idempotency.value !== undefined },
  );
  const expected = expectedCreate(input);
  if (expected) {
    expect(expected, `${input.auth.label} / ${input.body.label}`).toContain(response.statusCode);
  }
  if (response.statusCode === 201 && input.body.verdict === "valid") {
    const sent = JSON.parse(decodedBody(input.body)) as { name: string };
    expect((JSON.parse(bodyText(response)) as Category).name).toBe(sent.name.trim());
  }
}

function createEvent(rig: HostileHandlers, input: CreateCase): HttpEvent {
  const event = rig.withHeaders(loadEvent("create-ok.json"), input);
  setHeader(event.headers, input.mediaName, input.media.value);
  setHeader(event.headers, "idempotency-key", input.idempotency.value);
  return withBody(event, input.body);
}

/** The statuses the contract's order of checks allows for what the generators made. */
function expectedCreate(input: CreateCase): readonly number[] | undefined {
  if (input.auth.verdict === "refuse") return [401];
  if (input.media.verdict === "not_json") return [415];
  if (input.media.verdict === "unknown") return undefined;
  switch (input.body.verdict) {
    case "too_large":
      return [413];
    case "bad_request":
      return [400];
    case "unknown":
      return undefined;
    case "valid":
      if (input.idempotency.verdict === "invalid") return [400];
      if (input.idempotency.verdict === "shared") return [201, 422];
      return [201];
  }
}

/** The routes the template serves, `$default` aside (infra/template.yaml, the declaration). */
const servedRoutes = new Set([...routesOf().keys()].filter((routeKey) => routeKey !== "$default"));
/**
 * Each served path as a pattern, with the methods served there in the template's order (the
 * `Allow` of a 405): matched here independently of lib/routes.ts.
 */
/**
 * The served path a path as sent is, as API Gateway matches routes (decoded once; one whose
 * escapes do not decode is none) and the fallback reads it (never decoded again), with the
 * methods it is served with.
 */
export function knownPathOf(sentPath: string): { readonly allow: string } | undefined {
  const path = routedPath(sentPath);
  if (path === undefined || !fallbackReads(path)) return undefined;
  return knownPaths.find(({ pattern }) => pattern.test(path));
}

const knownPaths: readonly { readonly pattern: RegExp; readonly allow: string }[] = [
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
      // API Gateway routes a served method on a served path to its function, never to $default,
      // and a path that does not decode to a served one never to a named route.
      if (input.route !== "$default") return knownPathOf(input.path) !== undefined;
      const known = knownPathOf(input.path);
      return !known?.allow.split(", ").includes(input.method);
    });
}

export function fallbackEvent(rig: HostileHandlers, input: FallbackCase): HttpEvent {
  const event = rig.withHeaders(loadEvent("unknown-route.json"), input);
  event.routeKey = input.route;
  event.requestContext.routeKey = input.route;
  // As API Gateway hands it over: decoded once, or as sent when it does not decode.
  const handed = routedPath(input.path) ?? input.path;
  event.rawPath = handed;
  event.requestContext.http.path = handed;
  event.requestContext.http.method = input.method;
  if (input.route === "GET /v1/pets/{petId}") {
    // API Gateway decodes a parameter's value once more (lib/http/gatewayEvent.ts).
    const petId = handed.slice("/v1/pets/".length);
    event.pathParameters = { petId: routedPath(petId) ?? petId };
  }
  return sentWithPath(input.body ? withBody(event, input.body) : event, input.path);
}
