/**
 * One Lambda "container" for the local server and `npm run invoke`: a worker thread that imports
 * one function bundle with its own environment (the Worker's `env`, so the host process's
 * `process.env` is never touched) and runs invocations sent by local/functionHost.ts.
 *
 * The function's stdout and stderr travel over the same port as its results, so a request's log
 * line always reaches the host's stdout before the host answers the request.
 */
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
  // As in Lambda, a failed init fails every invocation of this container with the same error.
  initError = serializeError(error);
  post({ type: "init-error", error: initError });
}

port.on("message", (message: ToWorker) => {
  void invoke(message);
});

async function invoke({ id, event }: ToWorker): Promise<void> {
  if (!handler) {
    post({ type: "error", id, error: initError ?? serializeError("no handler") });
    return;
  }
  try {
    const context = lambdaContext(setup.functionName, setup.timeoutSeconds);
    const result: unknown = await handler(event, context, () => undefined);
    post({ type: "result", id, result });
  } catch (error) {
    post({ type: "error", id, error: serializeError(error) });
  }
}
