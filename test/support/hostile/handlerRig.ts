/**
 * The handler-level hostile rig: the three handlers on the security harness (real deps, embedded
 * store behind the recording proxy, log captured), and `serve`, which invokes one and checks the
 * invariants every answer keeps. Per test file: a store seeded with 20 long categories (so lists
 * are compressed), and in afterAll the store holds exactly what the 201s answered, with one log
 * line per invocation, none holding the key or its hash.
 */
import { afterAll, beforeAll, expect } from "vitest";
import type { HttpEvent } from "../../../lib/http/message.ts";
import type { ServiceHandler } from "../../../lib/middleware.ts";
import { hashApiKey } from "../../../lib/repositories/apiKeys.ts";
import type { Category } from "../../../lib/category.ts";
import { bodyText } from "../../functions/harness.ts";
import type { SecurityHarness, SecurityInvocation } from "../securityHarness.ts";
import { useSecurityHarness } from "../securityHarness.ts";
import type { Common } from "./handlerEvents.ts";
import { withHeaders, withKey } from "./handlerEvents.ts";
import { expectNoSecretIn, sha256 } from "./invariants.ts";
import { expectServedSafely, sentRequest } from "./servedSafely.ts";

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
