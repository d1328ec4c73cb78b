/**
 * The measurements, each in fresh child processes: the calibration loop, one pass through the
 * recording proxy (same store calls, store units), and per memory size the cold starts and the
 * warm workloads of every variant.
 */
import { median, percentile } from "../scripts/lib/stats.ts";
import type { BenchFunction, Bundles, Variant } from "./bundle.ts";
import { benchFunctions, variants } from "./bundle.ts";
import type { CalibrateResult, MeasureResult, MeasureTask } from "./child.ts";
import { costPerMillion } from "./cost.ts";
import { categoriesEvent } from "./data.ts";
import type { Calibration, ColdRow, WarmRow } from "./results.ts";
import { headroom } from "./results.ts";
import type { Sandbox } from "./sandbox.ts";
import { periodUs, runChild } from "./sandbox.ts";
import { startRecordingProxy } from "./storeCalls.ts";

export interface Plan {
  readonly sizes: readonly number[];
  readonly coldRuns: number;
  /** Warm calls per process: at least minCalls, then until budgetMs or maxCalls. */
  readonly minCalls: number;
  readonly maxCalls: number;
  readonly budgetMs: number;
  readonly listSizes: readonly number[];
}

export interface Workload {
  readonly id: string;
  readonly fn: BenchFunction;
  /** Categories in the table it reads; 0: the table creates write to. */
  readonly count: number;
  readonly acceptEncoding?: string;
  readonly variants: readonly Variant[];
}

/** Creates; lists as compared (no Accept-Encoding); ours' lists as a browser gets them (br). */
export function workloadsOf(listSizes: readonly number[]): Workload[] {
  const list = (count: number, br: boolean): Workload => ({
    id: `list ${count.toLocaleString("en-US")}${br ? " br" : ""}`,
    fn: "listCategories",
    count,
    ...(br ? { acceptEncoding: "br", variants: ["ours"] } : { variants }),
  });
  return [
    { id: "create", fn: "createCategory", count: 0, variants },
    ...listSizes.map((count) => list(count, false)),
    ...listSizes.filter((count) => count >= 1000).map((count) => list(count, true)),
  ];
}

export const tableOf = (count: number): string => `bench-${count === 0 ? "create" : count}`;
const createName = "Bench category";
const fullSpeed: Sandbox = { memoryMb: 1769, share: 1, group: undefined };
type Units = { readonly readUnits: number; readonly writeUnits: number };

export interface Setup {
  readonly plan: Plan;
  readonly workloads: readonly Workload[];
  readonly bundles: Bundles;
  readonly child: string;
  readonly endpoint: string;
  /** The template's NODE_OPTIONS: ours runs as deployed. */
  readonly nodeOptions: string;
}

export class Measurements {
  readonly #setup: Setup;
  constructor(setup: Setup) {
    this.#setup = setup;
  }

