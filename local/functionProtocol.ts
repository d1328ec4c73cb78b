/** The messages between local/functionPool.ts and its containers (local/functionWorker.ts). */
export interface WorkerSetup {
  readonly bundleUrl: string;
  readonly handlerExport: string;
  readonly timeoutSeconds: number;
  readonly memorySize: number;
}

/** One container's: its setup, and the count of invocations the pool has sent it (Int32). */
export interface ContainerSetup extends WorkerSetup {
  readonly sent: SharedArrayBuffer;
}

/** An error as Lambda reports it to a synchronous caller. */
export interface FunctionError {
  readonly name: string;
  readonly message: string;
  readonly stack: string;
}

/** One invocation: a container is sent the next only once it has answered this one. */
export interface ToWorker {
  readonly requestId: string;
  readonly event: unknown;
}

export type FromWorker =
  | { readonly type: "ready" }
  /** Free for the next invocation, having answered `answered` (Lambda's runtime calling /next). */
  | { readonly type: "next"; readonly answered: number }
  | { readonly type: "init-error"; readonly error: FunctionError }
  | { readonly type: "stdout" | "stderr"; readonly text: string }
  | { readonly type: "result"; readonly result: unknown; readonly memoryMb: number }
  | {
      readonly type: "error";
      readonly error: FunctionError;
      readonly memoryMb: number;
      /** The runtime exits after it (an unhandled rejection): the container is not reused. */
      readonly exits?: true;
    };

export function serializeError(error: unknown): FunctionError {
  const thrown = error instanceof Error ? error : new Error(String(error));
  return { name: thrown.name, message: thrown.message, stack: thrown.stack ?? "" };
}

/**
 * A container's memory in MB as REPORT's Max Memory Used and the MemorySize bound read it: its
 * isolate's heap and the memory outside it (Buffers, typed arrays), from v8's heap statistics,
 * whether the container reads its own or the pool reads it from outside (Worker.getHeapStatistics).
 */
export function memoryMbOf(heap: {
  readonly total_heap_size: number;
  readonly external_memory: number;
}): number {
  return Math.ceil((heap.total_heap_size + heap.external_memory) / 2 ** 20);
}
