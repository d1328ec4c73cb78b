/** The bench's console output: calibration, the per-size table, costs and the chosen sizes. */
import { benchFunctions, variants } from "./bundle.ts";
import type { Results, WarmRow } from "./results.ts";
import { headroom, sizingTargets } from "./results.ts";

const ms = (value: number): string =>
  Number.isNaN(value)
    ? "-"
    : value >= 100
      ? value.toFixed(0)
      : value >= 10
        ? value.toFixed(1)
        : value.toFixed(2);
const dollars = (value: number): string => `$${value.toFixed(2)}`;

/** Columns padded to their widest cell; the first two left-aligned, the rest right-aligned. */
function table(rows: readonly (readonly string[])[]): string {
  const widths = (rows[0] ?? []).map((_, c) =>
    Math.max(...rows.map((row) => (row[c] ?? "").length)),
  );
  return rows
    .map((row) =>
      row
        .map((cell, c) => (c < 2 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

const workloadsOf = (results: Results): string[] => [
  ...new Set(results.warm.map((row) => row.workload)),
];
const sizesOf = (results: Results): number[] => [
  ...new Set(results.warm.map((row) => row.memoryMb)),
];

function find(
  results: Results,
  memoryMb: number,
  variant: string,
  workload: string,
): WarmRow | undefined {
  return results.warm.find(
    (r) => r.memoryMb === memoryMb && r.variant === variant && r.workload === workload,
  );
}

function latencyTable(results: Results): string {
  const workloads = workloadsOf(results);
  const head = [
    "size",
    "variant",
    "cold create",
    "cold list",
    ...workloads.map((w) => `${w} p50/p99`),
    "peak RSS",
  ];
  const rows = [head];
  for (const memoryMb of sizesOf(results)) {
    for (const variant of variants) {
      const cold = (fn: string): string => {
        const row = results.cold.find(
          (r) => r.memoryMb === memoryMb && r.variant === variant && r.fn === fn,
        );
        return row ? `${ms(row.importMs)}+${ms(row.firstMs)}` : "-";
      };
      const own = results.warm.filter((r) => r.memoryMb === memoryMb && r.variant === variant);
      const peak = Math.max(...own.map((r) => r.peakRssMb));
      const cells = workloads.map((w) => {
        const row = find(results, memoryMb, variant, w);
        return row ? `${ms(row.p50Ms)}/${ms(row.p99Ms)}` : "";
      });
      const risk = own.some((r) => r.oomRisk) ? " OOM RISK" : "";
      rows.push([
        `${memoryMb} MB`,
        variant,
        cold("createCategory"),
        cold("listCategories"),
        ...cells,
        `${peak.toFixed(0)} MB${risk}`,
      ]);
    }
  }
  return table(rows);
}

function costTable(results: Results): string {
  const workloads = workloadsOf(results);
  const rows = [["size", "variant", ...workloads.map((w) => `${w} $/1M`)]];
  for (const memoryMb of sizesOf(results)) {
    for (const variant of ["ours", "typical"]) {
      rows.push([
        `${memoryMb} MB`,
        variant,
        ...workloads.map((w) => {
          const row = find(results, memoryMb, variant, w);
          return row ? dollars(row.costPerMillion.total) : "";
        }),
      ]);
    }
  }
  const units = workloads.map((w) => {
    const row = results.warm.find((r) => r.workload === w && r.variant === "ours");
    return `${w}: ${String(row?.readUnits)} RRU + ${String(row?.writeUnits)} WRU`;
  });
  return `${table(rows)}\nDynamoDB units per request (ours, from ReturnConsumedCapacity): ${units.join("; ")}`;
}

export function printReport(results: Results, periodUs: number): void {
  const out = (line = ""): void => {
    process.stdout.write(`${line}\n`);
  };
  out();
  out(`Machine: ${results.machine}; ${results.mode} mode; ${results.date}`);
  if (!results.cpuShareEnforced)
    out("CPU share NOT enforced (no writable cgroup): every figure is at FULL SPEED.");
  else {
    out(
      `CPU share: cgroup v1 quota = size ÷ 1,769 MB of one core per ${periodUs / 1000} ms period.`,
    );
    out(`Calibration: a fixed loop takes ${ms(results.referenceLoopMs)} ms on a full core.`);
    out(
      table([
        ["size", "share", "loop ms", "slowdown", "expected", "wall/CPU", "check"],
        ...results.calibration.map((c) => [
          `${c.memoryMb} MB`,
          c.share.toFixed(3),
          ms(c.wallMs),
          `${c.slowdown.toFixed(2)}×`,
          `${(1 / c.share).toFixed(2)}×`,
          `${c.wallPerCpu.toFixed(2)}×`,
          c.ok ? "ok" : "QUOTA NOT APPLIED",
        ]),
      ]),
    );
  }
  out();
  out(
    `Warm ms p50/p99 and cold start ms (import+first call), per size. OOM RISK: peak RSS over ${headroom * 100} % of the size.`,
  );
  out(latencyTable(results));
  out();
  out(
    "Cost per million requests (Lambda arm64 + HTTP API + DynamoDB on-demand; prices in bench/cost.ts)",
  );
  out(costTable(results));
  out();
  for (const target of results.targets)
    out(`${target.met ? "met   " : "MISSED"}  ${target.name}: ${target.value}`);
  for (const fn of benchFunctions) {
    const target = sizingTargets[fn];
    out(
      `MemorySize ${fn}: ${results.recommendation[fn]} MB (cheapest with p99 < ${target.p99Ms} ms for ${target.workloads.join(" and ")}, RSS ≤ ${headroom * 100} %)`,
    );
  }
  for (const finding of results.findings) out(`- ${finding}`);
  if (results.mode === "quick")
    out("Quick mode: the figures are informational; the benchmark ran and every answer was right.");
}
