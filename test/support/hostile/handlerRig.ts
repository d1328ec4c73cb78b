/**
 * The handler-level hostile rig: sample events from events/ with the generated headers and body
 * put on them, and the three handlers on the security harness (real deps, embedded store behind
 * the recording proxy, log captured). `serve` invokes one and checks what every answer to a
 * hostile request keeps: the invariants, documented by openapi.yaml, one log line without any
 * secret, no write unless 201, no key reaching the store, and Object.prototype untouched. Per
 * test file: a store seeded with 20 long categories (so lists are compressed), and in afterAll
 * the store holds exactly what the 201s answered, with one log line per invocation, none holding
 * the key or its hash.
 */
import type fc from "fast-check";
import { afterAll, beforeAll, expect } from "vitest";
import type { Category } from "../../../lib/category.ts";
import type { HttpEvent } from "../../../lib/http/message.ts";
import { header } from "../../../lib/http/message.ts";
import type { ServiceHandler } from "../../../lib/middleware.ts";
import { hashApiKey } from "../../../lib/repositories/apiKeys.ts";
import { bodyText, loadEvent } from "../../functions/harness.ts";
import { assertMatchesOpenApi } from "../openapi.ts";
import type { RecordedCall } from "../recordingDynamoProxy.ts";
import type { SecurityHarness, SecurityInvocation } from "../securityHarness.ts";
import { isRateLimitLease, useSecurityHarness, writeOperations } from "../securityHarness.ts";
import type { BodyCase } from "./bodies.ts";
import type { AuthCase } from "./headers.ts";
import {
  acceptEncodingArb,
  authorizationArb,
  authorizationName,
  extraHeadersArb,
  setHeader,
} from "./headers.ts";
import {
  expectNoSecretIn,
  expectPrototypeIntact,
  expectSafeAnswer,
  keyLikeRuns,
  sha256,
} from "./invariants.ts";

/** What every generated request carries, whatever the route. */
export interface Common {
  readonly auth: AuthCase;
  readonly authName: string;
  readonly acceptEncoding: string | undefined;
  readonly extra: Readonly<Record<string, string>>;
}

/** The record of arbitraries behind `Common`, around one valid key. */
export function commonArbs(key: string): { [Field in keyof Common]: fc.Arbitrary<Common[Field]> } {
  return {
    auth: authorizationArb(key),
    authName: authorizationName,
    acceptEncoding: acceptEncodingArb,
    extra: extraHeadersArb,
  };
}

/** Puts the generated headers on `event` (its Content-Length dropped: the body will change). */
export function withHeaders(event: HttpEvent, input: Common, requestId: string): HttpEvent {
  const headers = event.headers;
  Reflect.deleteProperty(headers, "content-length");
  setHeader(headers, input.authName, input.auth.value);
  setHeader(headers, "accept-encoding", input.acceptEncoding);
  Object.assign(headers, input.extra);
  event.requestContext.requestId = requestId;
  return event;
}

export function withBody(event: HttpEvent, body: BodyCase): HttpEvent {
  if (body.body === undefined) Reflect.deleteProperty(event, "body");
  else event.body = body.body;
  event.isBase64Encoded = body.isBase64Encoded;
  return event;
}

/** A sample event carrying `key`. */
export function withKey(name: string, key: string): HttpEvent {
  const event = loadEvent(name);
  event.headers.authorization = `Bearer ${key}`;
  return event;
}

/** The body as the service reads it: decoded from base64 when the flag says so. */
export function decodedBody(body: BodyCase): string {
  const raw = body.body ?? "";
  return body.isBase64Encoded ? Buffer.from(raw, "base64").toString("utf8") : raw;
}

/** The request body as sent and as decoded from base64, for `echoable`. */
export function sentText(event: HttpEvent): string {
  const raw = event.body ?? "";
  return event.isBase64Encoded ? `${raw}\n${Buffer.from(raw, "base64").toString("utf8")}` : raw;
}

/** The values of a generated request that must not come back: Authorization, extra headers, more. */
export function presentedBy(
  input: Common,
  ...more: (string | undefined)[]
): (string | undefined)[] {
  return [input.auth.value, ...Object.values(input.extra), ...more];
}

/** Runs per property, times HOSTILE_RUNS_FACTOR (10 makes a soak run). */
export function scaledRuns<Name extends string>(
  counts: Readonly<Record<Name, number>>,
): Readonly<Record<Name, number>> {
  const factor = Number(process.env.HOSTILE_RUNS_FACTOR ?? "1");
  return Object.fromEntries(
    Object.entries<number>(counts).map(([name, count]) => [name, Math.round(count * factor)]),
  ) as Record<Name, number>;
}

export interface ServedOptions {
  readonly key: string;
  readonly keySecrets: readonly string[];
  /** The request's values whose key-like runs must not come back. */
  readonly presented: readonly (string | undefined)[];
  /** A repeated Idempotency-Key may claim the key (a conditional write) before the refusal. */
  readonly idempotencyKey?: boolean;
}

/** What the request was, taken before the invocation (a handler may change its event). */
export interface SentRequest {
  readonly method: string;
  readonly path: string;
  readonly authorization: string | undefined;
  /** The body as sent and as decoded from base64. */
  readonly text: string;
}

