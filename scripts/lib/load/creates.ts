/**
 * The creates scenario of `npm run load`: against a fresh local server of its own (./local.ts, its
 * request log read back) or a running service, create workers share one counter of names to send
 * while list workers loop until every create is answered, each list checked against the 201s that
 * had arrived before it was asked for; then the final list is checked against the run's 201s
 * (every one exactly once, as answered; on a server of its own nothing else).
 */
import { performance } from "node:perf_hooks";
import type { StoreEngine } from "../../../local/embeddedDynamo.ts";
import { unthrottled } from "../../../local/functionEnv.ts";
import type { RunningServer } from "../../../local/serverProcess.ts";
import type { Answer, Category } from "../httpClient.ts";
import { agentFor, createCategory, getCategories } from "../httpClient.ts";
import type { Latency } from "../stats.ts";
import { latencyOf } from "../stats.ts";
import type { Local } from "./local.ts";
import { check, concurrently, reportText, startLocal, verdictOf } from "./local.ts";

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

interface Workload {
  readonly creates: number;
  readonly listPauseMs: number;
  /** Prefix of every name this run creates. */
  readonly runId: string;
  readonly create: (name: string) => Promise<Answer>;
  readonly list: () => Promise<Answer>;
  readonly log: (line: string) => void;
  readonly tally: Tally;
}

/** What the workers record, shared by all of them (one event loop: no two write at once). */
type Tally = ReturnType<typeof newTally>;

const newTally = () => ({
  /** Non-2xx answers and transport failures, by status ("network" for the latter). */
  errors: {} as Record<string, number>,
  createMs: [] as number[],
  listMs: [] as number[],
  /** The 201s of this run, by name, in the order they arrived. */
  created: new Map<string, Category>(),
  /** Names whose create was answered anything but 201. */
  failedNames: new Set<string>(),
  /** How many 201s named each id. */
  createdIds: new Map<number, number>(),
  staleLists: 0,
  malformedLists: 0,
  /** The index of the next create to send. */
  next: 0,
  /** Creates answered (or failed) so far. */
  finished: 0,
});

function fail(tally: Tally, what: string): void {
  tally.errors[what] = (tally.errors[what] ?? 0) + 1;
}

function parseList(body: string): Category[] {
  const parsed: unknown = JSON.parse(body);
  if (!Array.isArray(parsed)) throw new Error("the list answer is not a JSON array");
  return parsed as Category[];
}

async function createWorker(work: Workload): Promise<void> {
  const { tally } = work;
  while (tally.next < work.creates) {
    const name = `${work.runId} #${tally.next++}`;
    const started = performance.now();
    try {
      const reply = await work.create(name);
      tally.createMs.push(performance.now() - started);
      if (reply.status !== 201) {
        fail(tally, String(reply.status));
        tally.failedNames.add(name);
        continue;
      }
      const category = JSON.parse(reply.text) as Category;
      if (category.name !== name || !Number.isSafeInteger(category.id)) fail(tally, "bad 201 body");
      tally.created.set(name, category);
      tally.createdIds.set(category.id, (tally.createdIds.get(category.id) ?? 0) + 1);
    } catch {
      fail(tally, "network");
      tally.failedNames.add(name);
    } finally {
      tally.finished += 1;
      if (tally.finished % 1000 === 0) work.log(`  ${tally.finished} creates answered`);
    }
  }
}

async function listWorker(work: Workload): Promise<void> {
  const { tally } = work;
  while (tally.finished < work.creates) {
    const seenBefore = [...tally.created.values()];
    const started = performance.now();
    try {
      const reply = await work.list();
      tally.listMs.push(performance.now() - started);
      if (reply.status !== 200) {
        // Counted, and asked again at once: the pause is for the creates' sake, not the server's.
        fail(tally, String(reply.status));
        continue;
      }
      checkList(tally, parseList(reply.text), seenBefore);
    } catch {
      fail(tally, "network");
    }
    if (work.listPauseMs > 0) {
      await new Promise((done) => setTimeout(done, work.listPauseMs));
    }
  }
}

/** A list during the run: distinct ids in ascending order, holding every earlier 201. */
function checkList(
  tally: Tally,
  listed: readonly Category[],
  seenBefore: readonly Category[],
): void {
  const ids = listed.map((c) => c.id);
  if (new Set(ids).size !== ids.length || ids.some((id, i) => i > 0 && id <= (ids[i - 1] ?? 0)))
    tally.malformedLists += 1;
  const listedIds = new Set(ids);
  if (seenBefore.some((c) => !listedIds.has(c.id))) tally.staleLists += 1;
}

export type LoadReport = ReturnType<typeof reportOf>;

interface LogLines {
  readonly count: number;
  readonly expected: number;
  readonly non2xx: number;
  /** The first few non-2xx lines' code and first line of detail. */
  readonly samples: readonly string[];
}

