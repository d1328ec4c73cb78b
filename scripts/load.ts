/**
 * `npm run load`: a load test of the local server. Starts `scripts/start.ts --memory` (after
 * building the bundles, as `npm start` does) or uses a running deployment given by
 * `--base-url <…/v1>` (its key from PETSTORE_API_KEY or stdin), sends 5,000 creates at
 * concurrency 50 over keep-alive connections while two list loops run alongside (100 ms apart
 * each), then verifies:
 *
 *   - every answer was 2xx (zero errors);
 *   - every 201 carried a distinct id (zero duplicates);
 *   - the final list holds every created category exactly once, as answered (zero lost), and,
 *     on a server of its own, nothing else (count matches);
 *   - every list answered during the run held every category whose 201 had arrived before it
 *     was asked for, without duplicates, in id order;
 *   - on a server of its own: one request log line per request, all 2xx.
 *
 * Prints throughput and latency percentiles (p50/p90/p99/max) for creates and lists, and a
 * final JSON line with the figures; exits 1 on any error or loss, 2 on a usage error.
 * `--quick`: 500 creates, the same checks.
 */
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import type { RunningServer } from "../local/serverProcess.ts";
import { spawnLocalServer } from "../local/serverProcess.ts";
import { buildFunctions } from "./build.ts";
import type { Answer, Category } from "./lib/httpClient.ts";
import { agentFor, createCategory, getCategories } from "./lib/httpClient.ts";
import type { Latency } from "./lib/stats.ts";
import { latencyOf } from "./lib/stats.ts";

export type { Latency };

const usage =
  "usage: npm run load -- [--quick] [--creates 5000] [--concurrency 50] [--list-concurrency 2]" +
  " [--list-pause-ms 100] [--base-url <url ending in /v1>]";
const help = [
  "Without --base-url: builds, starts a fresh in-memory local server and loads it.",
  "With --base-url: loads that deployment; its API key comes from PETSTORE_API_KEY or the first",
  "line of stdin (never a flag, which npm would echo). --quick: 500 creates.",
  "Exit status: 0 all checks passed, 1 an error or a lost category, 2 a usage error.",
].join("\n");

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
  readonly log?: (line: string) => void;
  /** Build dist/ before starting the local server (default true; the tests have built it). */
  readonly build?: boolean;
}

export interface LoadReport {
  readonly creates: number;
  readonly concurrency: number;
  readonly lists: number;
  readonly requests: number;
  readonly durationMs: number;
  readonly throughput: { readonly total: number; readonly creates: number };
  readonly createLatencyMs: Latency;
  readonly listLatencyMs: Latency;
  /** Non-2xx answers and transport failures, by status ("network" for the latter). */
  readonly errors: Readonly<Record<string, number>>;
  readonly lost: number;
  readonly duplicateIds: number;
  /** Listed although no 201 of this run named it (a server of its own only). */
  readonly unexpected: number;
  /** Of those, how many were named by a create that was answered an error. */
  readonly unexpectedAfterError: number;
  /** Lists that missed a category whose 201 had arrived before they were asked for. */
  readonly staleLists: number;
  /** Lists with a duplicate id or out of id order. */
  readonly malformedLists: number;
  readonly finalListCount: number;
  /** One line per request and all 2xx (a server of its own only; undefined otherwise). */
  readonly logLines?:
    | {
        readonly count: number;
        readonly expected: number;
        readonly non2xx: number;
        /** The first few non-2xx lines' code and first line of detail. */
        readonly samples: readonly string[];
      }
    | undefined;
  readonly ok: boolean;
}

/** `scripts/start.ts --memory` in a child process, as `npm start` runs it after building. */
async function startLocalServer(build: boolean): Promise<RunningServer> {
  if (build) await buildFunctions();
  // An inherited DYNAMODB_ENDPOINT would point the server at some other store.
  return spawnLocalServer({ env: { DYNAMODB_ENDPOINT: "" } });
}

function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function parseList(body: string): Category[] {
  const parsed: unknown = JSON.parse(body);
  if (!Array.isArray(parsed)) throw new Error("the list answer is not a JSON array");
  return parsed as Category[];
}

