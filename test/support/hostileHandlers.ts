/**
 * The rig of the handler-level hostile-input properties (test/security/hostile*.test.ts): the
 * three handlers with real deps on the security harness's store, seeded with long categories (so
 * lists get compressed), and `serve`, which invokes and checks what every answer keeps whatever
 * the input: never a 5xx, the contract's Content-Type and Error shape, an answer openapi.yaml
 * documents, one log line, no key, hash or presented key-like run in the answer, the log or the
 * store's calls, no write unless 201, and Object.prototype untouched.
 *
 * After a file's tests the store holds exactly the categories its 201s answered (in whatever
 * tests ran, in whatever order), and the log has one line per invocation, none with the key.
 */
import { afterAll, beforeAll, expect } from "vitest";
import { createCategoryHandler } from "../../functions/createCategory/handler.ts";
import { listCategoriesHandler } from "../../functions/listCategories/handler.ts";
import { routeFallbackHandler } from "../../functions/routeFallback/handler.ts";
import type { HttpEvent } from "../../lib/http/message.ts";
import { header } from "../../lib/http/message.ts";
import type { ServiceHandler } from "../../lib/middleware.ts";
import { hashApiKey } from "../../lib/repositories/apiKeys.ts";
import type { Category } from "../../lib/repositories/categories.ts";
import { routeTableOf } from "../../lib/routes.ts";
import { routesOf } from "../../local/template.ts";
import { bodyText, loadEvent } from "../functions/harness.ts";
import type { Common } from "./hostile/events.ts";
import { echoable, sentText } from "./hostile/events.ts";
import { setHeader } from "./hostile/headers.ts";
import {
  expectNoSecretIn,
  expectPrototypeIntact,
  expectSafeAnswer,
  sha256,
} from "./hostile/invariants.ts";
import { keyLikeRuns } from "./hostile/keys.ts";
import { assertMatchesOpenApi } from "./openapi.ts";
import type { RecordedCall } from "./recordingDynamoProxy.ts";
import type { SecurityHarness, SecurityInvocation } from "./securityHarness.ts";
import { useSecurityHarness, writeOperations } from "./securityHarness.ts";

/** `counts` scaled by HOSTILE_RUNS_FACTOR (10 makes a soak run). */
export function scaledRuns<Name extends string>(
  counts: Readonly<Record<Name, number>>,
): Readonly<Record<Name, number>> {
  const factor = Number(process.env.HOSTILE_RUNS_FACTOR ?? "1");
  const scaled = Object.entries<number>(counts).map(([name, n]) => [name, Math.round(n * factor)]);
  return Object.fromEntries(scaled) as Record<Name, number>;
}

export interface Handlers {
  readonly create: ServiceHandler;
  readonly list: ServiceHandler;
  readonly fallback: ServiceHandler;
}

export interface HostileHandlers {
  readonly harness: SecurityHarness;
  readonly key: string;
  /** The key, its hash and its SHA-256: never in an answer or a log line. */
  readonly keySecrets: readonly string[];
  /** The handlers, made in beforeAll. */
  readonly handlers: () => Handlers;
  /** Every category a 201 answered, by id. */
  readonly answered201: ReadonlyMap<number, Category>;
  /** Invocations so far (each writes one log line). */
  readonly casesRun: () => number;
  /** A sample event carrying the valid key. */
  readonly withValidKey: (name: string) => HttpEvent;
  /** `event` with the generated Authorization, Accept-Encoding and extra headers. */
  readonly withHeaders: (event: HttpEvent, input: Common) => HttpEvent;
  /**
   * Invokes and checks the invariants every answer keeps; `presented` are the request's values
   * whose key-like runs must not come back.
   */
  readonly serve: (
    handler: ServiceHandler,
    event: HttpEvent,
    presented: readonly (string | undefined)[],
    options?: { readonly idempotencyKey?: boolean },
  ) => Promise<SecurityInvocation>;
  /** Invokes without the checks, counted all the same (for a test that checks a 500 itself). */
  readonly invokeUnchecked: (
    handler: ServiceHandler,
    event: HttpEvent,
  ) => Promise<SecurityInvocation>;
}

/** The rig for one test file; `label` names it in the closing count of invocations. */
export function useHostileHandlers(label: string): HostileHandlers {
  const harness = useSecurityHarness();
  const key = harness.validKey;
  const keySecrets = [key, hashApiKey(key), sha256(key)];
  const routes = routeTableOf([...routesOf().keys()].filter((route) => route !== "$default"));
  const answered201 = new Map<number, Category>();
  let handlers: Handlers | undefined;
  let casesRun = 0;

  const withValidKey = (name: string): HttpEvent => {
    const event = loadEvent(name);
    event.headers.authorization = `Bearer ${key}`;
    return event;
  };
  const withHeaders = (event: HttpEvent, input: Common): HttpEvent => {
    const headers = event.headers;
    Reflect.deleteProperty(headers, "content-length");
    setHeader(headers, input.authName, input.auth.value);
    setHeader(headers, "accept-encoding", input.acceptEncoding);
    Object.assign(headers, input.extra);
    event.requestContext.requestId = `hostile-${casesRun}`;
    return event;
  };
  const serve: HostileHandlers["serve"] = async (handler, event, presented, options = {}) => {
    casesRun += 1;
    // Read before the handler runs: it may change the event it is given.
    const { method } = event.requestContext.http;
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
    const { statusCode: status, headers } = response;
    expectSafeAnswer({ status, headers, text, isBase64Encoded: response.isBase64Encoded }, secrets);
    assertMatchesOpenApi({ method, path, status, headers, body: text });

    expect(invocation.logLines).toHaveLength(1);
    const line = invocation.logLines[0] ?? "";
    expectNoSecretIn(line, secrets);
    expect(JSON.parse(line)).toMatchObject({ status });

    const writes = invocation.calls.filter((call) => writeOperations.has(call.operation));
    if (status !== 201) {
      // Only a repeated Idempotency-Key may try a write before being refused (409 / 422): the
      // conditional claim of the key, which fails because the key is taken.
      const attempts = options.idempotencyKey ? writes.filter((c) => !isConditional(c)) : writes;
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
  };

  beforeAll(async () => {
    const deps = harness.deps();
    handlers = {
      create: createCategoryHandler(deps),
      list: listCategoriesHandler(deps),
      fallback: routeFallbackHandler(deps, routes),
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
    console.info(`hostile handler cases (${label}): ${casesRun} invocations in all`);
  });

  return {
    harness,
    key,
    keySecrets,
    handlers: () => {
      if (!handlers) throw new Error("the handlers are not made (beforeAll)");
      return handlers;
    },
    answered201,
    casesRun: () => casesRun,
    withValidKey,
    withHeaders,
    serve,
    invokeUnchecked: async (handler, event) => {
      casesRun += 1;
      return harness.invoke(handler, event);
    },
  };
}

function isConditional(call: RecordedCall): boolean {
  return (
    typeof call.input === "object" && call.input !== null && "ConditionExpression" in call.input
  );
}
