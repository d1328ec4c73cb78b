/** The bench's human output: the console table, the Markdown tables for the docs, and targets. */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import * as prettier from "prettier";
import type { Variant } from "./bundle.ts";
import type { FunctionRow, Regression, Results, ScaleRow } from "./results.ts";
import { lambdaResultLimitBytes, ratio } from "./results.ts";

const ms = (value: number): string =>
  value >= 100
    ? `${value.toFixed(0)} ms`
    : value >= 10
      ? `${value.toFixed(1)} ms`
      : `${value.toFixed(2)} ms`;
const kb = (bytes: number): string => `${(bytes / 1000).toFixed(1)} KB`;
const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(2)} MB`;
const x = (value: number): string => `${value.toFixed(2)}×`;

type Cell = string;
const functionColumns = [
  "bundle",
  "import",
  "1st invocation",
  "warm p50",
  "warm p99",
  "warm CPU",
  "peak RSS",
];

function functionCells(row: FunctionRow): Cell[] {
  return [
    kb(row.bundleBytes),
    ms(row.importMs.value),
    ms(row.firstMs.value),
    ms(row.warmP50Ms.value),
    ms(row.warmP99Ms.value),
    ms(row.warmCpuMs.value),
    `${row.peakRssMb.value.toFixed(1)} MB`,
  ];
}

function ratioCells(ours: FunctionRow, other: FunctionRow): Cell[] {
  return [
    x(ratio(ours.bundleBytes, other.bundleBytes)),
    x(ratio(ours.importMs.value, other.importMs.value)),
    x(ratio(ours.firstMs.value, other.firstMs.value)),
    x(ratio(ours.warmP50Ms.value, other.warmP50Ms.value)),
    x(ratio(ours.warmP99Ms.value, other.warmP99Ms.value)),
    x(ratio(ours.warmCpuMs.value, other.warmCpuMs.value)),
    x(ratio(ours.peakRssMb.value, other.peakRssMb.value)),
  ];
}

const ratioPairs: readonly (readonly [Variant, Variant])[] = [
  ["ours", "limit"],
  ["ours", "typical"],
  ["deployed", "ours"],
];

function functionTable(results: Results): Cell[][] {
  const table: Cell[][] = [["function", "variant", ...functionColumns]];
  const fns = [...new Set(results.functions.map((row) => row.fn))];
  for (const fn of fns) {
    const rows = results.functions.filter((row) => row.fn === fn);
    for (const row of rows) table.push([fn, row.variant, ...functionCells(row)]);
    for (const [top, bottom] of ratioPairs) {
      const a = rows.find((row) => row.variant === top);
      const b = rows.find((row) => row.variant === bottom);
      if (a && b) table.push([fn, `${top} / ${bottom}`, ...ratioCells(a, b)]);
    }
  }
  return table;
}

const scaleColumns = [
  "categories",
  "variant",
  "accept-encoding",
  "status",
  "handler",
  "per 1,000",
  "CPU",
  "peak RSS",
  "JSON",
  "sent",
  "result < 6 MB",
];

function scaleCells(row: ScaleRow): Cell[] {
  return [
    row.count.toLocaleString("en-US"),
    row.variant,
    row.encoding,
    String(row.status),
    ms(row.handlerMs.value),
    ms((row.handlerMs.value / row.count) * 1000),
    ms(row.cpuMs.value),
    `${row.peakRssMb.toFixed(1)} MB`,
    mb(row.plainBytes),
    row.encoding === "none" ? "" : mb(row.bodyBytes),
    row.status !== 200
      ? "refused (406)"
      : row.resultBytes < lambdaResultLimitBytes
        ? `yes (${mb(row.resultBytes)})`
        : `NO (${mb(row.resultBytes)})`,
  ];
}

function scaleTable(results: Results): Cell[][] {
  return [scaleColumns, ...results.scaling.map(scaleCells)];
}

function targetTable(results: Results): Cell[][] {
  return [
    ["target", "measured", "limit", "met"],
    ...results.targets.map((t) => [
      t.name,
      t.value,
      t.limit,
      t.required ? (t.met ? "yes" : "NO") : t.met ? "yes (info)" : "no (info)",
    ]),
  ];
}

function text(table: readonly Cell[][]): string {
  const widths = (table[0] ?? []).map((_, column) =>
    Math.max(...table.map((row) => (row[column] ?? "").length)),
  );
  return table
    .map((row) =>
      row
        .map((cell, column) => {
          const width = widths[column] ?? 0;
          return column < 2 ? cell.padEnd(width) : cell.padStart(width);
        })
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

function markdown(table: readonly Cell[][]): string {
  const [head = [], ...body] = table;
  const line = (row: readonly Cell[]): string => `| ${row.join(" | ")} |`;
  const rule = `|${head.map((_, column) => (column < 2 ? " --- " : " ---: ")).join("|")}|`;
  return [line(head), rule, ...body.map(line)].join("\n");
}

/** The Markdown the full run puts between the bench markers of README.md (its Performance section). */
export function markdownTables(results: Results): string {
  const { machine } = results;
  return [
    `Measured ${results.date.slice(0, 10)} by \`npm run bench\` (${results.durationSeconds.toFixed(0)} s) on ${machine.cpus} × ${machine.cpuModel}, Node ${machine.node}.`,
    "",
    markdown(functionTable(results)),
    "",
    ...(deployedLine(results) ? [deployedLine(results), ""] : []),
    markdown(scaleTable(results)),
    "",
    markdown(targetTable(results)),
  ].join("\n");
}

