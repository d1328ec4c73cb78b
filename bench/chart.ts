/**
 * bench/chart.svg, written by hand (no charting dependency): grouped bars per figure for the
 * three variants, and the list's scaling as lines against the number of categories.
 */
import type { Variant } from "./bundle.ts";
import type { FunctionRow, Results, ScaleRow } from "./results.ts";
import { lambdaResultLimitBytes } from "./results.ts";

const colours: Readonly<Record<Variant, string>> = {
  ours: "#2563eb",
  deployed: "#93c5fd",
  limit: "#9ca3af",
  typical: "#f59e0b",
};
const variantsInOrder: readonly Variant[] = ["ours", "deployed", "limit", "typical"];
const font = "font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif";

function escape(textValue: string): string {
  return textValue.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function label(
  x: number,
  y: number,
  content: string,
  options: {
    size?: number;
    anchor?: "start" | "middle" | "end";
    weight?: number;
    fill?: string;
  } = {},
): string {
  return `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" font-size="${options.size ?? 11}" text-anchor="${options.anchor ?? "start"}" font-weight="${options.weight ?? 400}" fill="${options.fill ?? "#111827"}">${escape(content)}</text>`;
}

/** An axis from 0 to 4 equal steps of 1, 2, 2.5 or 5 × 10^k, the smallest that holds `value`. */
function niceAxis(value: number): { max: number; digits: number } {
  if (!(value > 0)) return { max: 1, digits: 2 };
  const power = 10 ** Math.floor(Math.log10(value / 4));
  const step = [1, 2, 2.5, 5, 10].map((factor) => factor * power).find((s) => 4 * s >= value);
  const chosen = step ?? 10 * power;
  const digits = Math.max(
    0,
    -Math.floor(Math.log10(chosen) + 1e-9) + (chosen / power === 2.5 ? 1 : 0),
  );
  return { max: 4 * chosen, digits };
}

/** Bar labels: short, the table has the exact figures. */
function formatValue(value: number): string {
  if (value >= 10) return value.toFixed(0);
  if (value >= 1) return value.toFixed(1);
  return value.toFixed(2);
}

interface Frame {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

function axes(
  frame: Frame,
  title: string,
  axis: { max: number; digits: number },
  scale = 1,
): string[] {
  const { max, digits } = axis;
  const parts = [label(frame.x, frame.y - 10, title, { size: 12, weight: 600 })];
  for (let i = 0; i <= 4; i++) {
    const value = (max * i) / 4;
    const y = frame.y + frame.height - (frame.height * i) / 4;
    parts.push(
      `<line x1="${frame.x}" x2="${frame.x + frame.width}" y1="${y.toFixed(1)}" y2="${y.toFixed(1)}" stroke="#e5e7eb"/>`,
      label(frame.x - 4, y + 3, (value / scale).toFixed(digits), {
        size: 9,
        anchor: "end",
        fill: "#6b7280",
      }),
    );
  }
  return parts;
}

function barPanel(
  frame: Frame,
  title: string,
  rows: readonly FunctionRow[],
  value: (row: FunctionRow) => number,
): string {
  const fns = [...new Set(rows.map((row) => row.fn))];
  const axis = niceAxis(Math.max(...rows.map(value)) * 1.1);
  const max = axis.max;
  const parts = axes(frame, title, axis);
  const shown = variantsInOrder.filter((variant) => rows.some((row) => row.variant === variant));
  const groupWidth = frame.width / fns.length;
  const barWidth = (groupWidth * 0.84) / shown.length;
  fns.forEach((fn, group) => {
    const left = frame.x + group * groupWidth + groupWidth * 0.08;
    shown.forEach((variant, index) => {
      const row = rows.find((candidate) => candidate.fn === fn && candidate.variant === variant);
      if (!row) return;
      const height = (value(row) / max) * frame.height;
      const x = left + index * barWidth;
      const y = frame.y + frame.height - height;
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${(barWidth - 2).toFixed(1)}" height="${height.toFixed(1)}" fill="${colours[variant]}"><title>${escape(`${variant} ${fn}: ${formatValue(value(row))}`)}</title></rect>`,
        label(x + barWidth / 2 - 1, y - 3, formatValue(value(row)), { size: 9, anchor: "middle" }),
      );
    });
    parts.push(
      label(left + (barWidth * shown.length) / 2, frame.y + frame.height + 13, fn, {
        size: 10,
        anchor: "middle",
        fill: "#374151",
      }),
    );
  });
  return parts.join("\n");
}

interface Series {
  readonly name: string;
  readonly colour: string;
  readonly dashed: boolean;
  readonly points: readonly (readonly [number, number])[];
}

function linePanel(
  frame: Frame,
  title: string,
  series: readonly Series[],
  /** Tick labels show value / scale (1e6: bytes as MB). */
  scale: number,
  limitLine?: { value: number; text: string },
): string {
  const xs = series.flatMap((s) => s.points.map(([px]) => px));
  const ys = series.flatMap((s) => s.points.map(([, py]) => py));
  const xMax = Math.max(...xs, 1);
  const axis = niceAxis((Math.max(...ys, limitLine?.value ?? 0) * 1.1) / scale);
  const yMax = axis.max * scale;
  const parts = axes(frame, title, { max: yMax, digits: axis.digits }, scale);
  const px = (value: number): number => frame.x + (value / xMax) * frame.width;
  const py = (value: number): number => frame.y + frame.height - (value / yMax) * frame.height;
  for (const count of [...new Set(xs)]) {
    parts.push(
      label(px(count), frame.y + frame.height + 13, count.toLocaleString("en-US"), {
        size: 9,
        anchor: "middle",
        fill: "#6b7280",
      }),
    );
  }
  parts.push(
    label(frame.x + frame.width, frame.y + frame.height + 26, "categories", {
      size: 9,
      anchor: "end",
      fill: "#6b7280",
    }),
  );
  if (limitLine) {
    const y = py(limitLine.value);
    parts.push(
      `<line x1="${frame.x}" x2="${frame.x + frame.width}" y1="${y.toFixed(1)}" y2="${y.toFixed(1)}" stroke="#dc2626" stroke-dasharray="6 3"/>`,
      label(frame.x + frame.width - 4, y - 4, limitLine.text, {
        size: 9,
        anchor: "end",
        fill: "#dc2626",
      }),
    );
  }
  series.forEach((s, index) => {
    const path = s.points
      .map(([x, y], i) => `${i === 0 ? "M" : "L"}${px(x).toFixed(1)},${py(y).toFixed(1)}`)
      .join(" ");
    parts.push(
      `<path d="${path}" fill="none" stroke="${s.colour}" stroke-width="2"${s.dashed ? ' stroke-dasharray="4 3"' : ""}/>`,
      ...s.points.map(
        ([x, y]) =>
          `<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="2.5" fill="${s.colour}"/>`,
      ),
    );
    const legendY = frame.y + 12 + index * 13;
    parts.push(
      `<line x1="${frame.x + 8}" x2="${frame.x + 26}" y1="${legendY - 3}" y2="${legendY - 3}" stroke="${s.colour}" stroke-width="2"${s.dashed ? ' stroke-dasharray="4 3"' : ""}/>`,
      label(frame.x + 30, legendY, s.name, { size: 9 }),
    );
  });
  return parts.join("\n");
}

function scaleSeries(
  scaling: readonly ScaleRow[],
  pick: (row: ScaleRow) => number | undefined,
): Series[] {
  const cases: readonly [Variant, ScaleRow["encoding"], string][] = [
    ["ours", "br", "ours, br"],
    ["ours", "gzip", "ours, gzip"],
    ["ours", "none", "ours, uncompressed"],
    ["limit", "none", "limit (uncompressed)"],
    ["typical", "none", "typical (uncompressed)"],
  ];
  return cases
    .map(([variant, encoding, name]) => {
      const points = scaling
        .filter((row) => row.variant === variant && row.encoding === encoding)
        .flatMap((row) => {
          const value = pick(row);
          return value === undefined ? [] : [[row.count, value] as const];
        });
      return {
        name,
        colour: colours[variant],
        dashed: variant === "ours" && encoding !== "br",
        points,
      };
    })
    .filter((s) => s.points.length > 0);
}

const variantNames: Readonly<Record<Variant, string>> = {
  ours: "ours (npm run build)",
  deployed: "ours + template NODE_OPTIONS",
  limit: "limit (bare handler, same store calls)",
  typical: "typical (middy + AWS SDK v3)",
};

export function renderChart(results: Results): string {
  const width = 960;
  const height = 590;
  const rows = results.functions;
  const panelWidth = 180;
  const [importFrame, firstFrame, warmFrame, rssFrame] = [0, 1, 2, 3].map((index) => ({
    x: 50 + index * (panelWidth + 60),
    y: 105,
    width: panelWidth,
    height: 160,
  })) as [Frame, Frame, Frame, Frame];
  const timeFrame: Frame = { x: 60, y: 345, width: 380, height: 190 };
  const bytesFrame: Frame = { x: 550, y: 345, width: 380, height: 190 };
  const shown = variantsInOrder.filter((variant) => rows.some((row) => row.variant === variant));
  const legend = shown.map((variant, index) => {
    const x = 20 + index * 235;
    return `<rect x="${x}" y="58" width="12" height="12" fill="${colours[variant]}"/>${label(x + 17, 68, variantNames[variant])}`;
  });
  const settings = `${results.date.slice(0, 10)} · ${results.machine.cpus} cores · Node ${results.machine.node} · medians of fresh processes (import, first invocation) and of ${rows[0]?.invocations ?? 0} warm invocations`;
  const body = [
    label(20, 26, "Pet Store categories API: ours vs the limit vs the typical stack", {
      size: 15,
      weight: 700,
    }),
    label(20, 43, settings, { size: 10, fill: "#6b7280" }),
    ...legend,
    barPanel(importFrame, "Import (init), ms", rows, (row) => row.importMs.value),
    barPanel(firstFrame, "First invocation, ms", rows, (row) => row.firstMs.value),
    barPanel(warmFrame, "Warm p50, ms", rows, (row) => row.warmP50Ms.value),
    barPanel(rssFrame, "Peak RSS, MB", rows, (row) => row.peakRssMb.value),
    linePanel(
      timeFrame,
      "List: handler time, ms",
      scaleSeries(results.scaling, (row) => row.handlerMs.value),
      1,
    ),
    linePanel(
      bytesFrame,
      "List: serialized result, MB",
      scaleSeries(results.scaling, (row) => (row.status === 200 ? row.resultBytes : undefined)),
      1e6,
      { value: lambdaResultLimitBytes, text: "Lambda response limit (6 MiB)" },
    ),
  ];
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" style="${font}">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    ...body,
    "</svg>",
    "",
  ].join("\n");
}
