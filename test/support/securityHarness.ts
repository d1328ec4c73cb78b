/**
 * Handler-level security tests: the real handler factories with their real wiring (default
 * settings: 30 s key cache) over an embedded DynamoDB, reached through the recording proxy so that
 * each invocation's store calls are known, with the request log captured.
 */
import { afterAll, beforeAll } from "vitest";
import { ApiKeyStore } from "../../lib/repositories/apiKeys.ts";
import { generateKey } from "../../lib/keyFormat.ts";
import type { DepsOptions } from "../../lib/deps.ts";
import type { DynamoDb } from "../../lib/dynamodb.ts";
import type { HttpEvent, HttpResponse } from "../../lib/http/message.ts";
import type { ServiceHandler } from "../../lib/middleware.ts";
import type { Category } from "../../lib/category.ts";
import { CategoryStore } from "../../lib/repositories/categories.ts";
import { lambdaContext } from "../../local/apiGateway.ts";
import type { EmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import { ensureTable, localClient, startEmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import { localFunctionEnv, unthrottled } from "../../local/functionEnv.ts";
import type { RecordedCall, RecordingProxy } from "./recordingDynamoProxy.ts";
import { isRateLimitLease, startRecordingProxy } from "./recordingDynamoProxy.ts";

export { isRateLimitLease };
import { divertEmfLines } from "./emf.ts";
import { buildHandler } from "./handlers.ts";

/** Operations that change the table. */
export const writeOperations = new Set([
  "PutItem",
  "UpdateItem",
  "DeleteItem",
  "BatchWriteItem",
  "TransactWriteItems",
]);

export interface SecurityInvocation {
  readonly response: HttpResponse;
  readonly logLines: readonly string[];
  /** The DynamoDB calls this invocation made. */
  readonly calls: readonly RecordedCall[];
}

export interface SecurityHarness {
  /** A freshly generated key (mixed case, 256 random bits), issued before the tests. */
  readonly validKey: string;
  /** Every log line written so far. */
  readonly logLines: readonly string[];
  /** Every DynamoDB call made so far (key issuing included). */
  readonly calls: () => readonly RecordedCall[];
  /** A function's real wiring on the embedded store through the proxy; extra env on request. */
  deps<Deps>(wire: (options: DepsOptions) => Deps, extraEnv?: Record<string, string>): Deps;
  /** The function `name` of the template, as its index.ts builds it, on this wiring. */
  handler(name: string, extraEnv?: Record<string, string>): Promise<ServiceHandler>;
  invoke(handler: ServiceHandler, event: HttpEvent): Promise<SecurityInvocation>;
  /** The categories in the store, read directly (not through the proxy). */
  stored(): Promise<Category[]>;
  /** Makes the proxy answer the matching calls with a non-retryable error. */
  failCalls(operation: string | undefined): void;
}

const tableName = "petstore-security";

export function useSecurityHarness(): SecurityHarness {
  const validKey = generateKey("local");
  const logLines: string[] = [];
  divertEmfLines();
  let dynamo: EmbeddedDynamo | undefined;
  let db: DynamoDb | undefined;
  let proxy: RecordingProxy | undefined;
  let invocations = 0;
  const started = (): { db: DynamoDb; proxy: RecordingProxy } => {
    if (!db || !proxy) throw new Error("the embedded store is not started (beforeAll)");
    return { db, proxy };
  };

  beforeAll(async () => {
    dynamo = await startEmbeddedDynamo();
    db = localClient(dynamo.endpoint);
    await ensureTable(db, tableName);
    await new ApiKeyStore(db, tableName).issue("security-tests", Date.now() + 10_000, {
      apiKey: validKey,
    });
    proxy = await startRecordingProxy(dynamo.endpoint);
  });
  afterAll(async () => {
    await proxy?.close();
    db?.close();
    await dynamo?.close();
  });

  const deps: SecurityHarness["deps"] = (wire, extraEnv = {}) =>
    wire({
      operation: "security",
      env: {
        ...localFunctionEnv(started().proxy.endpoint, tableName),
        ...unthrottled,
        ...extraEnv,
      },
      sink: (line) => {
        logLines.push(line);
      },
    });

  return {
    validKey,
    logLines,
    calls: () => started().proxy.calls,
    deps,
    handler: (name, extraEnv) => buildHandler(name, (build) => deps(build, extraEnv)),
    invoke: async (handler, event) => {
      const { proxy: recording } = started();
      invocations += 1;
      const label = `invocation-${invocations}`;
      recording.label = label;
      const before = logLines.length;
      const response = await handler(event, lambdaContext("security", 10));
      recording.label = "between invocations";
      return {
        response,
        logLines: logLines.slice(before),
        calls: recording.calls.filter((call) => call.label === label),
      };
    },
    stored: () => new CategoryStore(started().db, tableName).list(Date.now() + 10_000),
    failCalls: (operation) => {
      started().proxy.fault =
        operation === undefined ? undefined : (op) => (op === operation ? "error" : undefined);
    },
  };
}
