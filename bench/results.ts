/**
 * The bench's results: the summary written to bench/results.json, the targets from the issue
 * (each met or not), and the comparison with the previous results.json, figure by figure, with a
 * noise allowance so that chance never reads as a regression and a regression never hides in it.
 */
import type { BenchFunction, Variant } from "./bundle.ts";

export type Encoding = "none" | "gzip" | "br";

export interface Measured {
  /** Median of the samples. */
  readonly value: number;
  /** Relative noise of that median (0.05 = ±5 %), see stats.medianNoise. */
  readonly noise: number;
  readonly samples: number;
}

export interface FunctionRow {
  readonly fn: BenchFunction;
  readonly variant: Variant;
  readonly bundleBytes: number;
  readonly importMs: Measured;
  readonly firstMs: Measured;
  readonly warmP50Ms: Measured;
  readonly warmP99Ms: Measured;
  /** CPU time of the function's process per warm invocation (the store runs elsewhere). */
  readonly warmCpuMs: Measured;
  readonly peakRssMb: Measured;
  readonly invocations: number;
}

export interface ScaleRow {
  readonly count: number;
  readonly variant: Variant;
  readonly encoding: Encoding;
  readonly status: number;
  readonly handlerMs: Measured;
  /**
   * CPU of the function's process during the invocation (the store runs in another process):
   * the part of the handler time that is the function's own work, and the steadier figure.
   */
  readonly cpuMs: Measured;
  readonly peakRssMb: number;
  /** The JSON text. */
  readonly plainBytes: number;
  /** The body as returned: base64 of the compressed bytes when compressed. */
  readonly bodyBytes: number;
  /** The serialized invocation result, which Lambda's 6 MB limit counts. */
  readonly resultBytes: number;
  readonly categories: number;
}

export interface Target {
  readonly name: string;
  readonly value: string;
  readonly limit: string;
  readonly met: boolean;
  /** False for the as-deployed figures: shown against the same limits, not required. */
  readonly required: boolean;
}

export type FigureKind = "time" | "cold" | "tail" | "memory" | "listMemory" | "bytes";

export interface Figure {
  readonly id: string;
  readonly value: number;
  readonly unit: string;
  readonly noise: number;
  readonly kind: FigureKind;
  /**
   * The limit's value of the same figure in the same run. The limit shares no code with the
   * service, so its change between two runs is the machine's drift, which is taken out before
   * two runs are compared.
   */
  readonly control?: number;
  /** The control's own noise, which its correction adds to the allowance. */
  readonly controlNoise?: number;
}

export interface Results {
  readonly version: 1;
  readonly mode: "full" | "quick";
  readonly date: string;
  readonly machine: { readonly node: string; readonly cpus: number; readonly cpuModel: string };
  readonly durationSeconds: number;
  readonly settings: Readonly<Record<string, number | string>>;
  readonly functions: readonly FunctionRow[];
  readonly scaling: readonly ScaleRow[];
  readonly targets: readonly Target[];
  /** The service's own figures, flat, for the next run to compare with. */
  readonly figures: readonly Figure[];
}

/** Lambda's limit on a synchronous invocation's serialized result. */
export const lambdaResultLimitBytes = 6 * 1024 * 1024;
export const bundleLimitBytes = 150 * 1000;

export function ratio(a: number, b: number): number {
  return b > 0 ? a / b : Number.POSITIVE_INFINITY;
}

function row(rows: readonly FunctionRow[], fn: BenchFunction, variant: Variant): FunctionRow {
  const found = rows.find((r) => r.fn === fn && r.variant === variant);
  if (!found) throw new Error(`no figures for ${variant} ${fn}`);
  return found;
}

const x = (value: number): string => `${value.toFixed(2)}×`;

