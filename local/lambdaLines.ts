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

/**
 * A phase that ran past its bound, in Lambda's words: the invocation's Timeout ("Task timed out
 * after 3.00 seconds"), or an init's (its INIT_REPORT then says `Status: timeout`).
 */
export const timedOutName = "Sandbox.Timedout";
export function timedOut(ms: number): FunctionError {
  const message = `Task timed out after ${(ms / 1000).toFixed(2)} seconds`;
  return { name: timedOutName, message, stack: "" };
}

export function startLine(format: Format, requestId: string): string {
  if (format === "Text") return `START RequestId: ${requestId} Version: $LATEST`;
  return record("platform.start", { requestId, version: "$LATEST" });
}

/**
 * The error type Lambda's own lines give a runtime failure: the runtime's when it names one
 * (`Runtime.…`, `Function.…`), else `Runtime.Unknown` (or `Function.Unknown`), as the runtime
 * interface emulator's fatalerror.GetValidRuntimeOrFunctionErrorType scrubs it. A bundle that
 * throws `Error` while it loads is reported `Runtime.Unknown`, as published captures show.
 */
export function platformErrorType(name: string): string {
  if (/(Runtime|Function)\.[A-Z][a-zA-Z]+/.test(name)) return name;
  return name.startsWith("Function.") ? "Function.Unknown" : "Runtime.Unknown";
}

/**
 * The lines around a container's init, those before its output and those after, as the runtime
 * interface emulator writes them (localstack/lambda-runtime-init, cmd/localstack/events.go, whose
 * comments describe AWS's lines): INIT_START (`platform.initStart`) when the init phase starts; after it
 * (and the container's output, which holds the runtime's uncaught exception when it failed),
 * INIT_REPORT with `Status: error` and the scrubbed error type when it failed, a bare INIT_REPORT
 * when a provisioned-concurrency init succeeded, nothing when an on-demand one did (its first
 * REPORT carries the Init Duration). A failed on-demand init is run again within the invocation
 * (`phase` "invoke", a "suppressed init"): no INIT_START, and its INIT_REPORT says `Phase: invoke`.
 * An init past its bound (`timedOut`) reports `Status: timeout` with no error type in its own
 * phase; run again within an invocation and cut by its Timeout, `Status: error⇥Error Type:
 * Runtime.Unknown`, as a published capture shows (2024, a function with a 45 s Timeout:
 * `INIT_REPORT Init Duration: 10337.01 ms⇥Phase: init⇥Status: timeout`, then `INIT_REPORT Init
 * Duration: 45045.69 ms⇥Phase: invoke⇥Status: error⇥Error Type: Runtime.Unknown`, START, `Task
 * timed out after 45.05 seconds`).
 * Text: `INIT_START Runtime Version: …⇥Runtime Version ARN: …`
 * (docs.aws.amazon.com/lambda/latest/dg/runtime-management-identify.html),
 * `INIT_REPORT Init Duration: … ms⇥Phase: init⇥Status: error⇥Error Type: Runtime.Unknown`; JSON
 * records as the Telemetry API's schema names them (docs.aws.amazon.com/lambda/latest/dg/telemetry-schema-reference.html).
 */
export function initLines(
  spec: FunctionSpec,
  initializationType: "on-demand" | "provisioned-concurrency",
  initMs: number,
  error: FunctionError | undefined,
  phase: "init" | "invoke" = "init",
): [string[], string[]] {
  // Locally there is no managed runtime version: the template's runtime, marked local.
  const runtimeVersion = `${spec.runtime.replace(/^nodejs(\d+)\.x$/, "nodejs:$1")}.local`;
  const runtimeVersionArn = "arn:aws:lambda:local::runtime:local";
  const timeout = error?.name === timedOutName && phase === "init";
  const status = timeout ? "timeout" : error ? "error" : "success";
  const errorType = error && !timeout ? platformErrorType(error.name) : undefined;
  const report = error !== undefined || initializationType === "provisioned-concurrency";
  if (spec.logFormat === "Text") {
    const duration = `INIT_REPORT Init Duration: ${initMs.toFixed(2)} ms`;
    const failed = [duration, `Phase: ${phase}`, `Status: ${status}`]
      .concat(errorType ? [`Error Type: ${errorType}`] : [])
      .join("\t");
    return [
      phase === "init"
        ? [
            `INIT_START Runtime Version: ${runtimeVersion}\tRuntime Version ARN: ${runtimeVersionArn}`,
          ]
        : [],
      report ? [error ? failed : duration] : [],
    ];
  }
  const start = record("platform.initStart", {
    initializationType,
    phase,
    runtimeVersion,
    runtimeVersionArn,
    functionName: spec.name,
    functionVersion: "$LATEST",
  });
  const metrics = { durationMs: round(initMs) };
  const initReport = record("platform.initReport", {
    initializationType,
    phase,
    status,
    ...(errorType && { errorType }),
    metrics,
  });
  return [phase === "init" ? [start] : [], report ? [initReport] : []];
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
    ...statusFields(status, errorType),
  ];
  const timedOut = `${new Date().toISOString()} ${requestId} Task timed out after ${spec.timeoutSeconds.toFixed(2)} seconds`;
  return [
    ...(status === "timeout" ? [timedOut] : []),
    `END RequestId: ${requestId}`,
    fields.join("\t"),
  ];
}

/**
 * REPORT's status in Text, as captured from Lambda: a timeout `Status: timeout` alone; a runtime
 * failure (`Runtime.…`: an exit, out of memory, a failed init) `Status: error⇥Error Type: …`; a
 * handler's own error nothing (the runtime logged it, `Invoke Error`, and answered it).
 */
function statusFields(status: Report["status"], errorType: string | undefined): string[] {
  if (status === "timeout") return ["Status: timeout"];
  if (status === "success" || !errorType?.startsWith("Runtime.")) return [];
  return ["Status: error", `Error Type: ${errorType}`];
}

/** `time` and `type` first: local/serverProcess.ts tells these lines from the functions' by them. */
function record(type: string, fields: Record<string, unknown>): string {
  return JSON.stringify({ time: new Date().toISOString(), type, record: fields });
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
