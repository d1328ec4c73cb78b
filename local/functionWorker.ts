/**
 * One Lambda "container" (execution environment) for local/functionPool.ts: a worker thread that
 * imports one function bundle with its own environment (the Worker's `env`, so the host process's
 * `process.env` is never touched) and runs the invocations the pool sends it, one at a time. What
 * Lambda's Node.js runtime does inside the environment is done here too: console is patched as
 * its runtime patches it, an error is logged as its runtime logs it, and the environment is frozen
 * between invocations.
 *
 * The function's stdout and stderr travel over the same port as its results, so a request's log
 * line always reaches the host's stdout before the host answers the request.
 */
import { format } from "node:util";
import { getHeapStatistics } from "node:v8";
import { parentPort, workerData } from "node:worker_threads";
import type { Handler } from "aws-lambda";
import { lambdaContext } from "./apiGateway.ts";
import type { ContainerSetup, FromWorker, FunctionError, ToWorker } from "./functionProtocol.ts";
import { memoryMbOf, serializeError } from "./functionProtocol.ts";

const port = parentPort;
if (!port) throw new Error("local/functionWorker.ts runs only as a worker thread");
const setup = workerData as ContainerSetup;
const post = (message: FromWorker): void => {
  port.postMessage(message);
};

for (const stream of ["stdout", "stderr"] as const) {
  process[stream].write = (chunk: string | Uint8Array, ...rest: unknown[]) => {
    post({ type: stream, text: typeof chunk === "string" ? chunk : Buffer.from(chunk).toString() });
    const callback = rest.find((arg): arg is () => void => typeof arg === "function");
    callback?.();
    return true;
  };
}

/**
 * Lambda's Node.js runtime replaces console's methods before it loads the function
 * (aws/aws-lambda-nodejs-runtime-interface-client, src/LogPatch.js), so what a function writes
 * with console reaches CloudWatch wrapped in the function's LogFormat (AWS_LAMBDA_LOG_FORMAT): Text
 * `<time>⇥<request id>⇥<LEVEL>⇥<message>`, JSON `{"timestamp","level","requestId","message"}`,
 * and the levels below AWS_LAMBDA_LOG_LEVEL dropped (JSON only). A Text message's newlines stay:
 * the managed runtime writes each call as one event to Lambda's log descriptor, so CloudWatch
 * shows it as one event over several lines (its stdout fallback, not used in Lambda, would turn
 * them into `\r`). What a function writes to process.stdout itself (lib/log.ts, lib/metrics.ts's
 * EMF) stays a raw line of its own: an EMF document written with console.log would arrive
 * wrapped, and with the JSON format (the template's) CloudWatch would extract no metric from it;
 * here it shows wrapped too.
 */
const levels = ["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"] as const;
type Level = (typeof levels)[number];
const jsonLogs = process.env.AWS_LAMBDA_LOG_FORMAT?.toUpperCase() === "JSON";
/** The invocation running now (undefined during init), as the runtime's log lines name it. */
let currentRequestId: string | undefined;

/** An Error as the runtime's JSON lines give it; anything else as it is. */
function errorFields(_key: string, value: unknown): unknown {
  if (!(value instanceof Error)) return value;
  const { name: errorType } = value.constructor;
  const stackTrace = value.stack?.split("\n") ?? [];
  // Its own enumerable fields too (a `code`, say), as the runtime adds them.
  return Object.assign({ errorType, errorMessage: value.message, stackTrace }, value);
}

function logLine(level: Level, params: readonly unknown[]): string {
  const timestamp = new Date().toISOString();
  if (!jsonLogs) return `${timestamp}\t${String(currentRequestId)}\t${level}\t${format(...params)}`;
  const line = { timestamp, level, requestId: currentRequestId };
  if (params.length === 1) {
    try {
      return JSON.stringify({ ...line, message: params[0] }, errorFields);
    } catch {
      return JSON.stringify({ ...line, message: format(params[0]) });
    }
  }
  const error = params.find((param) => param instanceof Error);
  const errorDetail = error && (errorFields("", error) as Record<string, unknown>);
  return JSON.stringify({
    ...line,
    message: format(...params),
    ...(errorDetail && {
      errorType: errorDetail.errorType,
      errorMessage: errorDetail.errorMessage,
      stackTrace: errorDetail.stackTrace,
    }),
  });
}

const lowest = Math.max(
  0,
  levels.indexOf(process.env.AWS_LAMBDA_LOG_LEVEL?.toUpperCase() as Level),
);
// console's methods and their levels; `log` is `info`, and FATAL is never dropped.
const methods: readonly [string, Level][] = [
  ["trace", "TRACE"],
  ["debug", "DEBUG"],
  ["info", "INFO"],
  ["log", "INFO"],
  ["warn", "WARN"],
  ["error", "ERROR"],
  ["fatal", "FATAL"],
];
for (const [method, level] of methods) {
  const write = (...params: unknown[]): void => {
    process.stdout.write(`${logLine(level, params)}\n`);
  };
  const kept = level === "FATAL" || levels.indexOf(level) >= lowest;
  (console as unknown as Record<string, unknown>)[method] = kept ? write : () => undefined;
}

/**
 * An error as the runtime logs it (its `structuredConsole.logError`): Text, the label and the
 * error's fields after a tab (`Invoke Error ⇥{"errorType":…}`); JSON, the error as the message.
 */
