/**
 * bench/results.json and what is decided from it: the targets, each function's MemorySize, and
 * where compression starts to cost a large list its latency target.
 */
import type { BenchFunction, Variant } from "./bundle.ts";
import type { Cost } from "./cost.ts";
import type { ListCostRow } from "./listCost.ts";

export interface Calibration {
  readonly memoryMb: number;
  readonly share: number;
  readonly wallMs: number;
  /** Wall time over the full-core reference: the slowdown the quota caused. */
  readonly slowdown: number;
  /** Wall time over the loop's own CPU time: at least 1 ÷ share whenever the quota is enforced. */
  readonly wallPerCpu: number;
  readonly ok: boolean;
}

export interface ColdRow {
  readonly memoryMb: number;
  readonly variant: Variant;
  readonly fn: BenchFunction;
  readonly bundleBytes: number;
  /** Medians over the cold processes. */
  readonly importMs: number;
  readonly firstMs: number;
}

export interface WarmRow {
  readonly memoryMb: number;
  readonly variant: Variant;
  readonly workload: string;
  readonly fn: BenchFunction;
  readonly calls: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly peakRssMb: number;
  /** Within 15 % of the memory size: Lambda would be close to killing the sandbox. */
  readonly oomRisk: boolean;
  readonly readUnits: number;
  readonly writeUnits: number;
  readonly costPerMillion: Cost;
}

export interface Results {
  readonly version: 2;
  readonly mode: "full" | "quick";
  readonly date: string;
  readonly machine: string;
  readonly durationSeconds: number;
  /** False when no cgroup was writable: every figure is then at full speed. */
  readonly cpuShareEnforced: boolean;
  /** The CFS period the quotas are given per. */
  readonly periodMs: number;
  readonly referenceLoopMs: number;
  readonly calibration: readonly Calibration[];
  readonly cold: readonly ColdRow[];
  readonly warm: readonly WarmRow[];
  readonly targets: readonly { name: string; value: string; met: boolean }[];
  /** The cheapest size meeting each function's target, as infra/template.yaml should set it. */
  readonly recommendation: Readonly<Record<BenchFunction, number>>;
  readonly findings: readonly string[];
  /** Read units per list, today's full Query against the versioned cache (bench/listCost.ts). */
  readonly listCost: readonly ListCostRow[];
}

/** The latency targets that choose MemorySize: warm p99 of ours for these workloads. */
export const sizingTargets: Readonly<
  Record<BenchFunction, { workloads: string[]; p99Ms: number }>
> = {
  createCategory: { workloads: ["create"], p99Ms: 50 },
  listCategories: { workloads: ["list 1,000", "list 1,000 br"], p99Ms: 100 },
};
export const headroom = 0.85;
export const importTarget = 0.1;

/**
 * Per function: the size with the cheapest cost per million of its first target workload, among
 * the sizes where ours meets the p99 target and every workload of the function leaves 15 % of
 * the memory free. The largest size when none does (reported as a finding).
 */
export function recommend(
  warm: readonly WarmRow[],
  sizes: readonly number[],
  fn: BenchFunction,
): { memoryMb: number; met: boolean } {
  const target = sizingTargets[fn];
  const ours = warm.filter((row) => row.variant === "ours" && row.fn === fn);
  const fits = (memoryMb: number): boolean => {
    const at = ours.filter((row) => row.memoryMb === memoryMb);
    const timed = at.filter((row) => target.workloads.includes(row.workload));
    return (
      timed.length > 0 &&
      timed.every((row) => row.p99Ms < target.p99Ms) &&
      at.every((row) => !row.oomRisk)
    );
  };
  const costOf = (memoryMb: number): number =>
    ours.find((row) => row.memoryMb === memoryMb && row.workload === target.workloads[0])
      ?.costPerMillion.total ?? Number.POSITIVE_INFINITY;
  const candidates = sizes.filter(fits).sort((a, b) => costOf(a) - costOf(b) || a - b);
  const chosen = candidates[0];
  return chosen === undefined
    ? { memoryMb: Math.max(...sizes), met: false }
    : { memoryMb: chosen, met: true };
}

/**
 * Where compression starts to matter, per size: brotli's CPU grows linearly with the list, so the
 * p50 it adds at 10,000 categories gives the store size at which it adds 50 ms, half the list's
 * p99 target. Medians, since on a busy machine the p99 is mostly the machine.
 */
export function compressionFindings(warm: readonly WarmRow[], sizes: readonly number[]): string[] {
  return sizes.flatMap((memoryMb) => {
    const p50 = (workload: string): number =>
      warm.find((r) => r.variant === "ours" && r.memoryMb === memoryMb && r.workload === workload)
        ?.p50Ms ?? Number.NaN;
    const added = p50("list 10,000 br") - p50("list 10,000");
    if (Number.isNaN(added)) return [];
    const from = Math.round(50 / (added / 10_000) / 1000) * 1000;
    return [
      `${memoryMb} MB: br adds ${added.toFixed(0)} ms p50 to a list of 10,000` +
        (added > 0 ? `; 50 ms from about ${from.toLocaleString("en-US")} categories` : " (noise)"),
    ];
  });
}
