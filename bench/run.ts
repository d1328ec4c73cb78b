/**
 * `npm run bench`: cold start, warm latency, memory and list scaling of the service's functions,
 * side by side with the limit (bare handlers, same store calls) and the typical stack (middy +
 * AWS SDK v3), in one run, alternating, against one embedded store. Prints a table with every
 * target met or not, writes bench/results.json and bench/chart.svg, and compares with the previous
 * results.json.
 *
 * `npm run bench -- --quick` (CI): the same code paths with few samples and small lists, in
 * seconds; writes only under .bench-tmp/ and fails only when the benchmark itself is broken (an
 * exception or a wrong answer), never on figures.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { resolve } from "node:path";
import { localClient, startEmbeddedDynamo } from "../local/embeddedDynamo.ts";
import { projectRoot } from "../local/template.ts";
import type { BenchFunction, Bundles, Variant } from "./bundle.ts";
import { benchFunctions, buildAll, deployedNodeOptions, tmpDir, variants } from "./bundle.ts";
import { renderChart } from "./chart.ts";
import { categoriesEvent, descriptionLength, seedTable } from "./data.ts";
import type { StoreTarget } from "./measure.ts";
import { runChild } from "./measure.ts";
import type { ChildResult, ChildTask, Expectation } from "./protocol.ts";
import { printReport, updateMarkedSection, markdownTables } from "./report.ts";
import type { Encoding, FunctionRow, Measured, Notes, Results, ScaleRow } from "./results.ts";
import { figuresOf, lambdaResultLimitBytes, regressionsOf, targetsOf } from "./results.ts";
import { median, medianNoise, percentile } from "./stats.ts";
import { startRecordingProxy } from "./storeCalls.ts";

interface Plan {
  readonly mode: "full" | "quick";
  /** Fresh processes per variant and function for import time and first invocation. */
  readonly coldRuns: number;
  /** Warm processes per variant and function, alternating. */
  readonly warmRounds: number;
  readonly warmup: number;
  /** Recorded warm invocations per process. */
  readonly iterations: number;
  /** Categories in the table the warm list reads. */
  readonly listSize: number;
  readonly scaleSizes: readonly number[];
  /** Recorded invocations per scaling process (after one unrecorded first), by list size. */
  readonly scaleIterations: (count: number) => number;
}

const plans: Readonly<Record<"full" | "quick", Plan>> = {
  full: {
    mode: "full",
    coldRuns: 15,
    warmRounds: 3,
    warmup: 100,
    iterations: 1000,
    listSize: 100,
    scaleSizes: [1000, 10_000, 50_000],
    // Small lists are quick and their few milliseconds are noisy: more samples there.
    scaleIterations: (count) => (count <= 2000 ? 9 : count <= 10_000 ? 5 : 3),
  },
  quick: {
    mode: "quick",
    coldRuns: 2,
    warmRounds: 1,
    warmup: 20,
    iterations: 100,
    listSize: 100,
    scaleSizes: [200, 1000, 2000],
    scaleIterations: () => 1,
  },
};

const plan = plans[process.argv.includes("--quick") ? "quick" : "full"];
const nodeOptions = deployedNodeOptions();
/** The compared three, and our bundle under the template's NODE_OPTIONS when it sets any. */
const measuredVariants: readonly Variant[] = nodeOptions ? [...variants, "deployed"] : variants;
const optionsOf = (variant: Variant): string => (variant === "deployed" ? nodeOptions : "");
const benchDir = resolve(projectRoot, "bench");
const resultsPath =
  plan.mode === "full" ? resolve(benchDir, "results.json") : resolve(tmpDir, "results-quick.json");
const chartPath =
  plan.mode === "full" ? resolve(benchDir, "chart.svg") : resolve(tmpDir, "chart-quick.svg");
const notesPath = resolve(benchDir, "notes.json");
const started = performance.now();

function phase(name: string): void {
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stderr.write(`[bench ${seconds.padStart(5)} s] ${name}\n`);
}

