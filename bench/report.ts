/**
 * bench/results.json, what is decided from it (the import target, each function's MemorySize,
 * where compression starts to cost a large list its latency target) and the console report.
 */
import type { BenchFunction } from "./sandbox.ts";
import { benchFunctions, createFunction, listFunction, variants } from "./sandbox.ts";
import type { Units } from "./cost.ts";
import type { ListCostRow } from "./listCost.ts";
import type { Calibration, ColdRow, StoreUnits, WarmRow } from "./measure.ts";
import { headroom } from "./measure.ts";

export type Measured = {
  readonly version: 3;
  readonly mode: "full" | "quick" | "one size";
  readonly date: string;
  readonly machine: string;
  readonly durationSeconds: number;
  /** False when no cgroup was writable: every figure is then at full speed. */
  readonly cpuShareEnforced: boolean;
  readonly periodMs: number;
  readonly referenceLoopMs: number;
  readonly calibration: readonly Calibration[];
  readonly cold: readonly ColdRow[];
  readonly warm: readonly WarmRow[];
  readonly storeUnits: StoreUnits;
  readonly listCost: readonly ListCostRow[];
};
export type Results = Measured & {
  readonly targets: readonly { name: string; value: string; met: boolean }[];
  /** The cheapest size meeting each function's target, as infra/template.yaml should set it. */
  readonly recommendation: Readonly<Record<BenchFunction, number>>;
  readonly findings: readonly string[];
};

/** The latency targets that choose MemorySize: warm p99 of ours for these workloads. */
const sizingTargets: Record<BenchFunction, { workloads: string[]; p99Ms: number }> = {
  [createFunction]: { workloads: ["create"], p99Ms: 50 },
  [listFunction]: { workloads: ["list 1,000", "list 1,000 br"], p99Ms: 100 },
};
function targetOf(fn: BenchFunction): { workloads: string[]; p99Ms: number } {
  const target = sizingTargets[fn];
  if (!target) throw new Error(`no sizing target for ${fn}`);
  return target;
}
/** Ours' import time over the typical stack's, at the size where it is worst. */
const importTarget = 0.1;

const sizesOf = (m: Measured): number[] => [...new Set(m.warm.map((row) => row.memoryMb))];
const warmAt = (m: Measured, mb: number, variant: string, workload: string) =>
  m.warm.find((r) => r.memoryMb === mb && r.variant === variant && r.workload === workload);

/**
 * Per function: the size with the cheapest cost per million of its first target workload, among
 * the sizes where ours meets the p99 target and every workload of the function leaves 15 % of
 * the memory free. The largest size when none does (reported as a finding).
 */
function recommend(m: Measured, fn: BenchFunction): number | undefined {
  const { workloads, p99Ms } = targetOf(fn);
  const fits = (mb: number): boolean => {
    const at = m.warm.filter((r) => r.variant === "ours" && r.fn === fn && r.memoryMb === mb);
    const timed = at.filter((r) => workloads.includes(r.workload));
    return timed.length > 0 && timed.every((r) => r.p99Ms < p99Ms) && at.every((r) => !r.oomRisk);
  };
  const cost = (mb: number): number =>
    warmAt(m, mb, "ours", workloads[0] ?? "")?.costPerMillion.total ?? Infinity;
  return sizesOf(m)
    .filter(fits)
    .sort((a, b) => cost(a) - cost(b) || a - b)[0];
}

/**
 * Where compression starts to matter, per size: brotli's CPU grows linearly with the list, so the
 * p50 it adds at 10,000 categories gives the store size at which it adds 50 ms, half the list's
 * p99 target. Medians, since on a busy machine the p99 is mostly the machine.
 */
function compression(m: Measured, mb: number): string[] {
  const p50 = (workload: string) => warmAt(m, mb, "ours", workload)?.p50Ms ?? NaN;
  const added = p50("list 10,000 br") - p50("list 10,000");
  if (Number.isNaN(added)) return [];
  const from = (Math.round(50 / (added / 10_000) / 1000) * 1000).toLocaleString("en-US");
  const where = added > 0 ? `; 50 ms from about ${from} categories` : " (noise)";
  return [`${String(mb)} MB: br adds ${added.toFixed(0)} ms p50 to a list of 10,000${where}`];
}

export function decide(m: Measured): Results {
  const importMs = (fn: string, variant: string, mb: number): number =>
    m.cold.find((r) => r.fn === fn && r.variant === variant && r.memoryMb === mb)?.importMs ?? NaN;
  const targets = benchFunctions.map((fn) => {
    const ratios = sizesOf(m).map((mb) => importMs(fn, "ours", mb) / importMs(fn, "typical", mb));
    const worst = Math.max(...ratios);
    const value = `${worst.toFixed(3)}× (≤ ${String(importTarget)}×)`;
    return { name: `${fn}: import vs typical, worst size`, value, met: worst <= importTarget };
  });
  const chosen = benchFunctions.map((fn) => [fn, recommend(m, fn)] as const);
  const none = "no size meets its p99 target with headroom; the largest is chosen";
  const findings = chosen.filter(([, mb]) => mb === undefined).map(([fn]) => `${fn}: ${none}`);
  findings.push(...sizesOf(m).flatMap((mb) => compression(m, mb)));
  const largest = Math.max(...sizesOf(m));
  const recommendation = Object.fromEntries(chosen.map(([fn, mb]) => [fn, mb ?? largest]));
  return { ...m, targets, recommendation, findings };
}

