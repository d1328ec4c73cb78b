/**
 * Property-based hostile input against the three handlers, invoked directly with generated API
 * Gateway (payload 2.0) events built from the sample events and then mutated: random and deeply
 * nested bodies, bodies near and over 64 KiB, lone surrogates, `__proto__` / `constructor` /
 * `prototype` keys, duplicated JSON keys, base64 flags that lie, invalid UTF-8, odd header
 * spellings, odd Content-Types and every kind of wrong Authorization value around one valid key.
 *
 * Whatever the input: never a 5xx; the contract's Content-Type; from 400 up exactly
 * {code, message, status} with status equal to the HTTP status; an answer documented by
 * openapi.yaml; one log line; neither the key, nor its SHA-256, nor anything key-like the request
 * presented in the answer or the log; no write to the store unless the answer is 201; and
 * Object.prototype untouched. Where the generator knows what it made, the status is the one the
 * contract's order of checks demands (route, key, media type, size, JSON, fields).
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCategoryHandler } from "../../functions/createCategory/handler.ts";
import { listCategoriesHandler } from "../../functions/listCategories/handler.ts";
import { routeFallbackHandler } from "../../functions/routeFallback/handler.ts";
import { hashApiKey } from "../../lib/repositories/apiKeys.ts";
import type { HttpEvent } from "../../lib/http/message.ts";
import { header } from "../../lib/http/message.ts";
import type { ServiceHandler } from "../../lib/middleware.ts";
import { routeTableOf } from "../../lib/routes.ts";
import type { Category } from "../../lib/repositories/categories.ts";
import { routesOf } from "../../local/template.ts";
import { bodyText, loadEvent } from "../functions/harness.ts";
import type { AuthCase, BodyCase, IdempotencyCase, MediaCase } from "../support/hostile.ts";
import {
  acceptEncodingArb,
  authorizationArb,
  authorizationName,
  bodyArb,
  contentTypeArb,
  contentTypeName,
  expectNoSecretIn,
  expectPrototypeIntact,
  expectSafeAnswer,
  extraHeadersArb,
  idempotencyArb,
  keyLikeRuns,
  randomKeyLike,
  setHeader,
  sha256,
  stringOf,
  validDescriptionArb,
  validNameArb,
} from "../support/hostile.ts";
import { assertMatchesOpenApi } from "../support/openapi.ts";
import type { RecordedCall } from "../support/recordingDynamoProxy.ts";
import type { SecurityInvocation } from "../support/securityHarness.ts";
import { useSecurityHarness, writeOperations } from "../support/securityHarness.ts";

/** Runs per property; HOSTILE_RUNS_FACTOR=10 makes a soak run. The total is logged at the end. */
const factor = Number(process.env.HOSTILE_RUNS_FACTOR ?? "1");
const runs = Object.fromEntries(
  Object.entries({
    list: 600,
    /** Everything random: mostly decided by the key and the media type. */
    create: 1_200,
    /** An accepted key and (mostly) a JSON media type: decided by the body. */
    createBodies: 1_800,
    validCreate: 300,
    keyInBody: 200,
    fallback: 900,
    /** Creates (accepted key, any body) whose 201s must be exactly what the store gained. */
    ledger: 300,
    /** Mixed lists and creates, counted against the log. */
    logged: 200,
  }).map(([name, count]) => [name, Math.round(count * factor)]),
) as Readonly<
  Record<
    | "list"
    | "create"
    | "createBodies"
    | "validCreate"
    | "keyInBody"
    | "fallback"
    | "ledger"
    | "logged",
    number
  >
>;

const harness = useSecurityHarness();
const key = harness.validKey;
const keySecrets = [key, hashApiKey(key), sha256(key)];
const routes = routeTableOf([...routesOf().keys()].filter((routeKey) => routeKey !== "$default"));

let create: ServiceHandler;
let list: ServiceHandler;
let fallback: ServiceHandler;
/**
 * Every category a 201 answered, by id, in whatever tests ran in whatever order: the store must
 * hold exactly these after them (checked in afterAll, besides the test that proves it alone).
 */
const answered201 = new Map<number, Category>();
let casesRun = 0;

