/**
 * The creates scenario of `npm run load`: against a fresh local server of its own (./local.ts, its
 * request log read back) or a running service; create and list workers side by side (workers.ts),
 * then the final list, then the report (report.ts).
 */
import { performance } from "node:perf_hooks";
import type { RunningServer } from "../../../local/serverProcess.ts";
import type { StoreEngine } from "../../../local/embeddedDynamo.ts";
import { unthrottled } from "../../../local/functionEnv.ts";
import type { Answer } from "../httpClient.ts";
import { agentFor, createCategory, getCategories } from "../httpClient.ts";
import type { Local } from "./local.ts";
import { concurrently, startLocal } from "./local.ts";
import type { LoadReport, LogLines } from "./report.ts";
import { reportOf } from "./report.ts";
import type { Workload } from "./workers.ts";
import { createWorker, fail, listWorker, newTally, parseList } from "./workers.ts";

export interface LoadOptions {
  readonly creates: number;
  readonly concurrency: number;
  readonly listConcurrency: number;
  /**
   * Pause of each list loop between two lists. The local server is one process standing in for
   * many Lambdas: back-to-back lists of thousands of categories (~40 ms of its CPU each at 5,000)
   * would starve the creates of CPU, which no deployed function shares.
   */
  readonly listPauseMs: number;
  /** A running service; unset: a fresh in-memory local server is started and stopped. */
  readonly target?: { readonly baseUrl: string; readonly apiKey: string } | undefined;
  /** The local server's store (default dynalite). */
  readonly engine?: StoreEngine | undefined;
  readonly log?: (line: string) => void;
  /** Build dist/ before starting the local server (default true; the tests have built it). */
  readonly build?: boolean;
}

export async function runLoad(options: LoadOptions): Promise<LoadReport> {
  const log = options.log ?? (() => undefined);
  // The run measures the service, not its rate limit: its key gets a limit it never reaches.
  const local: Local | undefined = options.target
    ? undefined
    : await startLocal({
        engine: options.engine ?? "dynalite",
        servers: 1,
        env: unthrottled,
        build: options.build,
      });
  const server = local?.servers[0];
  const target = options.target ?? server;
  if (!target) throw new Error("no target");
  const agent = agentFor(target.baseUrl, options.concurrency + options.listConcurrency);
  const sent = { agent, timeoutMs: 60_000 };
  const { baseUrl, apiKey } = target;
  try {
    const runId = `load-${new Date().toISOString()}-${Math.random().toString(36).slice(2, 8)}`;
    const work: Workload = {
      creates: options.creates,
      listPauseMs: options.listPauseMs,
      runId,
      create: (name) => createCategory(baseUrl, apiKey, { name }, {}, sent),
      list: (): Promise<Answer> => getCategories(baseUrl, apiKey, sent),
      log,
      tally: newTally(),
    };
    const before = options.target ? await work.list() : undefined;
    const existing = before?.status === 200 ? parseList(before.text).length : 0;

    log(
      `load: ${options.creates} creates at concurrency ${options.concurrency}, ` +
        `lists at concurrency ${options.listConcurrency} (pause ${options.listPauseMs} ms), ` +
        `against ${baseUrl}`,
    );
    const started = performance.now();
    await Promise.all([
      concurrently(options.concurrency, () => createWorker(work)),
      concurrently(options.listConcurrency, () => listWorker(work)),
    ]);
    const durationMs = performance.now() - started;

    const finalReply = await work.list();
    if (finalReply.status !== 200) fail(work.tally, `final list ${finalReply.status}`);
    const { createMs, listMs } = work.tally;
    return reportOf({
      creates: options.creates,
      concurrency: options.concurrency,
      durationMs,
      tally: work.tally,
      finalList: finalReply.status === 200 ? parseList(finalReply.text) : [],
      existing,
      ownPrefix: options.target ? `${runId} #` : undefined,
      // Every request of the run, and the final list.
      logLines: server && (await logLinesOf(server, createMs.length + listMs.length + 1)),
    });
  } finally {
    agent.destroy();
    await local?.stop();
  }
}

/** The server's request log: one line per request, all 2xx (else the first few that are not). */
async function logLinesOf(server: RunningServer, expected: number): Promise<LogLines> {
  // The log trails the answers slightly: wait for the run's lines.
  const until = Date.now() + 5_000;
  while (server.logLines.length < expected && Date.now() < until) {
    await new Promise((done) => setTimeout(done, 20));
  }
  await new Promise((done) => setTimeout(done, 100));
  const failures = server.logLines
    .map((line) => JSON.parse(line) as { status?: unknown; code?: unknown; detail?: unknown })
    .filter(({ status }) => typeof status !== "number" || status < 200 || status > 299);
  const samples = failures
    .slice(0, 3)
    .map(
      ({ status, code, detail }) =>
        `${String(status)} ${String(code)}: ${String(detail).split("\n")[0] ?? ""} / ${
          String(detail).split("caused by: ")[1]?.split("\n")[0] ?? ""
        }`,
    );
  return { count: server.logLines.length, expected, non2xx: failures.length, samples };
}
