/**
 * The load's verdict: the final list checked against the run's 201s (every one exactly once, as
 * answered; on a server of its own nothing else), the figures, and their printed form.
 */
import type { Category } from "../httpClient.ts";
import type { Latency } from "../stats.ts";
import { latencyOf } from "../stats.ts";
import { verdict } from "./local.ts";
import type { Tally } from "./workers.ts";

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
  readonly logLines?: LogLines | undefined;
  /** What failed, one phrase each (none: the run passed). */
  readonly problems: readonly string[];
  readonly ok: boolean;
}

export interface LogLines {
  readonly count: number;
  readonly expected: number;
  readonly non2xx: number;
  /** The first few non-2xx lines' code and first line of detail. */
  readonly samples: readonly string[];
}

export interface Finished {
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

export function reportOf(run: Finished): LoadReport {
  const { tally, durationMs } = run;
  const final = checkFinalList(run);
  const requests = tally.createMs.length + tally.listMs.length;
  const perSecond = (count: number): number => round(count / (durationMs / 1000));
  const { errors, staleLists, malformedLists } = tally;
  const { logLines } = run;
  const problems = [
    Object.keys(errors).length > 0 && "errors",
    final.lost > 0 && "lost categories",
    final.duplicateIds > 0 && "duplicate ids",
    final.unexpected > 0 && "unexpected categories",
    staleLists > 0 && "stale lists",
    malformedLists > 0 && "malformed lists",
    tally.created.size !== run.creates && "creates not answered 201",
    logLines && (logLines.count !== logLines.expected || logLines.non2xx > 0) && "log lines",
  ].filter((problem): problem is string => typeof problem === "string");
  return {
    creates: run.creates,
    concurrency: run.concurrency,
    lists: tally.listMs.length,
    requests,
    durationMs: Math.round(durationMs),
    throughput: { total: perSecond(requests), creates: perSecond(tally.createMs.length) },
    createLatencyMs: latencyOf(tally.createMs),
    listLatencyMs: latencyOf(tally.listMs),
    errors,
    ...final,
    staleLists,
    malformedLists,
    finalListCount: run.finalList.length - run.existing,
    logLines,
    problems,
    ok: problems.length === 0,
  };
}

/** Every 201 exactly once, as answered, and (on a server of its own) nothing else. */
function checkFinalList(
  run: Finished,
): Pick<LoadReport, "lost" | "duplicateIds" | "unexpected" | "unexpectedAfterError"> {
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

/**
 * The run as a person reads it: what was sent, the latencies, one line per check with what it
 * found, and a last line with the verdict. (It ended in the report as one JSON line, 600
 * characters that said nothing at a glance.)
 */
export function formatReport(report: LoadReport): string {
  const row = (label: string, l: Latency): string =>
    `  ${label.padEnd(8)} ${String(l.count).padStart(6)}  ${[l.p50, l.p90, l.p99, l.max]
      .map((v) => v.toFixed(1).padStart(8))
      .join("")}`;
  const errors = Object.entries(report.errors);
  const created = report.createLatencyMs.count;
  const check = (label: string, found: string): string => `  ${label.padEnd(16)} ${found}`;
  const log = report.logLines;
  return [
    `${String(report.creates)} creates at concurrency ${String(report.concurrency)}, ` +
      `${String(report.lists)} lists alongside`,
    `${String(report.requests)} requests in ${(report.durationMs / 1000).toFixed(1)} s: ` +
      `${String(report.throughput.total)} req/s, creates ${String(report.throughput.creates)}/s`,
    `latency ms   count       p50     p90     p99     max`,
    row("create", report.createLatencyMs),
    row("list", report.listLatencyMs),
    "checks",
    check(
      "errors",
      errors.length === 0
        ? "none"
        : errors.map(([status, n]) => `${String(n)} × ${status}`).join(", "),
    ),
    check("lost", `${String(report.lost)} of ${String(created)} creates`),
    check("duplicate ids", String(report.duplicateIds)),
    check(
      "unexpected",
      `${String(report.unexpected)} listed without a 201` +
        ` (${String(report.unexpectedAfterError)} after an error answer)`,
    ),
    check("stale lists", `${String(report.staleLists)} of ${String(report.lists)}`),
    check("malformed lists", `${String(report.malformedLists)} (a duplicate or out of id order)`),
    check("final list", `${String(report.finalListCount)} categories`),
    ...(log
      ? [
          check(
            "log lines",
            `${String(log.count)} for ${String(log.expected)} requests, ${String(log.non2xx)} not 2xx`,
          ),
          ...log.samples.map((sample) => `    ${sample}`),
        ]
      : []),
    verdict(report.problems, "nothing lost, duplicated or listed out of order, no error"),
  ].join("\n");
}
