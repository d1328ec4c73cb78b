/**
 * Lambda's own lines around each invocation, as CloudWatch shows them for the function's
 * LoggingConfig.LogFormat: in Text, `START RequestId: … Version: $LATEST`, `END RequestId: …` and
 * the tab-separated `REPORT RequestId: … Duration: … Init Duration: …` (Init only on a cold start);
 * in JSON, the `platform.start`, `platform.runtimeDone` and `platform.report` records
 * (docs.aws.amazon.com/lambda/latest/dg/monitoring-cloudwatchlogs-logformat.html).
 */
import type { FunctionError } from "./functionProtocol.ts";
import type { FunctionSpec } from "./template.ts";

export interface Report {
  readonly requestId: string;
  /** Which container ran it (1, 2, … per function), for the tests and the terminal. */
  readonly containerId: number;
  readonly durationMs: number;
  /** Set on a container's first invocation only: its cold start. */
  readonly initMs: number | undefined;
  readonly maxMemoryMb: number;
  readonly status: "success" | "error" | "timeout";
  readonly errorType?: string | undefined;
}

type Format = FunctionSpec["logFormat"];

export function startLine(format: Format, requestId: string): string {
  if (format === "Text") return `START RequestId: ${requestId} Version: $LATEST`;
  return record("platform.start", { requestId, version: "$LATEST" });
}

/**
 * The lines around a container's init, those before its output and those after: INIT_START
 * (`platform.initStart`) on every init; after it (and the container's output, which holds the
 * runtime's uncaught exception when the init failed), INIT_REPORT with `Status: error` and the
 * error type when it failed; when it succeeded, INIT_REPORT
 * only for provisioned concurrency (an on-demand init is its first REPORT's Init Duration). Text
 * formats as Lambda writes them: `INIT_START Runtime Version: …⇥Runtime Version ARN: …`
 * (docs.aws.amazon.com/lambda/latest/dg/runtime-management-identify.html) and, as published
 * captures of failed inits show, `INIT_REPORT Init Duration: … ms⇥Phase: init⇥Status: error⇥Error Type: …`; JSON records as the
 * Telemetry API's schema names them (docs.aws.amazon.com/lambda/latest/dg/telemetry-schema-reference.html).
 */
export function initLines(
  spec: FunctionSpec,
  initializationType: "on-demand" | "provisioned-concurrency",
  initMs: number,
  error: FunctionError | undefined,
): [string[], string[]] {
  // Locally there is no managed runtime version: the template's runtime, marked local.
  const runtimeVersion = `${spec.runtime.replace(/^nodejs(\d+)\.x$/, "nodejs:$1")}.local`;
  const runtimeVersionArn = "arn:aws:lambda:local::runtime:local";
  const status = error ? "error" : "success";
  const errorType = error?.name;
  const report = error !== undefined || initializationType === "provisioned-concurrency";
  if (spec.logFormat === "Text") {
    const fields = [`Init Duration: ${initMs.toFixed(2)} ms`, "Phase: init", `Status: ${status}`];
    if (errorType) fields.push(`Error Type: ${errorType}`);
    return [
      [`INIT_START Runtime Version: ${runtimeVersion}\tRuntime Version ARN: ${runtimeVersionArn}`],
      report ? [`INIT_REPORT ${fields.join("\t")}`] : [],
    ];
  }
  const start = record("platform.initStart", {
    initializationType,
    phase: "init",
    runtimeVersion,
    runtimeVersionArn,
    functionName: spec.name,
    functionVersion: "$LATEST",
  });
  const metrics = { durationMs: round(initMs) };
  const initReport = record("platform.initReport", {
    initializationType,
    phase: "init",
    status,
    ...(errorType && { errorType }),
    metrics,
  });
  return [[start], report ? [initReport] : []];
}

/** END and REPORT (after Lambda's timeout line, in Text). */
export function endLines(format: Format, spec: FunctionSpec, report: Report): string[] {
  const { requestId, durationMs, initMs, maxMemoryMb, status, errorType } = report;
  const billed = Math.ceil(durationMs);
  if (format === "JSON") {
    const metrics = {
      durationMs: round(durationMs),
      billedDurationMs: billed,
      memorySizeMB: spec.memorySize,
      maxMemoryUsedMB: maxMemoryMb,
      ...(initMs !== undefined && { initDurationMs: round(initMs) }),
    };
    return [
      record("platform.runtimeDone", { requestId, status }),
      record("platform.report", { requestId, metrics, status, ...(errorType && { errorType }) }),
    ];
  }
  const fields = [
    `REPORT RequestId: ${requestId}`,
    `Duration: ${durationMs.toFixed(2)} ms`,
    `Billed Duration: ${billed} ms`,
    `Memory Size: ${spec.memorySize} MB`,
    `Max Memory Used: ${maxMemoryMb} MB`,
    ...(initMs === undefined ? [] : [`Init Duration: ${initMs.toFixed(2)} ms`]),
    ...(status === "success" ? [] : [`Status: ${status}`]),
    ...(errorType ? [`Error Type: ${errorType}`] : []),
  ];
  const timedOut = `${new Date().toISOString()} ${requestId} Task timed out after ${spec.timeoutSeconds.toFixed(2)} seconds`;
  return [
    ...(status === "timeout" ? [timedOut] : []),
    `END RequestId: ${requestId}`,
    fields.join("\t"),
  ];
}

/** `time` and `type` first: local/serverProcess.ts tells these lines from the functions' by them. */
function record(type: string, fields: Record<string, unknown>): string {
  return JSON.stringify({ time: new Date().toISOString(), type, record: fields });
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