/** Each round starts with a different variant, so drift over the run is shared out evenly. */
function rotated<T>(list: readonly T[], by: number): T[] {
  const shift = by % list.length;
  return [...list.slice(shift), ...list.slice(0, shift)];
}

function measured(samples: readonly number[], digits = 3): Measured {
  const scale = 10 ** digits;
  return {
    value: Math.round(median(samples) * scale) / scale,
    noise: Math.round(medianNoise(samples) * 1000) / 1000,
    samples: samples.length,
  };
}

const createName = "Bench category";
const createEvent = categoriesEvent({
  method: "POST",
  body: JSON.stringify({
    name: createName,
    description: "Everything a small dog needs for a first night at home.",
  }),
});
const listEvent = categoriesEvent({ method: "GET" });

interface Workload {
  readonly event: ChildTask["event"];
  readonly expect: Expectation;
  readonly store: StoreTarget;
}

interface Collected {
  importMs: number[];
  firstMs: number[];
  durationsMs: number[];
  roundP50: number[];
  roundP99: number[];
  cpuMs: number[];
  rssMb: number[];
  digests: Set<string>;
}

/**
 * Runs each variant's function twice through a recording proxy and fails the run unless the
 * limit and the typical stack made exactly the service's store calls: otherwise the comparison
 * would not be like for like.
 */
async function checkSameStoreCalls(
  bundles: Bundles,
  child: string,
  storeEndpoint: string,
  workloads: Readonly<Record<BenchFunction, Workload>>,
): Promise<void> {
  phase("check: the variants make the same store calls");
  const proxy = await startRecordingProxy(storeEndpoint);
  try {
    for (const fn of benchFunctions) {
      const seen = new Map<Variant, string[]>();
      for (const variant of variants) {
        await runChild(
          child,
          {
            bundle: bundles[variant][fn].path,
            functionName: fn,
            event: workloads[fn].event,
            expect: workloads[fn].expect,
            warmup: 0,
            iterations: 1,
            collectGarbage: false,
          },
          { endpoint: proxy.endpoint, table: workloads[fn].store.table },
        );
        seen.set(variant, proxy.take());
      }
      const ours = (seen.get("ours") ?? []).join("\n");
      for (const [variant, calls] of seen) {
        if (calls.join("\n") !== ours) {
          throw new Error(
            `broken benchmark: ${variant} ${fn} does not make the service's store calls\n` +
              `ours:\n${ours}\n${variant}:\n${calls.join("\n")}`,
          );
        }
      }
    }
  } finally {
    await proxy.close();
  }
}