function logRuntimeError(label: string, error: unknown): void {
  const thrown = error instanceof Error ? error : new Error(String(error));
  if (jsonLogs) {
    console.error(thrown);
    return;
  }
  const stack = thrown.stack?.split("\n") ?? [];
  const fields = { errorType: thrown.name, errorMessage: thrown.message };
  let formatted: string;
  try {
    formatted = JSON.stringify(Object.assign({ ...fields }, thrown, { stack }));
  } catch {
    // Fields that do not serialize (a circular one): the name, message and stack only, as the
    // runtime falls back to (its Errors.toFormatted).
    formatted = JSON.stringify({ ...fields, trace: stack });
  }
  console.error(label, `\t${formatted}`);
}

/**
 * Lambda freezes the environment once the function has answered, until the next invocation: a
 * timer, a promise or a socket left running stops, and resumes only when the environment is used
 * again ("Lambda execution environment lifecycle", docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html).
 * A function that counts on work after its answer (an unawaited write, a flush on a timer) shows
 * here as it would in Lambda. The pool counts the invocations it has sent in `sent`; the thread
 * blocks while it has run them all (Atomics.wait: nothing in this thread runs, timers included),
 * and the pool wakes it as it sends the next. Ending the container still works on a frozen one.
 */
const sent = new Int32Array(setup.sent);
let received = 0;
/**
 * Where the container is: loading its bundle, ready for an invocation, or running one that has
 * not answered yet.
 */
let phase: "init" | "ready" | "answering" = "init";

/**
 * Freezes once the current turn is over, as Lambda's runtime asks for its next invocation (its
 * /next) only from a setImmediate after it answered (aws-lambda-nodejs-runtime-interface-client,
 * src/Runtime.js, scheduleIteration): pending microtasks and process.nextTick callbacks run
 * first, and a promise rejected and left unhandled ends the container then. It then tells the
 * pool it is free (`next`: the pool hands it no invocation before). The count is taken now: a
 * next invocation sent meanwhile leaves nothing to wait for.
 */
function freeze(): void {
  const answered = received;
  setImmediate(() => {
    post({ type: "next", answered });
    Atomics.wait(sent, 0, answered);
  });
}

/**
 * A promise rejected and left unhandled, as Lambda's Node.js runtime takes it (its index.mjs and
 * Runtime.js): logged as `Unhandled Promise Rejection` with the type
 * Runtime.UnhandledPromiseRejection; during the init it is the init's error, during an
 * invocation that invocation's (one that has answered keeps its answer); then the runtime exits
 * (status 128) and the container ends. Set before the bundle loads, so its init is covered.
 */
process.on("unhandledRejection", (reason) => {
  const error = new Error(String(reason));
  error.name = "Runtime.UnhandledPromiseRejection";
  logRuntimeError("Unhandled Promise Rejection", error);
  const failure = serializeError(error);
  if (phase === "init") post({ type: "init-error", error: failure });
  if (phase === "answering")
    post({ type: "error", error: failure, memoryMb: memoryMb(), exits: true });
  process.exit(128);
});

let handler: Handler | undefined;
let initError: FunctionError | undefined;
try {
  const module = (await import(setup.bundleUrl)) as Record<string, unknown>;
  const exported = module[setup.handlerExport];
  if (typeof exported !== "function") {
    // The runtime's own error for it (its UserFunction.load).
    const missing = new Error(`${String(process.env._HANDLER)} is undefined or not exported`);
    missing.name = "Runtime.HandlerNotFound";
    throw missing;
  }
  handler = exported as Handler;
} catch (error) {
  // The pool keeps a container whose init failed and runs the init again at its next
  // invocation, as Lambda does (local/functionPool.ts).
  logRuntimeError("Uncaught Exception", error);
  initError = serializeError(error);
  post({ type: "init-error", error: initError });
}

port.on("message", (message: ToWorker) => {
  received += 1;
  void invoke(message);
});
// Ready once the init's turn is over (its microtasks first: a promise it left rejected fails
// the init), then frozen until the first invocation, as Lambda freezes an environment between
// its init and its first invocation (a provisioned one waits for traffic; an on-demand one is
// invoked at once, and thaws at once).
if (handler)
  setImmediate(() => {
    phase = "ready";
    post({ type: "ready" });
    Atomics.wait(sent, 0, received);
  });

/** This isolate's memory, for REPORT's Max Memory Used (the host's RSS is every container's). */
function memoryMb(): number {
  return memoryMbOf(getHeapStatistics());
}

async function invoke({ requestId, event }: ToWorker): Promise<void> {
  if (!handler) {
    post({ type: "error", error: initError ?? serializeError("no handler"), memoryMb: memoryMb() });
    return;
  }
  currentRequestId = requestId;
  phase = "answering";
  try {
    // The context from the container's environment (local/functionPool.ts), as Lambda's runtime
    // reads it: one owner of the function's name, memory and log names.
    const env = process.env as Record<string, string>;
    const context = {
      ...lambdaContext(env.AWS_LAMBDA_FUNCTION_NAME ?? "", setup.timeoutSeconds),
      awsRequestId: requestId,
      functionVersion: env.AWS_LAMBDA_FUNCTION_VERSION ?? "",
      memoryLimitInMB: env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE ?? "",
      logGroupName: env.AWS_LAMBDA_LOG_GROUP_NAME ?? "",
      logStreamName: env.AWS_LAMBDA_LOG_STREAM_NAME ?? "",
    };
    const result: unknown = await handler(event, context, () => undefined);
    post({ type: "result", result, memoryMb: memoryMb() });
  } catch (error) {
    logRuntimeError("Invoke Error", error);
    post({ type: "error", error: serializeError(error), memoryMb: memoryMb() });
  }
  phase = "ready";
  freeze();
}
