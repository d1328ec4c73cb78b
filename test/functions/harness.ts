/**
 * Handler tests run the handler factories with each function's own wiring (functions/<op>/deps.ts,
 * lib/deps.ts) against an embedded
 * DynamoDB, on the sample events in events/, with the log captured through the `sink` option.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { ApiKeyStore, hashApiKey } from "../../lib/repositories/apiKeys.ts";
import type { DepsOptions } from "../../lib/deps.ts";
import type { DynamoDb } from "../../lib/dynamodb.ts";
import type { HttpEvent, HttpResponse } from "../../lib/http/message.ts";
import { lambdaBodyText } from "../../scripts/lib/httpClient.ts";
import type { ServiceHandler } from "../../lib/middleware.ts";
import type { Category } from "../../lib/category.ts";
import { CategoryStore } from "../../lib/repositories/categories.ts";
import { lambdaContext } from "../../local/apiGateway.ts";
import type { EmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import { ensureTable, localClient, startEmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import {
  localFunctionEnv,
  sampleApiKey,
  sampleKeyLabel,
  unthrottled,
} from "../../local/functionEnv.ts";
import { projectRoot } from "../../local/template.ts";
import { buildHandler } from "../support/handlers.ts";
import { divertEmfLines } from "../support/emf.ts";

export const eventsDir = resolve(projectRoot, "events");
const tablePrefix = "petstore-local";

/** A fresh deep copy of events/<name>, as the handler may change the event it is given. */
export function loadEvent(name: string): HttpEvent {
  return JSON.parse(readFileSync(resolve(eventsDir, name), "utf8")) as HttpEvent;
}

export interface Invocation {
  readonly response: HttpResponse;
  /** The log lines this one invocation wrote. */
  readonly logLines: readonly string[];
  readonly awsRequestId: string;
}

export interface Harness {
  /** Every log line the current test's handlers (built from `deps`) wrote so far. */
  readonly logLines: string[];
  /** A function's real wiring on the embedded store; extra env (e.g. PETS_SUNSET_AT) on request. */
  deps<Deps>(
    wire: (options: DepsOptions) => Deps,
    extraEnv?: Record<string, string>,
    options?: Partial<Omit<DepsOptions, "env" | "sink">>,
  ): Deps;
  /**
   * The function `name` of infra/template.yaml as its index.ts builds it (functions/<name>/
   * handler.ts's `build`), wired to the current test's table and log.
   */
  handler(
    name: string,
    extraEnv?: Record<string, string>,
    options?: Partial<Omit<DepsOptions, "env" | "sink">>,
  ): Promise<ServiceHandler>;
  invoke(handler: ServiceHandler, event: HttpEvent, functionName?: string): Promise<Invocation>;
  /** The categories in the store, read directly. */
  stored(): Promise<Category[]>;
  /** The current test's table and a client for it, to issue keys or read raw items. */
  table(): { readonly db: DynamoDb; readonly tableName: string };
  /** Stores categories directly (not through a handler), e.g. to make a large list. */
  seed(count: number, description?: string): Promise<void>;
}

/**
 * Starts dynalite once for the file; each test gets its own empty table (the template's) with the
 * sample key issued, and its own log, so that every test passes alone and in any order.
 */
export function useHarness(): Harness {
  let dynamo: EmbeddedDynamo | undefined;
  let db: DynamoDb | undefined;
  let tables = 0;
  let tableName = tablePrefix;
  const logLines: string[] = [];
  divertEmfLines();
  const started = (): { endpoint: string; db: DynamoDb } => {
    if (!dynamo || !db) throw new Error("the embedded store is not started (beforeAll)");
    return { endpoint: dynamo.endpoint, db };
  };
  let seeded = 0;

  beforeAll(async () => {
    dynamo = await startEmbeddedDynamo();
    db = localClient(dynamo.endpoint);
  });
  beforeEach(async () => {
    const { db: client } = started();
    tables += 1;
    tableName = `${tablePrefix}-${tables}`;
    logLines.length = 0;
    await ensureTable(client, tableName);
    await new ApiKeyStore(client, tableName).issue(sampleKeyLabel, Date.now() + 10_000, {
      apiKey: sampleApiKey,
    });
  });
  afterAll(async () => {
    db?.close();
    await dynamo?.close();
  });

  const deps: Harness["deps"] = (wire, extraEnv = {}, options = {}) =>
    wire({
      operation: "test",
      ...options,
      env: { ...localFunctionEnv(started().endpoint, tableName), ...unthrottled, ...extraEnv },
      sink: (line) => {
        logLines.push(line);
      },
    });

  return {
    logLines,
    deps,
    handler: (name, extraEnv, options) =>
      buildHandler(name, (build) => deps(build, extraEnv, options)),
    invoke: async (handler, event, functionName = "test") => {
      const before = logLines.length;
      const context = lambdaContext(functionName, 10);
      const response = await handler(event, context);
      return { response, logLines: logLines.slice(before), awsRequestId: context.awsRequestId };
    },
    stored: () => new CategoryStore(started().db, tableName).list(Date.now() + 10_000),
    table: () => ({ db: started().db, tableName }),
    seed: async (count, description = "seeded directly into the store") => {
      const store = new CategoryStore(started().db, tableName);
      for (let i = 0; i < count; i++) {
        seeded += 1;
        await store.create(
          { name: `Seeded ${seeded}`, description },
          `seed-${seeded}`,
          Date.now() + 10_000,
        );
      }
    },
  };
}

/** The contract's headers on every response; the list's 200 is cacheable but always revalidated. */
export function expectContractHeaders(
  response: HttpResponse,
  cacheControl: "no-store" | "private, no-cache" = "no-store",
): void {
  expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
  expect(response.headers["cache-control"]).toBe(cacheControl);
  expect(response.headers["x-content-type-options"]).toBe("nosniff");
}

/**
 * The one JSON log line of an invocation: its request (API Gateway's id, which the answer's
 * Request-Id repeats, and Lambda's), route and status, and no key.
 */
export function expectOneLogLine(
  invocation: Invocation,
  event: HttpEvent,
): Record<string, unknown> {
  expect(invocation.logLines).toHaveLength(1);
  const text = invocation.logLines[0] ?? "";
  expectNoSecrets(text);
  const line = JSON.parse(text) as Record<string, unknown>;
  expect(invocation.response.headers["request-id"]).toBe(event.requestContext.requestId);
  expect(line).toMatchObject({
    requestId: event.requestContext.requestId,
    lambdaRequestId: invocation.awsRequestId,
    route: event.routeKey,
    method: event.requestContext.http.method,
    status: invocation.response.statusCode,
  });
  expect(typeof line.latencyMs).toBe("number");
  expect(line.latencyMs as number).toBeGreaterThanOrEqual(0);
  return line;
}

/** Neither the sample key nor its hash may ever reach a log line. */
export function expectNoSecrets(text: string): void {
  expect(text).not.toContain(sampleApiKey);
  expect(text).not.toContain(hashApiKey(sampleApiKey));
}

/** The body as text, undoing base64 and Content-Encoding. */
export function bodyText(response: HttpResponse): string {
  return lambdaBodyText(response);
}