async function measureFunctions(
  bundles: Bundles,
  child: string,
  workloads: Readonly<Record<BenchFunction, Workload>>,
): Promise<FunctionRow[]> {
  const collected = new Map<string, Collected>();
  const slot = (fn: BenchFunction, variant: Variant): Collected => {
    const key = `${fn}/${variant}`;
    let found = collected.get(key);
    if (!found) {
      found = {
        importMs: [],
        firstMs: [],
        durationsMs: [],
        roundP50: [],
        roundP99: [],
        cpuMs: [],
        rssMb: [],
        digests: new Set(),
      };
      collected.set(key, found);
    }
    return found;
  };
  const task = (fn: BenchFunction, variant: Variant, warm: boolean): ChildTask => ({
    bundle: bundles[variant][fn].path,
    functionName: fn,
    event: workloads[fn].event,
    expect: workloads[fn].expect,
    warmup: warm ? plan.warmup : 0,
    iterations: warm ? plan.iterations : 0,
    collectGarbage: false,
  });

  phase(`cold: ${plan.coldRuns} fresh processes per variant and function`);
  for (let run = 0; run < plan.coldRuns; run++) {
    for (const fn of benchFunctions) {
      for (const variant of rotated(measuredVariants, run)) {
        const result = await runChild(
          child,
          task(fn, variant, false),
          workloads[fn].store,
          optionsOf(variant),
        );
        slot(fn, variant).importMs.push(result.importMs);
        slot(fn, variant).firstMs.push(result.firstMs);
      }
    }
  }

  phase(`warm: ${plan.warmRounds} × ${plan.iterations} invocations per variant and function`);
  for (let round = 0; round < plan.warmRounds; round++) {
    for (const fn of benchFunctions) {
      for (const variant of rotated(measuredVariants, round)) {
        const result: ChildResult = await runChild(
          child,
          task(fn, variant, true),
          workloads[fn].store,
          optionsOf(variant),
        );
        const into = slot(fn, variant);
        into.durationsMs.push(...result.durationsMs);
        into.roundP50.push(median(result.durationsMs));
        into.roundP99.push(percentile(result.durationsMs, 99));
        into.cpuMs.push(...result.cpuMs);
        into.rssMb.push(result.maxRssBytes / 1e6);
        if (result.answer.digest) into.digests.add(result.answer.digest);
      }
    }
  }

  const rows: FunctionRow[] = [];
  for (const fn of benchFunctions) {
    const digests = new Set(measuredVariants.flatMap((variant) => [...slot(fn, variant).digests]));
    if (digests.size > 1) throw new Error(`wrong answer: the variants' ${fn} answers differ`);
    for (const variant of measuredVariants) {
      const data = slot(fn, variant);
      const p50 = measured(data.durationsMs);
      const p99 = percentile(data.durationsMs, 99);
      rows.push({
        fn,
        variant,
        bundleBytes: bundles[variant][fn].bytes,
        importMs: measured(data.importMs),
        firstMs: measured(data.firstMs),
        // The pooled median, with the round-to-round spread as its noise.
        warmP50Ms: { ...p50, noise: Math.max(p50.noise, measured(data.roundP50).noise) },
        warmP99Ms: {
          value: Math.round(p99 * 1000) / 1000,
          noise: measured(data.roundP99).noise,
          samples: data.durationsMs.length,
        },
        warmCpuMs: measured(data.cpuMs),
        peakRssMb: measured(data.rssMb, 1),
        invocations: data.durationsMs.length,
      });
    }
  }
  return rows;
}

const scaleCases: readonly { variant: Variant; encoding: Encoding }[] = [
  { variant: "ours", encoding: "none" },
  { variant: "ours", encoding: "gzip" },
  { variant: "ours", encoding: "br" },
  { variant: "limit", encoding: "none" },
  { variant: "typical", encoding: "none" },
];

async function measureScaling(
  bundles: Bundles,
  child: string,
  endpoint: string,
  tables: ReadonlyMap<number, string>,
): Promise<ScaleRow[]> {
  phase(`scaling: list of ${plan.scaleSizes.join(", ")} categories`);
  const rows: ScaleRow[] = [];
  for (const count of plan.scaleSizes) {
    const table = tables.get(count);
    if (table === undefined) throw new Error(`no table seeded with ${count} categories`);
    for (const { variant, encoding } of scaleCases) {
      const result = await runChild(
        child,
        {
          bundle: bundles[variant].listCategories.path,
          functionName: "listCategories",
          event: categoriesEvent({
            method: "GET",
            ...(encoding !== "none" && { acceptEncoding: encoding }),
          }),
          // Uncompressed, the service refuses (406) a list over the response limit; the others send it.
          expect: encoding === "none" ? { kind: "list-or-406", count } : { kind: "list", count },
          warmup: 0,
          iterations: plan.scaleIterations(count),
          collectGarbage: true,
        },
        { endpoint, table },
      );
      const { answer } = result;
      if (variant !== "ours" && answer.status !== 200) {
        throw new Error(`wrong answer: ${variant} answered ${answer.status} for ${count}`);
      }
      if (variant === "ours" && encoding === "none") {
        const fits = answer.status === 200 ? answer.resultBytes <= lambdaResultLimitBytes : false;
        const tooLarge = answer.status === 406;
        if (!fits && !tooLarge) {
          throw new Error(`wrong answer: ${answer.resultBytes} B returned uncompressed`);
        }
      }
      rows.push({
        count,
        variant,
        encoding,
        status: answer.status,
        handlerMs: measured(result.durationsMs, 1),
        cpuMs: measured(result.cpuMs, 1),
        peakRssMb: Math.round(result.maxRssBytes / 1e5) / 10,
        plainBytes: answer.plainBytes,
        bodyBytes: answer.bodyBytes,
        resultBytes: answer.resultBytes,
        categories: answer.count,
      });
    }
  }
  return rows;
}

