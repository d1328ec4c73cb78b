/**
 * What is measured, each time in a fresh child process (child.ts) inside a cgroup (sandbox.ts):
 * the calibration loop; one pass through the store proxy (same store calls, store units); and per
 * memory size the cold starts and the warm workloads of every variant.
 */
import { median, percentile } from "../scripts/lib/stats.ts";
import type { CalibrateResult, Calls, MeasureResult, MeasureTask } from "./child.ts";
import type { Cost, Units } from "./cost.ts";
import { costPerMillion } from "./cost.ts";
import { sampleEvent } from "./data.ts";
import { startStoreTally } from "./proxy.ts";
import type { BenchFunction, Built, Sandbox, Variant } from "./sandbox.ts";
import { benchFunctions, bundleOf, createFunction, fullSpeed, listFunction } from "./sandbox.ts";
import { periodUs, runChild, variants } from "./sandbox.ts";

export type Plan = Calls & { sizes: number[]; coldRuns: number; listSizes: number[] };
export type Bench = Built & { plan: Plan; endpoint: string };
/** A create, or a list of `count` categories; `br`: as a browser asks for it (ours only). */
type Workload = { id: string; fn: BenchFunction; count: number; br: boolean };
/** Ours' store units per request of each workload: a cold call, and one with nothing changed. */
/**
 * Per workload: a cold request's units, a steady one's, and (apart, optional so older results
 * still read) the rate limiter's for the cold request: its first lease.
 */
export type StoreUnits = Record<string, { cold: Units; steady: Units; limiter?: Units }>;
/** slowdown: wall time over the full core's; wallPerCpu: over the loop's own CPU time. */
type Loop = Record<"memoryMb" | "share" | "wallMs" | "slowdown" | "wallPerCpu", number>;
/**
 * slowdownAfter: the loop again after the size's rounds (absent in records before it); a size
 * measured twice, its first rounds having broken on a noisy host: the break (`brokeOnce`) and the
 * loop's slowdown that excused it (`slowdownAtBreak`).
 */
export type Calibration = Loop & {
  ok: boolean;
  slowdownAfter?: number;
  slowdownAtBreak?: number | undefined;
  brokeOnce?: string;
};
type Row = { memoryMb: number; variant: Variant; fn: BenchFunction };
/** importMs and firstMs: medians over the cold processes. */
export type ColdRow = Row & Record<"bundleBytes" | "importMs" | "firstMs", number>;
/** oomRisk: RSS over `headroom` of the size; the cost is at the steady-state store units. */
type Warm = Record<"calls" | "p50Ms" | "p99Ms" | "peakRssMb", number> & { oomRisk: boolean };
export type WarmRow = Row & Warm & { workload: string; costPerMillion: Cost };

/** Over this share of the memory size, Lambda would be close to killing the sandbox. */
export const headroom = 0.85;
export const tableOf = (count: number): string => `bench-${count === 0 ? "create" : count}`;
const exactly = (n: number): Calls => ({ minCalls: n, maxCalls: n, budgetMs: 0 });
const variantsOf = (w: Workload): readonly Variant[] => (w.br ? ["ours"] : variants);

/** Creates; lists as compared (no Accept-Encoding); ours' lists of 1,000 and more with br. */
function workloadsOf(listSizes: number[]): Workload[] {
  const list = (count: number, br: boolean): Workload => {
    const id = `list ${count.toLocaleString("en-US")}${br ? " br" : ""}`;
    return { id, fn: listFunction, count, br };
  };
  const large = listSizes.filter((count) => count >= 1000);
  const create: Workload = { id: "create", fn: createFunction, count: 0, br: false };
  return [create, ...listSizes.map((n) => list(n, false)), ...large.map((n) => list(n, true))];
}

function run(b: Bench, v: Variant, w: Workload, sandbox: Sandbox, calls: Calls, via = "") {
  const event = sampleEvent(w.fn === createFunction, w.br ? "br" : "");
  const { name } = JSON.parse(event.body ?? "{}") as { name?: string };
  const task: MeasureTask = {
    ...{ bundle: bundleOf(b, v, w.fn).path, functionName: w.fn, settleMs: periodUs / 1000 },
    ...{ event, ...calls, expect: name === undefined ? { count: w.count } : { name } },
  };
  const nodeOptions = v.startsWith("ours") ? b.nodeOptions : "";
  const store = { endpoint: via || b.endpoint, table: tableOf(w.count), nodeOptions };
  return runChild<MeasureResult>(b.child, task, sandbox, store);
}

/**
 * A fixed loop at full speed, then under each quota. A busy machine only adds wall time, so an
 * enforced quota keeps wall ÷ CPU at 1 ÷ share or above: under 0.8 of that, it is not applied.
 */