export const beginMarker = "<!-- bench:begin (written by npm run bench) -->";
export const endMarker = "<!-- bench:end -->";

/**
 * Replaces what is between the markers, if the file has them (leaves it alone otherwise), and
 * formats the file with the project's Prettier settings, so `npm run lint` stays green.
 */
export async function updateMarkedSection(path: string, content: string): Promise<void> {
  if (!existsSync(path)) return;
  const current = readFileSync(path, "utf8");
  const begin = current.indexOf(beginMarker);
  const end = current.indexOf(endMarker);
  if (begin < 0 || end < begin) return;
  const replaced = `${current.slice(0, begin + beginMarker.length)}\n\n${content}\n\n${current.slice(end)}`;
  const options = (await prettier.resolveConfig(path)) ?? {};
  const next = await prettier.format(replaced, { ...options, filepath: path });
  if (next !== current) writeFileSync(path, next);
}

function deployedLine(results: Results): string {
  const options = results.settings.deployedNodeOptions;
  return typeof options === "string" && options !== ""
    ? `"deployed" is our bundle run with NODE_OPTIONS="${options}", as infra/template.yaml sets it.`
    : "";
}

function percent(value: number): string {
  return `${value >= 0 ? "+" : ""}${(value * 100).toFixed(1)} %`;
}

/**
 * Prints everything and returns how many targets were missed plus how many regressions have no
 * note in bench/notes.json.
 */
export function printReport(
  results: Results,
  regressions: readonly Regression[],
  previousDate: string | undefined,
): number {
  const out = (line = ""): void => {
    process.stdout.write(`${line}\n`);
  };
  out();
  out(
    `Functions (medians; ${results.mode} mode; warm: ${results.functions[0]?.invocations ?? 0} invocations per variant)`,
  );
  out(text(functionTable(results)));
  const deployedNote = deployedLine(results);
  if (deployedNote) out(deployedNote);
  out();
  out("List scaling (the list function, one process per row)");
  out(text(scaleTable(results)));
  out();
  out("Targets");
  out(text(targetTable(results)));
  out();
  if (previousDate !== undefined) {
    out(`Against the previous bench/results.json (${previousDate}), net of the machine's drift:`);
    if (regressions.length === 0) out("  no figure worse by more than its noise allowance");
    for (const r of regressions) {
      const drift =
        r.drift === undefined ? "" : `, limit ${percent(r.drift)}, net ${percent(r.adjusted)}`;
      const note = r.note === undefined ? "" : `: ${r.note}`;
      out(
        `  ${r.note === undefined ? "REGRESSION" : "noted"}  ${r.id}: ${r.before} → ${r.after} ${r.unit} (${percent(r.change)}${drift}; allowance ${percent(r.allowance)})${note}`,
      );
    }
  } else if (results.mode === "full") {
    out("No previous full bench/results.json to compare with.");
  }
  const missed = results.targets.filter((t) => t.required && !t.met).length;
  const unexplained = regressions.filter((r) => r.note === undefined).length;
  out();
  if (results.mode === "quick") {
    out("Quick mode: figures are informational; the benchmark ran and every answer was right.");
  } else {
    out(
      missed === 0 && unexplained === 0
        ? "Every target met; no unexplained regression."
        : `${missed} target(s) missed, ${unexplained} unexplained regression(s): explain each in bench/notes.json as "<figure id>": { "upTo": <new value>, "why": "..." }.`,
    );
  }
  return missed + unexplained;
}
