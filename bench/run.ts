/**
 * `npm run bench`: the functions under Lambda's CPU share at each memory size, side by side with
 * the limit (bare handlers, same store calls) and the typical stack (middy + AWS SDK v3), against
 * one embedded store. Per size: cold start, warm p50/p99 of a create and of lists, peak RSS, and
 * the cost per million requests; then each function's cheapest MemorySize that meets its target.
 * Prints the tables and writes bench/results.json (README's Performance section is written by hand).
 *
 * `--quick` (CI): one size under its quota, few calls, in seconds; writes under .bench-tmp/ and
 * fails only when the benchmark is broken (an exception, a wrong answer, a variant making other
 * store calls, a quota that does not slow the calibration loop), never on figures.
 *
 * To add a workload (a new list design, say), add it to `workloads` with the table it reads: its
 * latency, read units and cost per million appear in every table.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { resolve } from "node:path";
import { localClient, startEmbeddedDynamo } from "../local/embeddedDynamo.ts";
import { projectRoot } from "../local/template.ts";
import { mean, median, percentile } from "../scripts/lib/stats.ts";
import type { BenchFunction, Bundles, Variant } from "./bundle.ts";
import { benchFunctions, buildAll, deployedNodeOptions, tmpDir, variants } from "./bundle.ts";
import type { CalibrateResult, MeasureResult, MeasureTask } from "./child.ts";
import { costPerMillion } from "./cost.ts";
import { categoriesEvent, seedTable } from "./data.ts";
import { printReport } from "./report.ts";
import type { Calibration, ColdRow, Results, WarmRow } from "./results.ts";
import { compressionFindings, headroom, importTarget, recommend } from "./results.ts";
import type { Sandbox, Store } from "./sandbox.ts";
import { closeSandbox, openSandbox, periodUs, runChild } from "./sandbox.ts";
import { startRecordingProxy } from "./storeCalls.ts";

const quick = process.argv.includes("--quick");
const plan = quick
  ? { sizes: [512], coldRuns: 1, minCalls: 5, maxCalls: 40, budgetMs: 300, listSizes: [100, 1000] }
  : {
      sizes: [128, 256, 512, 1024, 1769],
      coldRuns: 3,
      minCalls: 20,
      maxCalls: 400,
      budgetMs: 2500,
      listSizes: [100, 1000, 10_000],
    };

interface Workload {
  readonly id: string;
  readonly fn: BenchFunction;
  /** Categories in the table read; 0 for the create table. */
  readonly count: number;
  readonly acceptEncoding?: string;
  readonly variants: readonly Variant[];
}
const createName = "Bench category";
const workloads: Workload[] = [
  { id: "create", fn: "createCategory", count: 0, variants },
  ...plan.listSizes.map((count) => ({
    id: `list ${count.toLocaleString("en-US")}`,
    fn: "listCategories" as const,
    count,
    variants,
  })),
  // What a browser gets: compressed. Ours only, the others do not compress.
  ...plan.listSizes
    .filter((count) => count >= 1000)
    .map((count) => ({
      id: `list ${count.toLocaleString("en-US")} br`,
      fn: "listCategories" as const,
      count,
      acceptEncoding: "br",
      variants: ["ours"] as const,
    })),
];
const calibrationRounds = 60_000_000;
const nodeOptions = deployedNodeOptions();
const started = performance.now();
const phase = (name: string): void => {
  process.stderr.write(
    `[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${name}\n`,
  );
};

function task(bundles: Bundles, variant: Variant, workload: Workload, warm: boolean): MeasureTask {
  const create = workload.fn === "createCategory";
  const body = create
    ? JSON.stringify({ name: createName, description: "A first night at home." })
    : undefined;
  return {
    bundle: bundles[variant][workload.fn].path,
    functionName: workload.fn,
    event: categoriesEvent(create ? "POST" : "GET", body, workload.acceptEncoding),
    expect: create ? { kind: "create", name: createName } : { kind: "list", count: workload.count },
    minCalls: warm ? plan.minCalls : 0,
    maxCalls: warm ? plan.maxCalls : 0,
    budgetMs: warm ? plan.budgetMs : 0,
    settleMs: periodUs / 1000,
  };
}