beforeAll(async () => {
  const deps = harness.deps();
  create = createCategoryHandler(deps);
  list = listCategoriesHandler(deps);
  fallback = routeFallbackHandler(deps, routes);
  // A few categories with long descriptions, so that lists are long enough to be compressed.
  for (let i = 0; i < 20; i++) {
    const event = withValidKey("create-ok.json");
    event.body = JSON.stringify({ name: `Seed ${i}`, description: "🐇 lagomorph ".repeat(60) });
    const { response } = await serve(create, event, []);
    expect(response.statusCode).toBe(201);
  }
});

afterAll(async () => {
  const stored = await harness.stored();
  expect(stored).toEqual([...answered201.values()].sort((a, b) => a.id - b.id));
  expect(harness.logLines).toHaveLength(casesRun);
  for (const line of harness.logLines) expectNoSecretIn(line, keySecrets);
  console.info(`hostile handler cases: ${casesRun} invocations in all`);
});

interface Common {
  readonly auth: AuthCase;
  readonly authName: string;
  readonly acceptEncoding: string | undefined;
  readonly extra: Readonly<Record<string, string>>;
}

const common = {
  auth: authorizationArb(key),
  authName: authorizationName,
  acceptEncoding: acceptEncodingArb,
  extra: extraHeadersArb,
};

function withHeaders(event: HttpEvent, input: Common): HttpEvent {
  const headers = event.headers;
  Reflect.deleteProperty(headers, "content-length");
  setHeader(headers, input.authName, input.auth.value);
  setHeader(headers, "accept-encoding", input.acceptEncoding);
  Object.assign(headers, input.extra);
  event.requestContext.requestId = `hostile-${casesRun}`;
  return event;
}

function withBody(event: HttpEvent, body: BodyCase): HttpEvent {
  if (body.body === undefined) Reflect.deleteProperty(event, "body");
  else event.body = body.body;
  event.isBase64Encoded = body.isBase64Encoded;
  return event;
}

/**
 * Invokes and checks the invariants every answer keeps; `presented` are the request's values
 * whose key-like runs must not come back.
 */
async function serve(
  handler: ServiceHandler,
  event: HttpEvent,
  presented: readonly (string | undefined)[],
  options: { readonly idempotencyKey?: boolean } = {},
): Promise<SecurityInvocation> {
  casesRun += 1;
  const method = event.requestContext.http.method;
  const path = event.rawPath;
  const authorization = header(event, "authorization");
  const sent = sentText(event);
  const invocation = await harness.invoke(handler, event);
  const { response } = invocation;
  const text = bodyText(response);
  if (response.statusCode === 201) {
    // Recorded first, so that the final store check also covers a case that fails below.
    const category = JSON.parse(text) as Category;
    answered201.set(category.id, category);
  }
  const secrets = [...keySecrets, ...echoable(presented, sent)];
  expectSafeAnswer(
    {
      status: response.statusCode,
      headers: response.headers,
      text,
      isBase64Encoded: response.isBase64Encoded,
    },
    secrets,
  );
  assertMatchesOpenApi({
    method,
    path,
    status: response.statusCode,
    headers: response.headers,
    body: text,
  });

  expect(invocation.logLines).toHaveLength(1);
  const line = invocation.logLines[0] ?? "";
  expectNoSecretIn(line, secrets);
  expect(JSON.parse(line)).toMatchObject({ status: response.statusCode });

  const writes = invocation.calls.filter((call) => writeOperations.has(call.operation));
  if (response.statusCode !== 201) {
    // Only a repeated Idempotency-Key may try a write before being refused (409 / 422): the
    // conditional claim of the key, which fails because the key is taken.
    const attempts = options.idempotencyKey
      ? writes.filter((call) => !isConditional(call))
      : writes;
    expect(attempts.map((call) => call.operation)).toEqual([]);
  }
  // The store sees the key's hash (the record's sort key, and the scope of idempotency
  // records), never the key nor anything key-like from the Authorization header.
  expectNoSecretIn(JSON.stringify(invocation.calls.map((call) => call.input)), [
    key,
    ...keyLikeRuns(authorization),
  ]);
  expectPrototypeIntact();
  return invocation;
}

/** The request body as sent and as decoded from base64, for `echoable`. */
function sentText(event: HttpEvent): string {
  const raw = event.body ?? "";
  return event.isBase64Encoded ? `${raw}\n${Buffer.from(raw, "base64").toString("utf8")}` : raw;
}

/**
 * The key-like runs of the presented values that must not come back. A run the body also holds
 * is left out: an unknown field is named in the answer by contract, and fast-check likes to
 * draw words such as "prototype" or "constructor" for headers and field names alike.
 */