/**
 * The path each event's request was sent with, where a case built the event from one: the event
 * holds the path as API Gateway hands it over (decoded once), and reading that as a sent path
 * would decode it again and take a `?` decoded from `%3F` for the query's start.
 */
const sentPaths = new WeakMap<HttpEvent, string>();

/** Records the path `event`'s request was sent with (see `sentPaths`). */
export function sentWithPath(event: HttpEvent, path: string): HttpEvent {
  sentPaths.set(event, path);
  return event;
}

export function sentRequest(event: HttpEvent): SentRequest {
  return {
    method: event.requestContext.http.method,
    path: sentPaths.get(event) ?? event.rawPath,
    authorization: header(event, "authorization"),
    text: sentText(event),
  };
}

export function expectServedSafely(
  sent: SentRequest,
  invocation: SecurityInvocation,
  options: ServedOptions,
): void {
  const { response } = invocation;
  const text = bodyText(response);
  const secrets = [...options.keySecrets, ...echoable(options.presented, sent.text)];
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
    method: sent.method,
    path: sent.path,
    status: response.statusCode,
    headers: response.headers,
    body: text,
  });

  expect(invocation.logLines).toHaveLength(1);
  const line = invocation.logLines[0] ?? "";
  expectNoSecretIn(line, secrets);
  expect(JSON.parse(line)).toMatchObject({ status: response.statusCode });

  const writes = invocation.calls.filter(
    (call) => writeOperations.has(call.operation) && !isRateLimitLease(call),
  );
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
    options.key,
    ...keyLikeRuns(sent.authorization),
  ]);
  expectPrototypeIntact();
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

export interface HostileHandlers {
  readonly harness: SecurityHarness;
  readonly key: string;
  /** The key, its hash as stored, and its plain SHA-256. */
  readonly keySecrets: readonly string[];
  readonly create: () => ServiceHandler;
  readonly list: () => ServiceHandler;
  readonly fallback: () => ServiceHandler;
  /** Every category a 201 answered, by id, in whatever tests of the file ran. */
  readonly answered201: Map<number, Category>;
  /** Invocations so far. */
  casesRun(): number;
  /** The generated headers on a sample event, labelled with this invocation's number. */
  withHeaders(event: HttpEvent, input: Common): HttpEvent;
  /** A sample event carrying the valid key. */
  withValidKey(name: string): HttpEvent;
  /** Invokes and checks the invariants; `presented` are values whose key-like runs must not come back. */
  serve(
    handler: ServiceHandler,
    event: HttpEvent,
    presented: readonly (string | undefined)[],
    options?: { readonly idempotencyKey?: boolean },
  ): Promise<SecurityInvocation>;
  /** Invokes without the checks (a failing store answers 500), counted all the same. */
  invokeUnchecked(handler: ServiceHandler, event: HttpEvent): Promise<SecurityInvocation>;
}

export function useHostileHandlers(): HostileHandlers {
  const harness = useSecurityHarness();
  const key = harness.validKey;
  const keySecrets = [key, hashApiKey(key), sha256(key)];
  const answered201 = new Map<number, Category>();
  let casesRun = 0;
  let handlers: Record<"create" | "list" | "fallback", ServiceHandler> | undefined;
  const handler = (name: "create" | "list" | "fallback") => (): ServiceHandler => {
    if (!handlers) throw new Error("the handlers are not built yet (beforeAll)");
    return handlers[name];
  };

  const serve: HostileHandlers["serve"] = async (fn, event, presented, options = {}) => {
    casesRun += 1;
    const sent = sentRequest(event);
    const invocation = await harness.invoke(fn, event);
    if (invocation.response.statusCode === 201) {
      // Recorded first, so that the final store check also covers a case that fails below.
      const category = JSON.parse(bodyText(invocation.response)) as Category;
      answered201.set(category.id, category);
    }
    expectServedSafely(sent, invocation, { key, keySecrets, presented, ...options });
    return invocation;
  };
  const withValidKey = (name: string): HttpEvent => withKey(name, key);

  beforeAll(async () => {
    handlers = {
      create: await harness.handler("createCategory"),
      list: await harness.handler("listCategories"),
      fallback: await harness.handler("routeFallback"),
    };
    // A few categories with long descriptions, so that lists are long enough to be compressed.
    for (let i = 0; i < 20; i++) {
      const event = withValidKey("create-ok.json");
      event.body = JSON.stringify({ name: `Seed ${i}`, description: "🐇 lagomorph ".repeat(60) });
      const { response } = await serve(handlers.create, event, []);
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

  return {
    harness,
    key,
    keySecrets,
    create: handler("create"),
    list: handler("list"),
    fallback: handler("fallback"),
    answered201,
    casesRun: () => casesRun,
    withHeaders: (event, input) => withHeaders(event, input, `hostile-${casesRun}`),
    withValidKey,
    serve,
    invokeUnchecked: async (fn, event) => {
      const invocation = await harness.invoke(fn, event);
      casesRun += 1;
      return invocation;
    },
  };
}