/** The calibration loop at full speed, then under each size's quota; the run stops if a quota does not bite. */
async function calibrate(
  child: string,
  sandboxes: readonly Sandbox[],
): Promise<{ referenceMs: number; rows: Calibration[] }> {
  const run = (sandbox: Sandbox) =>
    runChild<CalibrateResult>(child, { calibrate: calibrationRounds }, sandbox);
  const reference = await run({ memoryMb: 0, share: 1, group: undefined });
  const rows: Calibration[] = [];
  for (const sandbox of sandboxes.filter((s) => s.group)) {
    const loop = await run(sandbox);
    const wallPerCpu = loop.wallMs / loop.cpuMs;
    // A busy machine only adds to the wall time: a quota that is enforced can never go under 1/share.
    const ok = wallPerCpu >= 0.8 / sandbox.share;
    rows.push({
      memoryMb: sandbox.memoryMb,
      share: sandbox.share,
      wallMs: loop.wallMs,
      slowdown: loop.wallMs / reference.wallMs,
      wallPerCpu,
      ok,
    });
  }
  return { referenceMs: reference.wallMs, rows };
}

/** Every variant through the recording proxy once per workload: same calls as ours, and ours' units per request. */
async function storeUnits(
  bundles: Bundles,
  child: string,
  endpoint: string,
): Promise<Map<string, { readUnits: number; writeUnits: number }>> {
  const proxy = await startRecordingProxy(endpoint);
  const units = new Map<string, { readUnits: number; writeUnits: number }>();
  const fullSpeed: Sandbox = { memoryMb: 1769, share: 1, group: undefined };
  try {
    for (const workload of workloads) {
      const store = { endpoint: proxy.endpoint, table: tableOf(workload) };
      const seen = new Map<Variant, string>();
      for (const variant of workload.variants) {
        await runChild<MeasureResult>(
          child,
          task(bundles, variant, workload, false),
          fullSpeed,
          store,
          nodeOptions,
        );
        const recorded = proxy.take();
        seen.set(variant, recorded.calls.join("\n"));
        if (variant === "ours") units.set(workload.id, recorded);
      }
      for (const [variant, calls] of seen) {
        if (calls !== seen.get("ours"))
          throw new Error(
            `broken benchmark: ${variant} ${workload.id} makes other store calls:\n${calls}\nours:\n${String(seen.get("ours"))}`,
          );
      }
    }
  } finally {
    await proxy.close();
  }
  return units;
}

const tableOf = (workload: Workload): string =>
  workload.count === 0 ? "bench-create" : `bench-list-${workload.count}`;

async function measureSize(
  bundles: Bundles,
  child: string,
  sandbox: Sandbox,
  endpoint: string,
  units: Map<string, { readUnits: number; writeUnits: number }>,
): Promise<{ cold: ColdRow[]; warm: WarmRow[] }> {
  const cold: ColdRow[] = [];
  const warm: WarmRow[] = [];
  const store = (workload: Workload): Store => ({ endpoint, table: tableOf(workload) });
  const optionsOf = (variant: Variant): string => (variant === "ours" ? nodeOptions : "");
  for (const fn of benchFunctions) {
    const first = workloads.find((w) => w.fn === fn) ?? workloads[0];
    if (!first) continue;
    for (const variant of variants) {
      const runs: MeasureResult[] = [];
      for (let run = 0; run < plan.coldRuns; run++) {
        runs.push(
          await runChild<MeasureResult>(
            child,
            task(bundles, variant, first, false),
            sandbox,
            store(first),
            optionsOf(variant),
          ),
        );
      }
      cold.push({
        memoryMb: sandbox.memoryMb,
        variant,
        fn,
        bundleBytes: bundles[variant][fn].bytes,
        importMs: median(runs.map((r) => r.importMs)),
        firstMs: median(runs.map((r) => r.firstMs)),
      });
    }
  }
  for (const workload of workloads) {
    for (const variant of workload.variants) {
      const result = await runChild<MeasureResult>(
        child,
        task(bundles, variant, workload, true),
        sandbox,
        store(workload),
        optionsOf(variant),
      );
      const peakRssMb = result.maxRssBytes / 1e6;
      const used = units.get(workload.id) ?? { readUnits: Number.NaN, writeUnits: Number.NaN };
      warm.push({
        memoryMb: sandbox.memoryMb,
        variant,
        workload: workload.id,
        fn: workload.fn,
        calls: result.durationsMs.length,
        p50Ms: median(result.durationsMs),
        p99Ms: percentile(result.durationsMs, 99),
        peakRssMb,
        oomRisk: peakRssMb > headroom * sandbox.memoryMb,
        readUnits: used.readUnits,
        writeUnits: used.writeUnits,
        costPerMillion: costPerMillion(sandbox.memoryMb, result.durationsMs, used),
      });
    }
  }
  return { cold, warm };
}