function echoable(presented: readonly (string | undefined)[], body: string): string[] {
  return keyLikeRuns(...presented).filter((run) => !body.includes(run));
}

function isConditional(call: RecordedCall): boolean {
  return (
    typeof call.input === "object" && call.input !== null && "ConditionExpression" in call.input
  );
}

/** A sample event carrying the harness's valid key. */
function withValidKey(name: string): HttpEvent {
  const event = loadEvent(name);
  event.headers.authorization = `Bearer ${key}`;
  return event;
}

function decodedBody(body: BodyCase): string {
  const raw = body.body ?? "";
  return body.isBase64Encoded ? Buffer.from(raw, "base64").toString("utf8") : raw;
}

// ---------------------------------------------------------------------------------------------

interface CreateCase extends Common {
  readonly media: MediaCase;
  readonly mediaName: string;
  readonly body: BodyCase;
  readonly idempotency: IdempotencyCase;
}

const createCaseArb: fc.Arbitrary<CreateCase> = fc.record({
  ...common,
  media: contentTypeArb,
  mediaName: contentTypeName,
  body: bodyArb,
  idempotency: idempotencyArb,
});

/** The same, with an accepted key and mostly a JSON media type, so the body decides. */
const createBodyCaseArb: fc.Arbitrary<CreateCase> = fc.record({
  ...common,
  auth: authorizationArb(key).filter((auth) => auth.verdict === "accept"),
  media: fc.oneof(
    { weight: 9, arbitrary: contentTypeArb.filter((media) => media.verdict === "json") },
    { weight: 1, arbitrary: contentTypeArb },
  ),
  mediaName: contentTypeName,
  body: bodyArb,
  idempotency: idempotencyArb,
});

async function checkCreate(input: CreateCase): Promise<void> {
  const { response } = await serve(
    create,
    createEvent(input),
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

function createEvent(input: CreateCase): HttpEvent {
  const event = withHeaders(loadEvent("create-ok.json"), input);
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

function presentedBy(input: Common, ...more: (string | undefined)[]): (string | undefined)[] {
  return [input.auth.value, ...Object.values(input.extra), ...more];
}

// ---------------------------------------------------------------------------------------------

describe("listCategories: any Authorization, Accept-Encoding, headers or body: 200 only for the valid key, never a 5xx, no key echoed or logged", () => {
  it(`holds for ${runs.list} generated requests`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ ...common, body: fc.option(bodyArb, { nil: undefined }) }),
        async (input) => {
          const event = withHeaders(loadEvent("list-ok.json"), input);
          if (input.body) withBody(event, input.body);
          const { response } = await serve(list, event, presentedBy(input));
          expect(response.statusCode).toBe(input.auth.verdict === "accept" ? 200 : 401);
          if (response.statusCode === 200) {
            const categories = JSON.parse(bodyText(response)) as Category[];
            const ids = categories.map((category) => category.id);
            expect(ids).toEqual([...ids].sort((a, b) => a - b));
          }
        },
      ),
      { numRuns: runs.list },
    );
  });
});