  #run(
    variant: Variant,
    workload: Workload,
    warm: boolean,
    sandbox: Sandbox,
    endpoint = this.#setup.endpoint,
  ) {
    const create = workload.fn === "createCategory";
    const body = create
      ? JSON.stringify({ name: createName, description: "A first night." })
      : undefined;
    const task: MeasureTask = {
      bundle: this.#setup.bundles[variant][workload.fn].path,
      functionName: workload.fn,
      event: categoriesEvent(create ? "POST" : "GET", body, workload.acceptEncoding),
      expect: create
        ? { kind: "create", name: createName }
        : { kind: "list", count: workload.count },
      minCalls: warm ? this.#setup.plan.minCalls : 0,
      maxCalls: warm ? this.#setup.plan.maxCalls : 0,
      budgetMs: warm ? this.#setup.plan.budgetMs : 0,
      settleMs: periodUs / 1000,
    };
    const store = { endpoint, table: tableOf(workload.count) };
    const options = variant.startsWith("ours") ? this.#setup.nodeOptions : "";
    return runChild<MeasureResult>(this.#setup.child, task, sandbox, store, options);
  }

  /**
   * A fixed loop at full speed, then under each quota. A busy machine only adds wall time, so an
   * enforced quota keeps wall ÷ CPU at 1 ÷ share or above: under 0.8 of that, it is not applied.
   */
  async calibrate(
    sandboxes: readonly Sandbox[],
  ): Promise<{ referenceMs: number; rows: Calibration[] }> {
    const loop = (sandbox: Sandbox) =>
      runChild<CalibrateResult>(this.#setup.child, { calibrate: 60_000_000 }, sandbox);
    const reference = await loop(fullSpeed);
    const rows: Calibration[] = [];
    for (const sandbox of sandboxes.filter((s) => s.group !== undefined)) {
      const { wallMs, cpuMs } = await loop(sandbox);
      const wallPerCpu = wallMs / cpuMs;
      const slowdown = wallMs / reference.wallMs;
      rows.push({
        memoryMb: sandbox.memoryMb,
        share: sandbox.share,
        wallMs,
        slowdown,
        wallPerCpu,
        ok: wallPerCpu >= 0.8 / sandbox.share,
      });
    }
    return { referenceMs: reference.wallMs, rows };
  }

  /** One call per variant and workload through the proxy: ours' calls and units per request. */
  async storeUnits(): Promise<Map<string, Units>> {
    const proxy = await startRecordingProxy(this.#setup.endpoint);
    const units = new Map<string, Units>();
    try {
      for (const workload of this.#setup.workloads) {
        const calls = new Map<Variant, string>();
        for (const variant of workload.variants) {
          await this.#run(variant, workload, false, fullSpeed, proxy.endpoint);
          const recorded = proxy.take();
          calls.set(variant, recorded.calls.join("\n"));
          if (variant === "ours") units.set(workload.id, recorded);
        }
        for (const [variant, seen] of calls) {
          if (seen !== calls.get("ours")) {
            throw new Error(
              `broken benchmark: ${variant} ${workload.id} makes other store calls than ours:\n${seen}\nours:\n${calls.get("ours") ?? ""}`,
            );
          }
        }
      }
    } finally {
      await proxy.close();
    }
    return units;
  }

  /** Cold starts (median of coldRuns fresh processes) and every warm workload, at one size. */
  async atSize(
    sandbox: Sandbox,
    units: ReadonlyMap<string, Units>,
  ): Promise<{ cold: ColdRow[]; warm: WarmRow[] }> {
    const cold: ColdRow[] = [];
    for (const fn of benchFunctions) {
      const first = this.#setup.workloads.find((workload) => workload.fn === fn);
      for (const variant of first ? variants : []) {
        const runs: MeasureResult[] = [];
        for (let i = 0; i < this.#setup.plan.coldRuns; i++)
          runs.push(await this.#run(variant, first as Workload, false, sandbox));
        const importMs = median(runs.map((r) => r.importMs));
        const firstMs = median(runs.map((r) => r.firstMs));
        cold.push({
          memoryMb: sandbox.memoryMb,
          variant,
          fn,
          bundleBytes: this.#setup.bundles[variant][fn].bytes,
          importMs,
          firstMs,
        });
      }
    }
    const warm: WarmRow[] = [];
    for (const workload of this.#setup.workloads) {
      for (const variant of workload.variants) {
        const { durationsMs, maxRssBytes } = await this.#run(variant, workload, true, sandbox);
        const used = units.get(workload.id) ?? { readUnits: Number.NaN, writeUnits: Number.NaN };
        warm.push({
          ...{ memoryMb: sandbox.memoryMb, variant, workload: workload.id, fn: workload.fn },
          ...{
            calls: durationsMs.length,
            p50Ms: median(durationsMs),
            p99Ms: percentile(durationsMs, 99),
          },
          ...{
            peakRssMb: maxRssBytes / 1e6,
            oomRisk: maxRssBytes / 1e6 > headroom * sandbox.memoryMb,
          },
          ...{ readUnits: used.readUnits, writeUnits: used.writeUnits },
          costPerMillion: costPerMillion(sandbox.memoryMb, durationsMs, used),
        });
      }
    }
    return { cold, warm };
  }
}