export async function runLoad(options: LoadOptions): Promise<LoadReport> {
  const log = options.log ?? (() => undefined);
  const server = options.target ? undefined : await startLocalServer(options.build ?? true);
  const target = options.target ?? server;
  if (!target) throw new Error("no target");
  const agent = agentFor(target.baseUrl, options.concurrency + options.listConcurrency);
  const sent = { agent, timeoutMs: 60_000 };
  const list = (): Promise<Answer> => getCategories(target.baseUrl, target.apiKey, sent);
  try {
    const runId = `load-${new Date().toISOString()}-${Math.random().toString(36).slice(2, 8)}`;
    const errors: Record<string, number> = {};
    const fail = (what: string): void => {
      errors[what] = (errors[what] ?? 0) + 1;
    };
    const before = options.target ? await list() : undefined;
    const existing = before?.status === 200 ? parseList(before.text).length : 0;

    const createMs: number[] = [];
    const listMs: number[] = [];
    /** The 201s of this run, by name, in the order they arrived. */
    const created = new Map<string, Category>();
    /** Names whose create was answered anything but 201. */
    const failedNames = new Set<string>();
    const createdIds = new Map<number, number>();
    let staleLists = 0;
    let malformedLists = 0;
    let next = 0;
    let finished = 0;

    const createWorker = async (): Promise<void> => {
      while (next < options.creates) {
        const index = next++;
        const name = `${runId} #${index}`;
        const started = performance.now();
        try {
          const reply = await createCategory(target.baseUrl, target.apiKey, { name }, {}, sent);
          createMs.push(performance.now() - started);
          if (reply.status !== 201) {
            fail(String(reply.status));
            failedNames.add(name);
            continue;
          }
          const category = JSON.parse(reply.text) as Category;
          if (category.name !== name || !Number.isSafeInteger(category.id)) fail("bad 201 body");
          created.set(name, category);
          createdIds.set(category.id, (createdIds.get(category.id) ?? 0) + 1);
        } catch {
          fail("network");
          failedNames.add(name);
        } finally {
          finished += 1;
          if (finished % 1000 === 0) log(`  ${finished} creates answered`);
        }
      }
    };

    const listWorker = async (): Promise<void> => {
      while (finished < options.creates) {
        const seenBefore = [...created.values()];
        const started = performance.now();
        try {
          const reply = await list();
          listMs.push(performance.now() - started);
          if (reply.status !== 200) {
            fail(String(reply.status));
            continue;
          }
          const listed = parseList(reply.text);
          const ids = listed.map((c) => c.id);
          if (
            new Set(ids).size !== ids.length ||
            ids.some((id, i) => i > 0 && id <= (ids[i - 1] ?? 0))
          )
            malformedLists += 1;
          const listedIds = new Set(ids);
          if (seenBefore.some((c) => !listedIds.has(c.id))) staleLists += 1;
        } catch {
          fail("network");
        }
        if (options.listPauseMs > 0) {
          await new Promise((done) => setTimeout(done, options.listPauseMs));
        }
      }
    };

    log(
      `load: ${options.creates} creates at concurrency ${options.concurrency}, ` +
        `lists at concurrency ${options.listConcurrency} (pause ${options.listPauseMs} ms), ` +
        `against ${target.baseUrl}`,
    );
    const started = performance.now();
    await Promise.all([
      ...Array.from({ length: options.concurrency }, createWorker),
      ...Array.from({ length: options.listConcurrency }, listWorker),
    ]);
    const durationMs = performance.now() - started;

    // The final list: every 201 exactly once, as answered, and (on a server of its own) nothing else.
    const finalReply = await list();
    if (finalReply.status !== 200) fail(`final list ${finalReply.status}`);
    const finalList = finalReply.status === 200 ? parseList(finalReply.text) : [];
    const listedById = new Map<number, Category[]>();
    for (const c of finalList) listedById.set(c.id, [...(listedById.get(c.id) ?? []), c]);
    const lost = [...created.values()].filter((c) => {
      const listed = listedById.get(c.id);
      return listed?.length !== 1 || listed[0]?.name !== c.name;
    }).length;
    const duplicateIds =
      [...createdIds.values()].filter((n) => n > 1).length +
      [...listedById.values()].filter((listed) => listed.length > 1).length;
    const createdById = new Map([...created.values()].map((c) => [c.id, c]));
    const candidates = options.target
      ? finalList.filter((c) => c.name.startsWith(`${runId} #`))
      : finalList;
    const unexpectedList = candidates.filter((c) => createdById.get(c.id)?.name !== c.name);
    const unexpected = unexpectedList.length;
    const unexpectedAfterError = unexpectedList.filter((c) => failedNames.has(c.name)).length;

    let logLines: LoadReport["logLines"];
    if (server) {
      // The log trails the answers slightly: wait for the run's lines (+ the final list's).
      const expected = createMs.length + listMs.length + 1;
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
      logLines = { count: server.logLines.length, expected, non2xx: failures.length, samples };
    }

    const totalRequests = createMs.length + listMs.length;
    const report: LoadReport = {
      creates: options.creates,
      concurrency: options.concurrency,
      lists: listMs.length,
      requests: totalRequests,
      durationMs: Math.round(durationMs),
      throughput: {
        total: round(totalRequests / (durationMs / 1000)),
        creates: round(createMs.length / (durationMs / 1000)),
      },
      createLatencyMs: latencyOf(createMs),
      listLatencyMs: latencyOf(listMs),
      errors,
      lost,
      duplicateIds,
      unexpected,
      unexpectedAfterError,
      staleLists,
      malformedLists,
      finalListCount: finalList.length - existing,
      logLines,
      ok:
        Object.keys(errors).length === 0 &&
        created.size === options.creates &&
        lost === 0 &&
        duplicateIds === 0 &&
        unexpected === 0 &&
        staleLists === 0 &&
        malformedLists === 0 &&
        (logLines === undefined || (logLines.count === logLines.expected && logLines.non2xx === 0)),
    };
    return report;
  } finally {
    agent.destroy();
    await server?.stop();
  }
}