export function targetsOf(
  rows: readonly FunctionRow[],
  scaling: readonly ScaleRow[],
  fns: readonly BenchFunction[],
): Target[] {
  const targets: Target[] = [];
  for (const fn of fns) {
    const ours = row(rows, fn, "ours");
    const limit = row(rows, fn, "limit");
    const typical = row(rows, fn, "typical");
    const importRatio = ratio(ours.importMs.value, typical.importMs.value);
    const p50Ratio = ratio(ours.warmP50Ms.value, limit.warmP50Ms.value);
    const rssRatio = ratio(ours.peakRssMb.value, limit.peakRssMb.value);
    targets.push(
      {
        name: `${fn}: import time vs typical`,
        value: x(importRatio),
        limit: "≤ 0.20×",
        met: importRatio <= 0.2,
        required: true,
      },
      {
        name: `${fn}: bundle size`,
        value: `${(ours.bundleBytes / 1000).toFixed(1)} KB`,
        limit: "≤ 150 KB",
        met: ours.bundleBytes <= bundleLimitBytes,
        required: true,
      },
      {
        name: `${fn}: warm p50 vs limit`,
        value: x(p50Ratio),
        limit: "≤ 1.30×",
        met: p50Ratio <= 1.3,
        required: true,
      },
      {
        name: `${fn}: peak RSS vs limit`,
        value: x(rssRatio),
        limit: "≤ 1.25×",
        met: rssRatio <= 1.25,
        required: true,
      },
    );
    const deployed = rows.find((r) => r.fn === fn && r.variant === "deployed");
    if (deployed) {
      const deployedImport = ratio(deployed.importMs.value, typical.importMs.value);
      const deployedRss = ratio(deployed.peakRssMb.value, limit.peakRssMb.value);
      targets.push(
        {
          name: `${fn}: as deployed, import time vs typical`,
          value: x(deployedImport),
          limit: "≤ 0.20×",
          met: deployedImport <= 0.2,
          required: false,
        },
        {
          name: `${fn}: as deployed, peak RSS vs limit`,
          value: x(deployedRss),
          limit: "≤ 1.25×",
          met: deployedRss <= 1.25,
          required: false,
        },
      );
    }
  }
  targets.push(...scalingTargets(scaling));
  return targets;
}

function scalingTargets(scaling: readonly ScaleRow[]): Target[] {
  const ours = scaling.filter((r) => r.variant === "ours");
  const counts = [...new Set(ours.map((r) => r.count))].sort((a, b) => a - b);
  const largest = counts.at(-1) ?? 0;
  const middle = counts.at(-2) ?? largest;
  const perItem = (count: number): number => {
    const found = ours.find((r) => r.count === count && r.encoding === "br");
    return found ? found.handlerMs.value / count : Number.NaN;
  };
  const growth = ratio(perItem(largest), perItem(middle));
  const targets: Target[] = [
    {
      name: `list: time per category, ${largest} vs ${middle} (br)`,
      value: x(growth),
      limit: "≤ 2.00× (linear)",
      met: growth <= 2,
      required: true,
    },
  ];
  for (const encoding of ["br", "gzip"] as const) {
    const found = ours.find((r) => r.count === largest && r.encoding === encoding);
    const whole = found !== undefined && found.status === 200 && found.categories === largest;
    const size = found?.resultBytes ?? Number.POSITIVE_INFINITY;
    targets.push({
      name: `list: ${largest} categories whole, ${encoding}`,
      value: whole ? `${(size / 1e6).toFixed(2)} MB` : `status ${String(found?.status)}`,
      limit: "all, < 6 MB",
      met: whole && size < lambdaResultLimitBytes,
      required: true,
    });
  }
  return targets;
}

