/**
 * The end-to-end fault rig: an embedded store (dynalite) started in the test process, the
 * fault-injecting proxy in front of it, and the local server (`scripts/start.ts`, a child
 * process running the built bundles) talking to the store only through the proxy:
 *
 *   client ──HTTP──▶ local server (functions) ──DynamoDB JSON──▶ fault proxy ──▶ dynalite
 *
 * Plus a direct client to the store (behind the proxy) and the request log parsed. The
 * consistency check of "what the client saw" against "what is listed" is in faultConsistency.ts,
 * the chaos injector that keeps adding random faults while a workload runs in faultChaos.ts.
 */
import type { DynamoDb } from "../../lib/dynamodb.ts";
import type { RequestLogLine } from "../../lib/log.ts";
import type { EmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import { localClient, startEmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import { functionsOf } from "../../local/template.ts";
import type { FaultProxy } from "./faultProxy.ts";
import { startFaultProxy } from "./faultProxy.ts";
import type { RunningServer } from "./localServer.ts";
import { startServer } from "./localServer.ts";
import { scaled } from "./speed.ts";

/** The categories functions' Lambda timeout (infra/template.yaml), which bounds a request's budget. */
export const lambdaTimeoutMs =
  1000 *
  Math.max(
    ...functionsOf()
      .filter((spec) => spec.routeKeys.some((routeKey) => routeKey.endsWith(" /v1/categories")))
      .map((spec) => spec.timeoutSeconds),
  );

/**
 * The per-attempt timeout the rig gives the functions, so "slow" faults cost little time: 250 ms
 * on a quiet machine, more on a busy one, measured as each stack starts. Where an answer the
 * proxy gives at once takes longer than that to be read, the request fails on a timeout instead
 * of the injected fault, and its log line names another cause. At most a fifth of the budget, so
 * a request still makes several attempts.
 */
function attemptTimeoutNow(): number {
  return Math.min(scaled(250), lambdaTimeoutMs / 5);
}

export interface FaultStack {
  /** The functions' per-attempt timeout (STORE_ATTEMPT_TIMEOUT_MS) on this stack. */
  readonly attemptTimeoutMs: number;
  /** A slow answer held well past the attempt timeout: the attempt is abandoned and retried. */
  readonly slowDelayMs: number;
  readonly dynamo: EmbeddedDynamo;
  readonly proxy: FaultProxy;
  readonly server: RunningServer;
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Straight to the store, around the proxy: for arranging and inspecting rows. */
  readonly db: DynamoDb;
  /** Total faults the proxy has injected so far, all kinds together. */
  injectedTotal(): number;
  stop(): Promise<void>;
}

export async function startFaultStack(env: Record<string, string> = {}): Promise<FaultStack> {
  const attemptTimeoutMs = attemptTimeoutNow();
  const dynamo = await startEmbeddedDynamo();
  const proxy = await startFaultProxy(dynamo.endpoint);
  let server: RunningServer;
  try {
    server = await startServer({
      env: {
        DYNAMODB_ENDPOINT: proxy.endpoint,
        STORE_ATTEMPT_TIMEOUT_MS: String(attemptTimeoutMs),
        // Every request looks its key up (GetItem), so key lookups meet the faults too.
        API_KEY_CACHE_SECONDS: "0",
        ...env,
      },
    });
  } catch (error) {
    await proxy.close();
    await dynamo.close();
    throw error;
  }
  const db = localClient(dynamo.endpoint);
  return {
    attemptTimeoutMs,
    slowDelayMs: 3 * attemptTimeoutMs,
    dynamo,
    proxy,
    server,
    baseUrl: server.baseUrl,
    apiKey: server.apiKey,
    db,
    injectedTotal: () => [...proxy.injected.values()].reduce((a, b) => a + b, 0),
    stop: async () => {
      await server.stop();
      db.close();
      await proxy.close();
      await dynamo.close();
    },
  };
}

/** The request log (the server's stdout) parsed; a line that is not a JSON object fails the test. */
export function logEntries(server: RunningServer): RequestLogLine[] {
  return server.logLines.map((line) => {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new Error(`a log line is not a JSON object: ${line}`);
    }
    return parsed as RequestLogLine;
  });
}

/** How many lines of the request log carry each status. */
export function loggedStatuses(server: RunningServer): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of logEntries(server)) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/** Waits until the server has written at least `count` log lines (stdout trails the answer). */
export async function waitForLogLines(
  server: RunningServer,
  count: number,
  timeoutMs = scaled(5_000),
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (server.logLines.length < count) {
    if (Date.now() > until) {
      throw new Error(`expected ${count} log lines, have ${server.logLines.length}`);
    }
    await sleep(10);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