describe("createCategory: any body, media type, Authorization or header: the contract's status in its order of checks, never a 5xx, nothing stored unless 201", () => {
  it(`holds for ${runs.create} generated requests`, async () => {
    await fc.assert(fc.asyncProperty(createCaseArb, checkCreate), { numRuns: runs.create });
  });

  it(`holds for ${runs.createBodies} generated bodies sent with an accepted key`, async () => {
    await fc.assert(fc.asyncProperty(createBodyCaseArb, checkCreate), {
      numRuns: runs.createBodies,
    });
  });

  it(`a valid key with a valid body is always stored and answered 201 (${runs.validCreate} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        validNameArb,
        fc.option(validDescriptionArb, { nil: undefined }),
        fc.constantFrom(undefined, "application/json", "application/json; charset=utf-8"),
        fc.boolean(),
        async (name, description, contentType, asBase64) => {
          const event = withValidKey("create-ok.json");
          setHeader(event.headers, "content-type", contentType);
          const json = JSON.stringify({ name, ...(description !== undefined && { description }) });
          event.body = asBase64 ? Buffer.from(json).toString("base64") : json;
          event.isBase64Encoded = asBase64;
          const { response, calls } = await serve(create, event, []);
          expect(response.statusCode).toBe(201);
          const category = JSON.parse(bodyText(response)) as Category;
          expect(category).toStrictEqual({
            id: category.id,
            name: name.trim(),
            ...(description !== undefined && { description }),
          });
          expect(calls.some((call) => call.operation === "PutItem")).toBe(true);
        },
      ),
      { numRuns: runs.validCreate },
    );
  });
});

describe("a key pasted into a refused body is not echoed whole: field names are quoted to 40 characters", () => {
  it(`holds for ${runs.keyInBody} generated bodies`, async () => {
    const pasted = fc.constantFrom(key, `Bearer ${key}`, hashApiKey(key));
    await fc.assert(
      fc.asyncProperty(
        pasted,
        fc.constantFrom(
          (k: string) => ({ [k]: 1 }),
          (k: string) => ({ name: "x", [k]: "y" }),
          (k: string) => ({ name: "x", description: { [k]: 1 } }),
          (k: string) => ({ [`${k}${k}`]: true }),
          (k: string) => ({ name: "x", id: k }),
          (k: string) => ({ name: `${k}\u0000` }),
          (k: string) => ({ name: k.repeat(3) }),
          (k: string) => ({ name: [k] }),
          (k: string) => ({ name: "x", description: null, [k]: k }),
        ),
        async (secret, shape) => {
          const event = withValidKey("create-ok.json");
          event.body = JSON.stringify(shape(secret));
          const { response } = await serve(create, event, []);
          expect(response.statusCode).toBe(400);
          expectNoSecretIn(response.body, [key, hashApiKey(key), secret]);
        },
      ),
      { numRuns: runs.keyInBody },
    );
  });
});

// ---------------------------------------------------------------------------------------------

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
  const event = withHeaders(loadEvent("unknown-route.json"), input);
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
        const { response } = await serve(
          fallback,
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

describe("nothing is stored but what was answered 201", () => {
  it(`the store gains exactly the categories the 201s of ${runs.ledger} generated creates returned`, async () => {
    const before = new Set((await harness.stored()).map((category) => category.id));
    const answeredBefore = new Set(answered201.keys());
    await fc.assert(fc.asyncProperty(createBodyCaseArb, checkCreate), { numRuns: runs.ledger });
    const gained = (await harness.stored()).filter((category) => !before.has(category.id));
    const answered = [...answered201.values()].filter(({ id }) => !answeredBefore.has(id));
    expect(gained).toEqual(answered.sort((a, b) => a.id - b.id));
    expect(answered.length).toBeGreaterThan(0);
  });
});

describe("every invocation writes one log line, and none holds the key or its hash", () => {
  it(`holds for ${runs.logged} generated lists and creates`, async () => {
    const linesBefore = harness.logLines.length;
    const casesBefore = casesRun;
    await fc.assert(
      fc.asyncProperty(fc.boolean(), createCaseArb, async (listing, input) => {
        if (listing)
          await serve(list, withHeaders(loadEvent("list-ok.json"), input), presentedBy(input));
        else await checkCreate(input);
      }),
      { numRuns: runs.logged },
    );
    const lines = harness.logLines.slice(linesBefore);
    expect(lines).toHaveLength(casesRun - casesBefore);
    expect(lines.length).toBeGreaterThanOrEqual(runs.logged);
    for (const line of lines) expectNoSecretIn(line, keySecrets);
  });
});

describe("a store failure while checking the key is logged for the operator without the key or its hash", () => {
  it("answers 500 in the Error shape; the log's detail names the failure, not the key", async () => {
    harness.failCalls("GetItem");
    try {
      const event = loadEvent("list-ok.json");
      // A key the verifier has not cached, so it must be looked up.
      const unknown = `petstore_${"Zq9".repeat(14)}x`;
      event.headers.authorization = `Bearer ${unknown}`;
      const { response, logLines } = await harness.invoke(list, event);
      casesRun += 1;
      expect(response).toBeApiError(500);
      const line = JSON.parse(logLines[0] ?? "{}") as { detail?: string };
      expect(line.detail).toMatch(/ValidationException/);
      const secrets = [...keySecrets, unknown, hashApiKey(unknown)];
      expectNoSecretIn(`${response.body}${JSON.stringify(response.headers)}`, secrets);
      expectNoSecretIn(logLines.join("\n"), secrets);
    } finally {
      harness.failCalls(undefined);
    }
  });
});