interface Finished {
  readonly creates: number;
  readonly concurrency: number;
  readonly durationMs: number;
  readonly tally: Tally;
  readonly finalList: readonly Category[];
  /** Categories listed before the run (a running service only; 0 on a server of its own). */
  readonly existing: number;
  /** Set on a running service: only names of this run count as unexpected there. */
  readonly ownPrefix: string | undefined;
  readonly logLines: LogLines | undefined;
}

function reportOf(run: Finished) {
  const { tally, durationMs, logLines } = run;
  const final = checkFinalList(run);
  const requests = tally.createMs.length + tally.listMs.length;
  const perSecond = (count: number): number => round(count / (durationMs / 1000));
  const { errors, staleLists, malformedLists } = tally;
  const lists = tally.listMs.length;
  const answered = tally.createMs.length;
  const errorList = Object.entries(errors).map(([status, n]) => `${String(n)} × ${status}`);
  const created = tally.created.size;
  const log = logLines;
  const checks = [
    check("errors", errorList.length === 0, errorList.join(", ") || "none"),
    check("201s", created === run.creates, `${created} of ${run.creates} creates`),
    check("lost", final.lost === 0, `${final.lost} of ${answered} creates`),
    check("duplicate ids", final.duplicateIds === 0, String(final.duplicateIds)),
    check(
      "unexpected",
      final.unexpected === 0,
      `${final.unexpected} listed without a 201 (${final.unexpectedAfterError} after an error answer)`,
    ),
    check("stale lists", staleLists === 0, `${staleLists} of ${lists}`),
    check(
      "malformed lists",
      malformedLists === 0,
      `${malformedLists} (a duplicate or out of id order)`,
    ),
    check("final list", undefined, `${run.finalList.length - run.existing} categories`),
    ...(log
      ? [
          check(
            "log lines",
            log.count === log.expected && log.non2xx === 0,
            [
              `${log.count} for ${log.expected} requests, ${log.non2xx} not 2xx`,
              ...log.samples.map((sample) => `    ${sample}`),
            ].join("\n"),
          ),
        ]
      : []),
  ];
  return {
    ...verdictOf(checks),
    creates: run.creates,
    concurrency: run.concurrency,
    lists,
    requests,
    durationMs: Math.round(durationMs),
    throughput: { total: perSecond(requests), creates: perSecond(answered) },
    createLatencyMs: latencyOf(tally.createMs),
    listLatencyMs: latencyOf(tally.listMs),
    errors,
    ...final,
    staleLists,
    malformedLists,
    finalListCount: run.finalList.length - run.existing,
    logLines,
    checks,
  };
}

/** Every 201 exactly once, as answered, and (on a server of its own) nothing else. */
function checkFinalList(run: Finished) {
  const { created, createdIds, failedNames } = run.tally;
  const listedById = new Map<number, Category[]>();
  for (const c of run.finalList) listedById.set(c.id, [...(listedById.get(c.id) ?? []), c]);
  const lost = [...created.values()].filter((c) => {
    const listed = listedById.get(c.id);
    return listed?.length !== 1 || listed[0]?.name !== c.name;
  }).length;
  const duplicateIds =
    [...createdIds.values()].filter((n) => n > 1).length +
    [...listedById.values()].filter((listed) => listed.length > 1).length;
  const createdById = new Map([...created.values()].map((c) => [c.id, c]));
  const prefix = run.ownPrefix;
  const candidates =
    prefix === undefined ? run.finalList : run.finalList.filter((c) => c.name.startsWith(prefix));
  const unexpectedList = candidates.filter((c) => createdById.get(c.id)?.name !== c.name);
  return {
    lost,
    duplicateIds,
    unexpected: unexpectedList.length,
    unexpectedAfterError: unexpectedList.filter((c) => failedNames.has(c.name)).length,
  };
}

function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** The run as a person reads it: what was sent, the latencies, the checks, the verdict last. */
export function formatReport(report: LoadReport): string {
  const row = (label: string, l: Latency): string =>
    `  ${label.padEnd(8)} ${String(l.count).padStart(6)}  ${[l.p50, l.p90, l.p99, l.max]
      .map((v) => v.toFixed(1).padStart(8))
      .join("")}`;
  const head = [
    `${report.creates} creates at concurrency ${report.concurrency}, ${report.lists} lists alongside`,
    `${report.requests} requests in ${(report.durationMs / 1000).toFixed(1)} s: ` +
      `${report.throughput.total} req/s, creates ${report.throughput.creates}/s`,
    `latency ms   count       p50     p90     p99     max`,
    row("create", report.createLatencyMs),
    row("list", report.listLatencyMs),
  ];
  return reportText(
    head,
    report.checks,
    "nothing lost, duplicated or listed out of order, no error",
  );
}
