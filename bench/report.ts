/** The bench's console output: calibration, the per-size table, costs and the chosen sizes. */
import { benchFunctions, variants } from "./bundle.ts";
import type { Results, WarmRow } from "./results.ts";
import { headroom, sizingTargets } from "./results.ts";

const ms = (value: number): string => value.toFixed(value >= 100 ? 0 : value >= 10 ? 1 : 2);

/** Columns padded to their widest cell; the first two left-aligned, the rest right-aligned. */
function table(rows: readonly (readonly string[])[]): string {
  const width = (c: number): number => Math.max(...rows.map((row) => (row[c] ?? "").length));
  const pad = (cell: string, c: number): string =>
    c < 2 ? cell.padEnd(width(c)) : cell.padStart(width(c));
  return rows.map((row) => row.map(pad).join("  ").trimEnd()).join("\n");
}

/** One row per size and variant, one column per workload, the cell from `cell`. */
function perSize(
  results: Results,
  shown: readonly string[],
  head: (workload: string) => string,
  cell: (row: WarmRow) => string,
  extra: { head: string[]; cells: (memoryMb: number, variant: string) => string[] },
): string {
  const workloads = [...new Set(results.warm.map((row) => row.workload))];
  const rows = [["size", "variant", ...extra.head, ...workloads.map(head)]];
  for (const memoryMb of [...new Set(results.warm.map((row) => row.memoryMb))]) {
    for (const variant of shown) {
      const at = (w: string): WarmRow | undefined =>
        results.warm.find(
          (r) => r.memoryMb === memoryMb && r.variant === variant && r.workload === w,
        );
      const cells = workloads.map((w) => {
        const row = at(w);
        return row ? cell(row) : "";
      });
      rows.push([`${memoryMb} MB`, variant, ...extra.cells(memoryMb, variant), ...cells]);
    }
  }
  return table(rows);
}

function calibration(results: Results): string {
  if (!results.cpuShareEnforced) {
    return "CPU share NOT enforced (no writable cgroup): every figure below is at FULL SPEED.";
  }
  const rows = results.calibration.map((c) => [
    `${c.memoryMb} MB`,
    c.share.toFixed(3),
    ms(c.wallMs),
    `${c.slowdown.toFixed(2)}×`,
    `${(1 / c.share).toFixed(2)}×`,
    `${c.wallPerCpu.toFixed(2)}×`,
    c.ok ? "ok" : "QUOTA NOT APPLIED",
  ]);
  return [
    `CPU share: cgroup v1 quota = size ÷ 1,769 MB of one core per ${results.periodMs} ms period.`,
    `Calibration: a fixed loop takes ${ms(results.referenceLoopMs)} ms on a full core; under each quota:`,
    table([["size", "share", "loop ms", "slowdown", "expected", "wall/CPU", "check"], ...rows]),
  ].join("\n");
}

export function printReport(results: Results): void {
  const cold = (memoryMb: number, variant: string): string[] =>
    benchFunctions.map((fn) => {
      const row = results.cold.find(
        (r) => r.memoryMb === memoryMb && r.variant === variant && r.fn === fn,
      );
      return row ? `${ms(row.importMs)}+${ms(row.firstMs)}` : "";
    });
  const rss = (memoryMb: number, variant: string): string[] => {
    const own = results.warm.filter((r) => r.memoryMb === memoryMb && r.variant === variant);
    const risk = own.some((r) => r.oomRisk) ? " OOM RISK" : "";
    return [`${Math.max(...own.map((r) => r.peakRssMb)).toFixed(0)} MB${risk}`];
  };
  const units = [...new Set(results.warm.map((r) => r.workload))].map((w) => {
    const row = results.warm.find((r) => r.workload === w && r.variant === "ours");
    return `${w} ${String(row?.readUnits)} RRU + ${String(row?.writeUnits)} WRU`;
  });
  const lines = [
    "",
    `${results.mode} run on ${results.machine}, ${results.date}`,
    calibration(results),
    "",
    `Cold (import+first call) and warm (p50/p99) ms; peak RSS, OOM RISK over ${headroom * 100} % of the size`,
    perSize(
      results,
      variants,
      (w) => `${w} p50/p99`,
      (r) => `${ms(r.p50Ms)}/${ms(r.p99Ms)}`,
      {
        head: ["cold list", "cold create", "peak RSS"],
        cells: (mb, variant) => [...cold(mb, variant), ...rss(mb, variant)],
      },
    ),
    "",
    "Cost per million requests in USD: Lambda arm64 + HTTP API + DynamoDB on-demand (bench/cost.ts)",
    perSize(
      results,
      ["ours", "typical"],
      (w) => w,
      (r) => r.costPerMillion.total.toFixed(2),
      { head: [], cells: () => [] },
    ),
    `Store units per request (ReturnConsumedCapacity): ${units.join("; ")}`,
    "",
    ...results.targets.map((t) => `${t.met ? "met   " : "MISSED"}  ${t.name}: ${t.value}`),
    ...benchFunctions.map((fn) => {
      const { p99Ms, workloads } = sizingTargets[fn];
      return `MemorySize ${fn}: ${results.recommendation[fn]} MB, the cheapest with p99 < ${p99Ms} ms for ${workloads.join(" and ")} and RSS ≤ ${headroom * 100} %`;
    }),
    ...results.findings.map((finding) => `- ${finding}`),
    results.mode === "quick"
      ? "Quick mode: figures are informational; every answer was right."
      : "",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}