export async function calibrate(
  child: string,
  sandboxes: Sandbox[],
): Promise<[number, Calibration[]]> {
  const referenceMs = (await loop(child, fullSpeed)).wallMs;
  const rows: Calibration[] = [];
  for (const sandbox of sandboxes.filter((s) => s.group)) {
    const { memoryMb, share } = sandbox;
    const { wallMs, cpuMs } = await loop(child, sandbox);
    const [slowdown, wallPerCpu] = [wallMs / referenceMs, wallMs / cpuMs];
    rows.push({ memoryMb, share, wallMs, slowdown, wallPerCpu, ok: wallPerCpu >= 0.8 / share });
  }
  return [referenceMs, rows];
}

/** The loop once more under a size's quota (after its rounds): how much it slows now. */
export const slowdownNow = async (
  child: string,
  sandbox: Sandbox,
  referenceMs: number,
): Promise<number> => (await loop(child, sandbox)).wallMs / referenceMs;

const loop = (child: string, s: Sandbox) =>
  runChild<CalibrateResult>(child, { calibrate: 60_000_000 }, s);

/** Through the proxy: each variant's calls (a cold call, then a warm one) must be ours'. */
export async function storeUnits(b: Bench): Promise<StoreUnits> {
  const proxy = await startStoreTally(b.endpoint);
  const through = (variant: Variant, w: Workload, calls: number) =>
    proxy.measure(() => run(b, variant, w, fullSpeed, exactly(calls), proxy.endpoint));
  const units: StoreUnits = {};
  try {
    for (const w of workloadsOf(b.plan.listSizes)) {
      const [cold, ours] = [await through("ours", w, 0), await through("ours", w, 1)];
      const { readUnits, writeUnits } = cold;
      const steady = {
        readUnits: ours.readUnits - readUnits,
        writeUnits: ours.writeUnits - writeUnits,
      };
      const limiter = { readUnits: cold.limiter.readUnits, writeUnits: cold.limiter.writeUnits };
      units[w.id] = { cold: { readUnits, writeUnits }, steady, limiter };
      const expected = ours.calls.join("\n");
      for (const variant of variantsOf(w).filter((v) => v !== "ours")) {
        const seen = (await through(variant, w, 1)).calls.join("\n");
        const calls = `${seen}\nours:\n${expected}`;
        if (seen !== expected)
          throw new Error(
            `broken benchmark: ${variant} ${w.id} makes other store calls:\n${calls}`,
          );
      }
    }
  } finally {
    proxy.close();
  }
  return units;
}

/** Cold starts (median of coldRuns fresh processes) and every warm workload, at one size. */
export async function atSize(
  b: Bench,
  sandbox: Sandbox,
  units: StoreUnits,
): Promise<[ColdRow[], WarmRow[]]> {
  const { memoryMb } = sandbox;
  const [cold, warm]: [ColdRow[], WarmRow[]] = [[], []];
  const workloads = workloadsOf(b.plan.listSizes);
  for (const fn of benchFunctions) {
    const first = workloads.find((w) => w.fn === fn) as Workload;
    // In rounds of one cold process per variant, not five of one variant then five of the next:
    // the host's noise comes in spells of seconds to minutes (at 128 MB one quiet run slowed the
    // calibration loop 2.9× more than its share), and a spell must fall on every variant alike.
    const runs = new Map<Variant, MeasureResult[]>(variants.map((variant) => [variant, []]));
    for (let i = 0; i < b.plan.coldRuns; i++)
      for (const variant of variants)
        runs.get(variant)?.push(await run(b, variant, first, sandbox, exactly(0)));
    for (const variant of variants) {
      const ofVariant = runs.get(variant) ?? [];
      const medianOf = (key: "importMs" | "firstMs") => median(ofVariant.map((r) => r[key]));
      const [importMs, firstMs] = [medianOf("importMs"), medianOf("firstMs")];
      const { bytes: bundleBytes } = bundleOf(b, variant, fn);
      cold.push({ memoryMb, variant, fn, bundleBytes, importMs, firstMs });
    }
  }
  for (const w of workloads)
    for (const variant of variantsOf(w)) {
      const { durationsMs: ms, maxRssBytes } = await run(b, variant, w, sandbox, b.plan);
      // Priced at the units of a call with nothing changed since the last: the steady state.
      const steady = units[w.id]?.steady ?? { readUnits: NaN, writeUnits: NaN };
      warm.push({
        ...{ memoryMb, variant, workload: w.id, fn: w.fn, calls: ms.length },
        ...{ p50Ms: median(ms), p99Ms: percentile(ms, 99), peakRssMb: maxRssBytes / 1e6 },
        ...{ oomRisk: maxRssBytes / 1e6 > headroom * memoryMb },
        costPerMillion: costPerMillion(memoryMb, ms, steady),
      });
    }
  return [cold, warm];
}
