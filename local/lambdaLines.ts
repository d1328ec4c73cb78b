/**
 * Lambda's own lines around each invocation, as CloudWatch shows them for the function's
 * LoggingConfig.LogFormat: in Text, `START RequestId: … Version: $LATEST`, `END RequestId: …` and
 * the tab-separated `REPORT RequestId: … Duration: … Init Duration: …` (Init only on a cold start);
 * in JSON, the `platform.start`, `platform.runtimeDone` and `platform.report` records
 * (docs.aws.amazon.com/lambda/latest/dg/monitoring-cloudwatchlogs-logformat.html).
 */
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
 * A container started ahead of traffic (`warm`, like provisioned concurrency) reports its init
 * when it is ready, and its first invocation has no Init Duration.
 */
export function initLine(format: Format, initMs: number): string {
  if (format === "Text")
    return `INIT_REPORT Init Duration: ${initMs.toFixed(2)} ms\tPhase: init\tStatus: success`;
  const metrics = { durationMs: round(initMs) };
  return record("platform.initReport", {
    initializationType: "provisioned-concurrency",
    phase: "init",
    status: "success",
    metrics,
  });
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
