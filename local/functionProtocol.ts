/** The messages between local/functionHost.ts and local/functionWorker.ts. */
export interface WorkerSetup {
  readonly bundleUrl: string;
  readonly handlerExport: string;
  readonly functionName: string;
  readonly timeoutSeconds: number;
}

/** An error as Lambda reports it to a synchronous caller. */
export interface FunctionError {
  readonly name: string;
  readonly message: string;
  readonly stack: string;
}

export interface ToWorker {
  readonly id: number;
  readonly event: unknown;
}

export type FromWorker =
  | { readonly type: "ready" }
  | { readonly type: "init-error"; readonly error: FunctionError }
  | { readonly type: "stdout" | "stderr"; readonly text: string }
  | { readonly type: "result"; readonly id: number; readonly result: unknown }
  | { readonly type: "error"; readonly id: number; readonly error: FunctionError };

export function serializeError(error: unknown): FunctionError {
  const thrown = error instanceof Error ? error : new Error(String(error));
  return { name: thrown.name, message: thrown.message, stack: thrown.stack ?? "" };
}