function importTargets(cold: readonly ColdRow[]): Results["targets"] {
  return benchFunctions.map((fn) => {
    const ratios = plan.sizes.map((memoryMb) => {
      const at = (variant: Variant): number =>
        cold.find((r) => r.fn === fn && r.variant === variant && r.memoryMb === memoryMb)
          ?.importMs ?? Number.NaN;
      return at("ours") / at("typical");
    });
    const worst = Math.max(...ratios);
    return {
      name: `${fn}: import vs typical, worst size`,
      value: `${worst.toFixed(3)}× (≤ ${importTarget}×)`,
      met: worst <= importTarget,
    };
  });
}

async function main(): Promise<number> {
  mkdirSync(tmpDir, { recursive: true });
  phase("build: npm run build's bundles, the limit and the typical variants, the child");
  const { bundles, child } = await buildAll();
  const opened = plan.sizes.map(openSandbox);
  const problem = opened.find((o) => o.problem)?.problem;
  if (problem) process.stderr.write(`bench: ${problem}\n`);
  const sandboxes = opened.map((o) => o.sandbox);
  const dynamo = await startEmbeddedDynamo();
  const db = localClient(dynamo.endpoint);
  try {
    phase(`store: seeding tables of ${plan.listSizes.join(", ")} categories`);
    for (const count of [0, ...plan.listSizes])
      await seedTable(db, count === 0 ? "bench-create" : `bench-list-${count}`, count);
    phase("calibration: a fixed CPU-bound loop at full speed and under each quota");
    const calibration = await calibrate(child, sandboxes);
    const broken = calibration.rows.filter((row) => !row.ok);
    if (broken.length > 0)
      throw new Error(
        `broken benchmark: the CPU quota did not slow the loop at ${broken.map((r) => `${r.memoryMb} MB`).join(", ")}`,
      );
    phase("store calls: every variant makes ours' calls; ours' read and write units");
    const units = await storeUnits(bundles, child, dynamo.endpoint);
    const cold: ColdRow[] = [];
    const warm: WarmRow[] = [];
    for (const sandbox of sandboxes) {
      phase(
        `${sandbox.memoryMb} MB (${(sandbox.share * 100).toFixed(1)} % of a core${sandbox.group ? "" : ", NOT enforced"})`,
      );
      const measured = await measureSize(bundles, child, sandbox, dynamo.endpoint, units);
      cold.push(...measured.cold);
      warm.push(...measured.warm);
    }
    const chosen = Object.fromEntries(
      benchFunctions.map((fn) => [fn, recommend(warm, plan.sizes, fn)]),
    );
    const results: Results = {
      version: 2,
      mode: quick ? "quick" : "full",
      date: new Date().toISOString(),
      machine: `${cpus().length} × ${cpus()[0]?.model ?? "unknown"}, Node ${process.version}`,
      durationSeconds: Math.round((performance.now() - started) / 1000),
      cpuShareEnforced: problem === undefined,
      referenceLoopMs: calibration.referenceMs,
      calibration: calibration.rows,
      cold,
      warm,
      targets: importTargets(cold),
      recommendation: {
        listCategories: chosen.listCategories?.memoryMb ?? 0,
        createCategory: chosen.createCategory?.memoryMb ?? 0,
      },
      findings: [
        ...benchFunctions
          .filter((fn) => chosen[fn]?.met === false)
          .map(
            (fn) => `${fn}: no size meets its p99 target with headroom; the largest is recommended`,
          ),
        ...compressionFindings(warm, plan.sizes),
      ],
    };
    const path = quick
      ? resolve(tmpDir, "results-quick.json")
      : resolve(projectRoot, "bench/results.json");
    writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`);
    printReport(results, periodUs);
    phase(
      `done: wrote ${path}; mean warm calls per row ${mean(warm.map((r) => r.calls)).toFixed(0)}`,
    );
    return 0;
  } finally {
    db.close();
    await dynamo.close();
    sandboxes.forEach(closeSandbox);
  }
}

try {
  process.exitCode = await main();
} catch (error) {
  process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
