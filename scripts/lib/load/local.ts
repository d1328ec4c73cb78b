/**
 * What every scenario of `npm run load` shares: local servers (scripts/start.ts in child
 * processes, the bundles that ship, as `npm start` runs them after building) on one embedded
 * store of the run's own, reached directly or through the store meter (local/storeMeter.ts), and
 * the printed form of a report: its checks and the verdict.
 */
import type { DynamoDb } from "../../../lib/dynamodb.ts";
import type { StoreEngine } from "../../../local/embeddedDynamo.ts";
import { ensureTable, localClient, startEmbeddedDynamo } from "../../../local/embeddedDynamo.ts";
import { localTableName } from "../../../local/localKeys.ts";
import type { RunningServer } from "../../../local/serverProcess.ts";
import { spawnLocalServer } from "../../../local/serverProcess.ts";
import type { StoreMeter, StoreMeterOptions } from "../../../local/storeMeter.ts";
import { startStoreMeter } from "../../../local/storeMeter.ts";
import { buildFunctions } from "../../build.ts";

export interface LocalOptions {
  readonly engine: StoreEngine;
  readonly servers: number;
  /** Each server's environment (over serverProcess.ts's: containers queue, JSON log lines). */
  readonly env: Record<string, string>;
  /** Put the store meter between the servers and the store. */
  readonly meter?: StoreMeterOptions | undefined;
  /** Build dist/ first (default true; the tests have built it). */
  readonly build?: boolean | undefined;
}

export interface Local {
  readonly servers: readonly RunningServer[];
  /** The store itself, for what a scenario sets up or checks afterwards. */
  readonly db: DynamoDb;
  readonly meter: StoreMeter | undefined;
  stop(): Promise<void>;
}

export async function startLocal(options: LocalOptions): Promise<Local> {
  if (options.build ?? true) await buildFunctions();
  const dynamo = await startEmbeddedDynamo({ engine: options.engine });
  const meter = options.meter && (await startStoreMeter(dynamo.endpoint, options.meter));
  const db = localClient(dynamo.endpoint);
  const servers: RunningServer[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(servers.map((server) => server.stop()));
    db.close();
    await meter?.close();
    await dynamo.close();
  };
  try {
    await ensureTable(db, localTableName);
    const env = { ...options.env, DYNAMODB_ENDPOINT: meter?.endpoint ?? dynamo.endpoint };
    for (let i = 0; i < options.servers; i++) servers.push(await spawnLocalServer({ env }));
  } catch (error) {
    await stop();
    throw error;
  }
  return { servers, db, meter, stop };
}

/** `workers` loops of `work` side by side. */
export async function concurrently(workers: number, work: () => Promise<void>): Promise<void> {
  await Promise.all(Array.from({ length: workers }, work));
}

/** One line of a report: what was checked, whether it held (undefined: a figure), what was found. */
export interface Check {
  readonly name: string;
  readonly ok: boolean | undefined;
  readonly found: string;
}

export const check = (name: string, ok: boolean | undefined, found: string): Check => ({
  name,
  ok,
  found,
});

/** Whether every check held, and what did not (the JSON line's and the exit status's). */
export function verdictOf(checks: readonly Check[]): { ok: boolean; failed: string[] } {
  const failed = checks.filter((check) => check.ok === false).map((check) => check.name);
  return { ok: failed.length === 0, failed };
}

/**
 * A report as a person reads it: the scenario's own lines, one line per check with what it found,
 * and a last line with the verdict (the scenario's claim, or what failed).
 */
export function reportText(
  head: readonly string[],
  checks: readonly Check[],
  claim: string,
): string {
  const { failed } = verdictOf(checks);
  return [
    ...head,
    "checks",
    ...checks.map((check) => `  ${check.name.padEnd(16)} ${check.found}`),
    failed.length === 0 ? `PASS: ${claim}` : `FAIL: ${failed.join(", ")}`,
  ].join("\n");
}