function readJson(path: string): unknown {
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as unknown) : undefined;
}

/**
 * The baseline: bench/results.json as committed (HEAD), so that running the bench twice cannot
 * launder a regression into the baseline; the working copy when there is no committed one.
 */
function previousResults(): Partial<Results> | undefined {
  try {
    const committed = execFileSync("git", ["show", "HEAD:bench/results.json"], {
      cwd: projectRoot,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    return JSON.parse(committed) as Partial<Results>;
  } catch {
    return readJson(resolve(benchDir, "results.json")) as Partial<Results> | undefined;
  }
}

async function main(): Promise<number> {
  mkdirSync(tmpDir, { recursive: true });
  phase("build: npm run build's bundles, the limit and the typical variants");
  const { bundles, child } = await buildAll();

  phase("store: embedded DynamoDB (dynalite), seeding tables");
  const dynamo = await startEmbeddedDynamo();
  const db = localClient(dynamo.endpoint);
  try {
    await seedTable(db, "bench-list", plan.listSize);
    await seedTable(db, "bench-create", 0);
    const scaleTables = new Map<number, string>();
    for (const count of plan.scaleSizes) {
      const table = `bench-list-${count}`;
      await seedTable(db, table, count);
      scaleTables.set(count, table);
    }
    const store = (table: string): StoreTarget => ({ endpoint: dynamo.endpoint, table });
    const workloads: Record<BenchFunction, Workload> = {
      listCategories: {
        event: listEvent,
        expect: { kind: "list", count: plan.listSize },
        store: store("bench-list"),
      },
      createCategory: {
        event: createEvent,
        expect: { kind: "create", name: createName },
        store: store("bench-create"),
      },
    };
    await checkSameStoreCalls(bundles, child, dynamo.endpoint, workloads);
    const rows = await measureFunctions(bundles, child, workloads);
    const scaling = await measureScaling(bundles, child, dynamo.endpoint, scaleTables);

    const figures = figuresOf(rows, scaling);
    // Quick figures are too few to compare; a full run compares with the committed results.
    const last = previousResults();
    const previous =
      plan.mode === "full" && last?.version === 1 && last.mode === "full" ? last : undefined;
    const notes = (readJson(notesPath) ?? {}) as Notes;
    const regressions = previous ? regressionsOf(previous.figures ?? [], figures, notes) : [];
    const results: Results = {
      version: 1,
      mode: plan.mode,
      date: new Date().toISOString(),
      machine: {
        node: process.version,
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model ?? "unknown",
      },
      durationSeconds: Math.round((performance.now() - started) / 100) / 10,
      settings: {
        coldRuns: plan.coldRuns,
        warmRounds: plan.warmRounds,
        warmInvocationsPerRound: plan.iterations,
        warmupInvocations: plan.warmup,
        deployedNodeOptions: nodeOptions,
        warmListSize: plan.listSize,
        scaleIterations: plan.scaleSizes.map((count) => plan.scaleIterations(count)).join("/"),
        descriptionLength,
      },
      functions: rows,
      scaling,
      targets: targetsOf(rows, scaling, benchFunctions),
      figures,
    };
    writeFileSync(resultsPath, `${JSON.stringify(results, null, 2)}\n`);
    writeFileSync(chartPath, renderChart(results));
    if (plan.mode === "full") {
      const tables = markdownTables(results);
      await updateMarkedSection(resolve(projectRoot, "README.md"), tables);
    }
    const failures = printReport(results, regressions, previous?.date);
    phase(`done: wrote ${resultsPath} and ${chartPath}`);
    return plan.mode === "full" && failures > 0 ? 1 : 0;
  } finally {
    db.close();
    await dynamo.close();
  }
}

process.exitCode = await main();
