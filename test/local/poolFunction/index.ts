/**
 * A test-only function for the pool's tests (test/local/functionPool.test.ts), run in the pool's
 * containers as a bundle would be: it holds, sleeps or allocates on request, and says what it saw
 * of its container's module state. Never product code.
 */
import { existsSync, writeFileSync } from "node:fs";
import { getHeapStatistics } from "node:v8";

interface Ask {
  /** Milliseconds to hold the invocation open. */
  readonly holdMs?: number;
  /** Allocate and keep this many MiB first (more than MemorySize ends the container). */
  readonly allocateMb?: number;
  /** The same outside the heap: Buffers, which V8's heap limit does not bound. */
  readonly bufferMb?: number;
  /**
   * Buffers of this many MiB held for 1 s (long enough for the pool's reads on a busy machine),
   * then collected (gc) before it answers: a peak.
   */
  readonly peakBufferMb?: number;
  /** Ends the runtime with this exit code (process.exit), as a careless handler may. */
  readonly exitCode?: number;
  /** Writes with console at every level, and a line of its own to stdout. */
  readonly log?: boolean;
  /** Throws an Error with this message. */
  readonly throwMessage?: string;
  /** Leaves a 50 ms timer running past its answer (work Lambda freezes until the next invocation). */
  readonly later?: boolean;
  /** Leaves a promise rejected and unhandled (Lambda's runtime exits on one): while it runs, or past its answer. */
  readonly reject?: "during" | "after";
  /** Throws an Error with a field that refers to itself (JSON.stringify fails on it). */
  readonly circularError?: boolean;
  /** Through the gateway: `?holdMs=…`. */
  readonly queryStringParameters?: { readonly holdMs?: string };
}

/** Module state: one copy per container, as in Lambda. */
let running = 0;
let invocations = 0;
const kept: unknown[] = [];
/** When the timer an invocation (`later`) or the init left running ran (epoch ms; 0: not yet). */
let laterRanAt = 0;

// Its init, as the pool's tests ask for it through the container's environment: a line of
// output, a timer left running, a slow init, an exit, a promise left rejected, or an error (the
// bundle fails to load).
const initEnv = process.env;
if (initEnv.POOL_FUNCTION_INIT_LOG) process.stdout.write(`${initEnv.POOL_FUNCTION_INIT_LOG}\n`);
if (initEnv.POOL_FUNCTION_INIT_LOG_STREAM)
  process.stdout.write(`stream ${String(initEnv.AWS_LAMBDA_LOG_STREAM_NAME)}\n`);
if (initEnv.POOL_FUNCTION_INIT_TIMER) setTimeout(() => (laterRanAt = Date.now()), 50);
if (initEnv.POOL_FUNCTION_INIT_HOLD_MS)
  Atomics.wait(
    new Int32Array(new SharedArrayBuffer(4)),
    0,
    0,
    Number(initEnv.POOL_FUNCTION_INIT_HOLD_MS),
  );
if (initEnv.POOL_FUNCTION_INIT_EXIT) process.exit(Number(initEnv.POOL_FUNCTION_INIT_EXIT));
if (initEnv.POOL_FUNCTION_INIT_REJECT) {
  void Promise.reject(new Error(initEnv.POOL_FUNCTION_INIT_REJECT));
  // A top-level await after it, as a bundle that loads its configuration has.
  await new Promise((done) => setTimeout(done, 1));
}
// With POOL_FUNCTION_INIT_ERROR_ONCE (a file path), only the first init fails: it leaves the file.
const once = initEnv.POOL_FUNCTION_INIT_ERROR_ONCE;
if (initEnv.POOL_FUNCTION_INIT_ERROR && !(once && existsSync(once))) {
  if (once) writeFileSync(once, "failed once\n");
  throw new Error(initEnv.POOL_FUNCTION_INIT_ERROR);
}

/** What Lambda defines in a container's environment (local/functionPool.ts sets them). */
const defined = [
  "AWS_LAMBDA_FUNCTION_NAME",
  "AWS_LAMBDA_FUNCTION_VERSION",
  "AWS_LAMBDA_FUNCTION_MEMORY_SIZE",
  "AWS_LAMBDA_LOG_GROUP_NAME",
  "AWS_LAMBDA_LOG_STREAM_NAME",
  "AWS_LAMBDA_INITIALIZATION_TYPE",
  "AWS_EXECUTION_ENV",
  "LAMBDA_TASK_ROOT",
  "_HANDLER",
  "TZ",
  "AWS_REGION",
  "AWS_DEFAULT_REGION",
];

interface Context {
  readonly functionName: string;
  readonly functionVersion: string;
  readonly memoryLimitInMB: string;
  readonly logGroupName: string;
  readonly logStreamName: string;
}

export async function handler(
  ask: Ask,
  context: Context,
): Promise<{
  running: number;
  invocations: number;
  laterRanAt: number;
  env: object;
  context: object;
  heapLimit: number;
  timeZone: string;
  gc: string;
}> {
  running += 1;
  invocations += 1;
  // Seen at the start, before any await: more than 1 means two invocations share this container.
  const seen = running;
  if (ask.exitCode !== undefined) process.exit(ask.exitCode);
  if (ask.throwMessage !== undefined) throw new Error(ask.throwMessage);
  if (ask.later) setTimeout(() => (laterRanAt = Date.now()), 50);
  if (ask.reject === "during") void Promise.reject(new Error("early rejection"));
  if (ask.circularError) {
    const error: Error & { self?: unknown } = new Error("loop");
    error.self = error;
    throw error;
  }
  if (ask.log) {
    console.log("listed %d", 3);
    console.debug("a detail");
    console.warn("two\nlines", { id: 7 });
    console.error(new RangeError("bad id"));
    process.stdout.write('{"own":"line"}\n');
  }
  try {
    for (let mb = 0; mb < (ask.allocateMb ?? 0); mb++)
      kept.push(new Array<number>(131_072).fill(mb + 0.5));
    for (let mb = 0; mb < (ask.bufferMb ?? 0); mb++) kept.push(Buffer.alloc(2 ** 20, mb));
    if (ask.peakBufferMb !== undefined) {
      await holdBuffers(ask.peakBufferMb, 1000);
      // Two full collections: V8 frees a Buffer's memory at the one after the one that finds it dead.
      globalThis.gc?.();
      globalThis.gc?.();
    }
    const holdMs = ask.holdMs ?? Number(ask.queryStringParameters?.holdMs ?? 0);
    await new Promise((done) => setTimeout(done, holdMs));
    // Rejected from a microtask queued as it returns: after the runtime has its answer.
    if (ask.reject === "after")
      void Promise.resolve().then(() => Promise.reject(new Error("late rejection")));
    const { functionName, functionVersion, memoryLimitInMB, logGroupName, logStreamName } = context;
    return {
      running: Math.max(seen, running),
      invocations,
      laterRanAt,
      env: Object.fromEntries(defined.map((name) => [name, process.env[name]])),
      context: { functionName, functionVersion, memoryLimitInMB, logGroupName, logStreamName },
      heapLimit: getHeapStatistics().heap_size_limit,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      gc: typeof globalThis.gc,
    };
  } finally {
    running -= 1;
  }
}

/** Holds `mb` MiB of Buffers for `ms`; they are garbage once it returns. */
async function holdBuffers(mb: number, ms: number): Promise<number> {
  const held = Array.from({ length: mb }, (_, index) => Buffer.alloc(2 ** 20, index));
  await new Promise((done) => setTimeout(done, ms));
  return held.length;
}
