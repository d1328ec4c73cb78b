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
 * A new workload (another list design, say) goes in measure.ts's `workloadsOf`, with the table
 * it reads seeded below: its latency, store units and cost per million then show in every table.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { resolve } from "node:path";
import { localClient, startEmbeddedDynamo } from "../local/embeddedDynamo.ts";
import { projectRoot } from "../local/template.ts";
import type { BenchFunction } from "./bundle.ts";
import { benchFunctions, buildAll, deployedNodeOptions, tmpDir } from "./bundle.ts";
import { seedTable } from "./data.ts";
import type { Plan } from "./measure.ts";
import { listCost, printListCost } from "./listCost.ts";
import { Measurements, tableOf, workloadsOf } from "./measure.ts";
import { printReport } from "./report.ts";
import type { ColdRow, Results, WarmRow } from "./results.ts";
import { compressionFindings, importTarget, recommend } from "./results.ts";
import { closeSandbox, openSandbox, periodUs } from "./sandbox.ts";

const quick = process.argv.includes("--quick");
const plan: Plan = quick
  ? { sizes: [512], coldRuns: 1, minCalls: 5, maxCalls: 40, budgetMs: 300, listSizes: [100, 1000] }
  : {
      sizes: [128, 256, 512, 1024, 1769],
      coldRuns: 3,
      minCalls: 20,
      maxCalls: 400,
      budgetMs: 2500,
      listSizes: [100, 1000, 10_000],
    };
const started = performance.now();
const seconds = (): number => Math.round((performance.now() - started) / 1000);
const phase = (name: string): void => {
  process.stderr.write(`[bench ${String(seconds()).padStart(4)} s] ${name}\n`);
};

/** Ours' import over the typical stack's, at the size where it is worst. */
function importTargets(cold: readonly ColdRow[]): Results["targets"] {
  return benchFunctions.map((fn) => {
    const importAt = (variant: string, memoryMb: number): number =>
      cold.find((r) => r.fn === fn && r.variant === variant && r.memoryMb === memoryMb)?.importMs ??
      Number.NaN;
    const worst = Math.max(
      ...plan.sizes.map((mb) => importAt("ours", mb) / importAt("typical", mb)),
    );
    return {
      name: `${fn}: import vs typical, worst size`,
      value: `${worst.toFixed(3)}× (≤ ${importTarget}×)`,
      met: worst <= importTarget,
    };
  });
}

async function main(): Promise<void> {
  mkdirSync(tmpDir, { recursive: true });
  phase("build: npm run build's bundles, the limit and the typical variants, the child");
  const { bundles, child } = await buildAll();
  const opened = plan.sizes.map(openSandbox);
  const problem = opened.find((o) => o.problem !== undefined)?.problem;
  if (problem !== undefined) process.stderr.write(`bench: ${problem}\n`);
  const sandboxes = opened.map((o) => o.sandbox);
  const dynamo = await startEmbeddedDynamo();
  const db = localClient(dynamo.endpoint);
  try {
    phase(`store: tables of 0 (for creates), ${plan.listSizes.join(", ")} categories`);
    for (const count of [0, ...plan.listSizes]) await seedTable(db, tableOf(count), count);
    const workloads = workloadsOf(plan.listSizes);
    const nodeOptions = deployedNodeOptions();
    const measure = new Measurements({
      plan,
      workloads,
      bundles,
      child,
      endpoint: dynamo.endpoint,
      nodeOptions,
    });
    phase("calibration: a fixed CPU-bound loop at full speed and under each quota");
    const calibration = await measure.calibrate(sandboxes);
    const unenforced = calibration.rows.filter((row) => !row.ok).map((row) => `${row.memoryMb} MB`);
    if (unenforced.length > 0)
      throw new Error(
        `broken benchmark: the CPU quota did not slow the loop at ${unenforced.join(", ")}`,
      );
    phase("store calls: every variant makes ours' calls; ours' read and write units");
    const units = await measure.storeUnits();
    const cold: ColdRow[] = [];
    const warm: WarmRow[] = [];
    for (const sandbox of sandboxes) {
      phase(
        `${sandbox.memoryMb} MB: ${(sandbox.share * 100).toFixed(1)} % of a core${sandbox.group ? "" : ", NOT enforced"}`,
      );
      const measured = await measure.atSize(sandbox, units);
      cold.push(...measured.cold);
      warm.push(...measured.warm);
    }
    phase("list cost: read units per list, today's design against the versioned cache");
    const listCostRows = await listCost(quick ? [100] : [100, 10_000, 50_000]);
    const chosen = benchFunctions.map((fn) => ({ fn, ...recommend(warm, plan.sizes, fn) }));
    const results: Results = {
      version: 2,
      mode: quick ? "quick" : "full",
      date: new Date().toISOString(),
      machine: `${cpus().length} × ${cpus()[0]?.model ?? "unknown"}, Node ${process.version}`,
      durationSeconds: seconds(),
      cpuShareEnforced: problem === undefined,
      periodMs: periodUs / 1000,
      referenceLoopMs: calibration.referenceMs,
      calibration: calibration.rows,
      cold,
      warm,
      targets: importTargets(cold),
      recommendation: Object.fromEntries(chosen.map((c) => [c.fn, c.memoryMb])) as Record<
        BenchFunction,
        number
      >,
      findings: [
        ...chosen
          .filter((c) => !c.met)
          .map(
            (c) =>
              `${c.fn}: no size meets its p99 target with headroom; the largest is recommended`,
          ),
        ...compressionFindings(warm, plan.sizes),
      ],
      listCost: listCostRows,
    };
    const path = quick
      ? resolve(tmpDir, "results-quick.json")
      : resolve(projectRoot, "bench/results.json");
    writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`);
    printReport(results);
    printListCost(results.listCost);
    phase(`done: wrote ${path}`);
  } finally {
    db.close();
    await dynamo.close();
    sandboxes.forEach(closeSandbox);
  }
}

try {
  await main();
} catch (error) {
  process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