const ms = (value: number): string => value.toFixed(value >= 100 ? 0 : value >= 10 ? 1 : 2);
const units = (u: Units): string => `${String(u.readUnits)}R+${String(u.writeUnits)}W`;
type Cells = Record<string, string>;

/** Per size and variant: cold list and create, peak RSS, then p50/p99 of each workload. */
function latencyRow(r: Results, mb: number, variant: string): Cells {
  const warm = r.warm.filter((w) => w.memoryMb === mb && w.variant === variant);
  const cells: Cells = { size: `${String(mb)} MB`, variant };
  for (const c of r.cold.filter((c) => c.memoryMb === mb && c.variant === variant))
    cells[`cold ${c.fn}`] = `${ms(c.importMs)}+${ms(c.firstMs)}`;
  const peak = Math.max(...warm.map((w) => w.peakRssMb)).toFixed(0);
  cells.rss = `${peak} MB${warm.some((w) => w.oomRisk) ? " OOM RISK" : ""}`;
  for (const w of warm) cells[w.workload] = `${ms(w.p50Ms)}/${ms(w.p99Ms)}`;
  return cells;
}

/** Per workload: ours' store units, then USD per million, ours / typical, at each size. */
function costRow(r: Results, workload: string, u: StoreUnits[string]): Cells {
  const cells: Cells = { workload, "units steady": units(u.steady), "units cold": units(u.cold) };
  const usd = (mb: number, v: string): string =>
    warmAt(r, mb, v, workload)?.costPerMillion.total.toFixed(2) ?? "-";
  for (const mb of sizesOf(r))
    cells[`${String(mb)} MB`] = `${usd(mb, "ours")} / ${usd(mb, "typical")}`;
  return cells;
}

/**
 * Whether the host took CPU from a size's processes beyond its quota, before or after its rounds:
 * past 1.5× its share's slowdown (quiet runs: 1.0-1.4×) the loop lost CPU to the host, and every
 * figure at that size with it; the ratios, measured in the same rounds, less so.
 */
export const noisy = (
  c: Pick<Calibration, "slowdown" | "slowdownAfter" | "slowdownAtBreak" | "share">,
): boolean => Math.max(c.slowdown, c.slowdownAfter ?? 0, c.slowdownAtBreak ?? 0) * c.share > 1.5;

/** What a person decides from; every figure is in results.json. */
export function printReport(r: Results): void {
  console.log(`\n${r.mode} run on ${r.machine}, ${r.date}`);
  const slowed = r.calibration.map(
    (c) =>
      `${String(c.memoryMb)} MB ${c.slowdown.toFixed(1)}×` +
      (c.slowdownAfter === undefined ? "" : ` then ${c.slowdownAfter.toFixed(1)}×`) +
      ` (${(1 / c.share).toFixed(1)}×)${noisy(c) ? " NOISY HOST" : ""}` +
      (c.brokeOnce === undefined ? "" : `, measured twice: ${c.brokeOnce}`),
  );
  console.log(
    r.cpuShareEnforced
      ? `CPU share: the calibration loop slowed (expected): ${slowed.join(", ")}`
      : "CPU share NOT enforced (no writable cgroup): every figure below is at FULL SPEED.",
  );
  console.log(
    `ms: cold import+first call; warm p50/p99; OOM RISK: RSS over ${String(headroom * 100)} %`,
  );
  console.table(sizesOf(r).flatMap((mb) => variants.map((v) => latencyRow(r, mb, v))));
  console.log(
    "USD per million requests, ours / typical (bench/cost.ts), at the steady-state units",
  );
  console.table(Object.entries(r.storeUnits).map(([w, u]) => costRow(r, w, u)));
  for (const t of r.targets) console.log(`${t.met ? "met   " : "MISSED"}  ${t.name}: ${t.value}`);
  for (const fn of benchFunctions) {
    const { p99Ms, workloads: timed } = targetOf(fn);
    const why = `p99 < ${String(p99Ms)} ms for ${timed.join(" and ")}, RSS ≤ ${String(headroom * 100)} %`;
    console.log(`MemorySize ${fn}: ${String(r.recommendation[fn])} MB, the cheapest with ${why}`);
  }
  for (const finding of r.findings) console.log(`- ${finding}`);
  console.log("Read units per list, today's design against the list cache (bench/listCost.ts):");
  console.table(r.listCost);
}