/** The service's figures that the next run compares against. */
export function figuresOf(rows: readonly FunctionRow[], scaling: readonly ScaleRow[]): Figure[] {
  const figures: Figure[] = [];
  for (const r of rows.filter((row) => row.variant === "ours" || row.variant === "deployed")) {
    const id = (name: string): string => `${r.fn}.${r.variant}.${name}`;
    const limit = rows.find((row) => row.fn === r.fn && row.variant === "limit");
    const timed = (
      name: string,
      kind: FigureKind,
      unit: string,
      pick: (row: FunctionRow) => Measured,
    ): Figure => ({
      id: id(name),
      unit,
      kind,
      value: pick(r).value,
      noise: pick(r).noise,
      ...(limit && { control: pick(limit).value, controlNoise: pick(limit).noise }),
    });
    figures.push(
      { id: id("bundleBytes"), value: r.bundleBytes, unit: "B", noise: 0, kind: "bytes" },
      timed("importMs", "time", "ms", (row) => row.importMs),
      timed("firstInvocationMs", "cold", "ms", (row) => row.firstMs),
      timed("warmP50Ms", "time", "ms", (row) => row.warmP50Ms),
      timed("warmP99Ms", "tail", "ms", (row) => row.warmP99Ms),
      timed("warmCpuMs", "time", "ms", (row) => row.warmCpuMs),
      timed("peakRssMb", "memory", "MB", (row) => row.peakRssMb),
    );
  }
  for (const r of scaling.filter((row) => row.variant === "ours")) {
    const id = (name: string): string => `list.${r.count}.${r.encoding}.${name}`;
    const limit = scaling.find((row) => row.count === r.count && row.variant === "limit");
    // The function's CPU, not the handler's wall time, which at these sizes is mostly the
    // store's and moves by half between runs on a busy machine.
    figures.push(
      {
        id: id("cpuMs"),
        unit: "ms",
        kind: "time",
        value: r.cpuMs.value,
        noise: r.cpuMs.noise,
        ...(limit && { control: limit.cpuMs.value, controlNoise: limit.cpuMs.noise }),
      },
      {
        id: id("peakRssMb"),
        value: r.peakRssMb,
        unit: "MB",
        noise: 0,
        kind: "listMemory",
        ...(limit && { control: limit.peakRssMb }),
      },
      { id: id("resultBytes"), value: r.resultBytes, unit: "B", noise: 0, kind: "bytes" },
    );
  }
  return figures;
}

/**
 * Floors under the measured noise of a figure, after the drift correction. Measured with
 * repeated full runs of unchanged code on the 2-core bench machine while it was busy with other
 * work: medians of import and warm times moved by up to ~20 %, first invocations by up to ~30 %
 * (one connection and a cold store path each), p99 by up to ~70 %, peak RSS after the warm loop
 * by up to ~5 %, and a single large list's peak RSS by up to ~20 % (brotli's native buffers come
 * and go with the allocator, not the garbage collector). Bytes are deterministic: any growth is a
 * change to explain.
 */
const noiseFloor: Readonly<Record<FigureKind, number>> = {
  time: 0.25,
  cold: 0.4,
  tail: 0.75,
  memory: 0.1,
  listMemory: 0.25,
  bytes: 0,
};

/**
 * bench/notes.json: why a figure got worse, keyed by figure id. A note covers the figure up to
 * the value it explains, so a later, further regression is not hidden by an old note.
 */
export type Notes = Readonly<Record<string, { readonly upTo: number; readonly why: string }>>;

export interface Regression {
  readonly id: string;
  readonly before: number;
  readonly after: number;
  readonly unit: string;
  /** Relative change, 0.2 = 20 % worse. */
  readonly change: number;
  /** The limit's change over the same two runs (the machine's drift), when there is one. */
  readonly drift: number | undefined;
  /** The change with the drift taken out: what is compared with the allowance. */
  readonly adjusted: number;
  readonly allowance: number;
  readonly note: string | undefined;
}

function covering(note: Notes[string] | undefined, value: number): string | undefined {
  return note !== undefined && value <= note.upTo ? note.why : undefined;
}

/** Figures that got worse than the previous run's by more than the noise allows. */
export function regressionsOf(
  previous: readonly Figure[],
  current: readonly Figure[],
  notes: Notes,
): Regression[] {
  const before = new Map(previous.map((figure) => [figure.id, figure]));
  const regressions: Regression[] = [];
  for (const figure of current) {
    const old = before.get(figure.id);
    if (!old || !(old.value > 0)) continue;
    const change = figure.value / old.value - 1;
    const drift =
      figure.control !== undefined && old.control !== undefined && old.control > 0
        ? figure.control / old.control - 1
        : undefined;
    const adjusted = drift === undefined ? change : (1 + change) / (1 + drift) - 1;
    const noise =
      drift === undefined
        ? Math.hypot(old.noise, figure.noise)
        : Math.hypot(old.noise, figure.noise, old.controlNoise ?? 0, figure.controlNoise ?? 0);
    const allowance = Math.max(noiseFloor[figure.kind], noise);
    if (adjusted > allowance) {
      regressions.push({
        id: figure.id,
        before: old.value,
        after: figure.value,
        unit: figure.unit,
        change,
        drift,
        adjusted,
        allowance,
        note: covering(notes[figure.id], figure.value),
      });
    }
  }
  return regressions;
}
