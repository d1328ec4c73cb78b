/**
 * What the local server prints per request. By default (LOG_FORMAT=text) one readable line,
 * `GET /v1/categories 200 4 ms <request id>`, written by the gateway once it has answered; the
 * functions' own lines (the JSON request log, the EMF metrics) are left out, except an ERROR
 * line's `detail`, which follows its request's line. LOG_FORMAT=json prints the functions'
 * lines as they are, with Lambda's START, END and REPORT lines (local/lambdaLines.ts), as
 * CloudWatch receives them, and nothing else (the tests and `npm run load` read them).
 */
import type { FunctionOutput } from "./functionPool.ts";
import type { Handled } from "./gateway.ts";

export const logFormats = ["text", "json"] as const;
export type LogFormat = (typeof logFormats)[number];

/** LOG_FORMAT as the local server reads it; throws with what to set otherwise. */
export function logFormatOf(env: Readonly<Record<string, string | undefined>>): LogFormat {
  const value = env.LOG_FORMAT || "text";
  if ((logFormats as readonly string[]).includes(value)) return value as LogFormat;
  throw new Error(`LOG_FORMAT must be text or json, not "${value}"`);
}

/**
 * One request as the terminal shows it: `GET /v1/categories 200 4.2 ms <request id>`, and what
 * Lambda did apart from running it: `(cold start 180 ms)`, `(throttled)`, `(timeout)`,
 * `(out-of-memory)`.
 */
export function requestLine(handled: Handled): string {
  const { method, path, status, ms, requestId, note } = handled;
  const shown = path.length > 100 ? `${path.slice(0, 100)}…` : path;
  const time = ms < 10 ? ms.toFixed(1) : String(Math.round(ms));
  return `${method} ${shown} ${status} ${time} ms ${requestId ?? "-"}${note ? ` ${note}` : ""}`;
}

/**
 * The functions' output for the text format: their JSON request log and EMF lines left out, an
 * ERROR line's detail kept (indented, with its request id); anything else passes as it is.
 */
export function quietFunctionOutput(output: FunctionOutput): FunctionOutput {
  let rest = "";
  return {
    stdout: (text) => {
      const lines = (rest + text).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) {
        const kept = quietLine(line);
        if (kept !== undefined) output.stdout(`${kept}\n`);
      }
    },
    stderr: output.stderr,
  };
}

function quietLine(line: string): string | undefined {
  if (!line.startsWith("{")) return line;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return line;
  }
  if (typeof parsed !== "object" || parsed === null) return line;
  const entry = parsed as Record<string, unknown>;
  if ("_aws" in entry) return undefined;
  if (typeof entry.requestId !== "string" || typeof entry.status !== "number") return line;
  if (typeof entry.detail !== "string") return undefined;
  const level = typeof entry.level === "string" ? entry.level : "ERROR";
  return `  ${entry.requestId} ${level}: ${entry.detail.replaceAll("\n", "\n    ")}`;
}