export function formatReport(report: LoadReport): string {
  const row = (label: string, l: Latency): string =>
    `  ${label.padEnd(8)} ${String(l.count).padStart(6)}  ${[l.p50, l.p90, l.p99, l.max]
      .map((v) => v.toFixed(1).padStart(8))
      .join("")}`;
  return [
    `requests: ${report.requests} in ${(report.durationMs / 1000).toFixed(1)} s: ` +
      `${report.throughput.total} req/s (creates ${report.throughput.creates}/s)`,
    `latency ms   count       p50     p90     p99     max`,
    row("create", report.createLatencyMs),
    row("list", report.listLatencyMs),
    `errors: ${JSON.stringify(report.errors)}  lost: ${report.lost}  duplicate ids: ${report.duplicateIds}` +
      `  unexpected: ${report.unexpected} (after an error: ${report.unexpectedAfterError})` +
      `  stale lists: ${report.staleLists}` +
      `  malformed lists: ${report.malformedLists}  listed: ${report.finalListCount}` +
      (report.logLines
        ? `  log lines: ${report.logLines.count} for ${report.logLines.expected} requests, non-2xx ${report.logLines.non2xx}`
        : ""),
    ...(report.logLines?.samples.map((sample) => `  log: ${sample}`) ?? []),
    report.ok ? "PASS" : "FAIL",
  ].join("\n");
}

/**
 * The remote target's key: PETSTORE_API_KEY, else the first line of stdin (prompted for on a
 * terminal). Never a flag: npm echoes its arguments, and they show in `ps`.
 */
async function apiKeyFromEnvOrStdin(baseUrl: string): Promise<string> {
  const fromEnv = process.env.PETSTORE_API_KEY?.trim();
  if (fromEnv) return fromEnv;
  if (process.stdin.isTTY) process.stderr.write(`API key for ${baseUrl}: `);
  const lines = createInterface({ input: process.stdin, terminal: false });
  for await (const line of lines) {
    lines.close();
    return line.trim();
  }
  return "";
}

async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        help: { type: "boolean", short: "h", default: false },
        quick: { type: "boolean", default: false },
        creates: { type: "string" },
        concurrency: { type: "string", default: "50" },
        "list-concurrency": { type: "string", default: "2" },
        "list-pause-ms": { type: "string", default: "100" },
        "base-url": { type: "string" },
      },
    }));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const hint = message.includes("--api-key")
      ? "the API key is read from PETSTORE_API_KEY or stdin, never from a flag"
      : message;
    process.stderr.write(`${hint}\n${usage}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${usage}\n${help}\n`);
    return 0;
  }
  const creates = Number(values.creates ?? (values.quick ? 500 : 5000));
  const concurrency = Number(values.concurrency);
  const listConcurrency = Number(values["list-concurrency"]);
  const listPauseMs = Number(values["list-pause-ms"]);
  const baseUrl = values["base-url"];
  if (
    ![creates, concurrency].every((n) => Number.isSafeInteger(n) && n >= 1) ||
    ![listConcurrency, listPauseMs].every((n) => Number.isSafeInteger(n) && n >= 0)
  ) {
    process.stderr.write(
      `counts must be whole numbers (creates and concurrency at least 1)\n${usage}\n`,
    );
    return 2;
  }
  const apiKey = baseUrl === undefined ? "" : await apiKeyFromEnvOrStdin(baseUrl);
  if (baseUrl !== undefined && apiKey === "") {
    process.stderr.write(`--base-url needs an API key: set PETSTORE_API_KEY or pipe it on stdin\n`);
    return 2;
  }
  let report: LoadReport;
  try {
    report = await runLoad({
      creates,
      concurrency,
      listConcurrency,
      listPauseMs,
      target: baseUrl === undefined ? undefined : { baseUrl, apiKey },
      log: (line) => process.stdout.write(`${line}\n`),
    });
  } catch (error) {
    const where = baseUrl ?? "the local server";
    const reason = error instanceof Error ? error.message : String(error);
    process.stderr.write(`load: ${where} could not be loaded (${reason}); is it running?\n`);
    return 1;
  }
  process.stdout.write(`${formatReport(report)}\n${JSON.stringify(report)}\n`);
  return report.ok ? 0 : 1;
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2));
}
