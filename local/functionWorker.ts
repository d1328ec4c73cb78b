/**
 * One Lambda "container" (execution environment) for local/functionPool.ts: a worker thread that
 * imports one function bundle with its own environment (the Worker's `env`, so the host process's
 * `process.env` is never touched) and runs the invocations the pool sends it, one at a time.
 *
 * The function's stdout and stderr travel over the same port as its results, so a request's log
 * line always reaches the host's stdout before the host answers the request.
 */
import { getHeapStatistics } from "node:v8";
import { parentPort, workerData } from "node:worker_threads";
import type { Handler } from "aws-lambda";
import { lambdaContext } from "./apiGateway.ts";
import type { FromWorker, FunctionError, ToWorker, WorkerSetup } from "./functionProtocol.ts";
import { serializeError } from "./functionProtocol.ts";

const port = parentPort;
if (!port) throw new Error("local/functionWorker.ts runs only as a worker thread");
const setup = workerData as WorkerSetup;
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

let handler: Handler | undefined;
let initError: FunctionError | undefined;
try {
  const module = (await import(setup.bundleUrl)) as Record<string, unknown>;
  const exported = module[setup.handlerExport];
  if (typeof exported !== "function")
    throw new Error(`${setup.bundleUrl} does not export "${setup.handlerExport}"`);
  handler = exported as Handler;
  post({ type: "ready" });
} catch (error) {
  // The pool ends a container whose init failed; the next invocation starts a new one, as Lambda does.
  initError = serializeError(error);
  post({ type: "init-error", error: initError });
}

port.on("message", (message: ToWorker) => {
  void invoke(message);
});

/** This isolate's heap, for REPORT's Max Memory Used (the host's RSS is every container's). */
function memoryMb(): number {
  const heap = getHeapStatistics();
  return Math.ceil((heap.total_heap_size + heap.external_memory) / 2 ** 20);
}

async function invoke({ requestId, event }: ToWorker): Promise<void> {
  if (!handler) {
    post({ type: "error", error: initError ?? serializeError("no handler"), memoryMb: memoryMb() });
    return;
  }
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
    post({ type: "error", error: serializeError(error), memoryMb: memoryMb() });
  }
}
