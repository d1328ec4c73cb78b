/**
 * Runs a built function as Lambda does, for the local server and `npm run invoke`: a pool of
 * containers (worker threads, local/functionWorker.ts), each with the function's environment, its
 * own module state and one invocation at a time. An invocation takes the container used last of
 * the idle ones; with none idle, a new one starts (a cold start: the bundle imported afresh), up to
 * the function's concurrency; past it the invocation is throttled (or, for the project's own
 * tools, waits for a container: `overflow: "queue"`). A container idle for `idleMs` is ended.
 *
 * The template's limits are enforced with Node's own: `Timeout` by a timer that ends the
 * invocation and its container, `MemorySize` as the isolate's heap limits Lambda's runtime sets
 * for it (`lambdaHeap`), past which V8 ends the worker (Runtime.OutOfMemory here, as Lambda
 * reports it).
 */
import { randomUUID } from "node:crypto";
import { parse, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { ResourceLimits } from "node:worker_threads";
import { setFlagsFromString } from "node:v8";
import { Worker } from "node:worker_threads";
import type { ContainerSetup, FromWorker, FunctionError, WorkerSetup } from "./functionProtocol.ts";
import { memoryMbOf, serializeError } from "./functionProtocol.ts";
import { localRegion } from "./embeddedDynamo.ts";
import type { Report } from "./lambdaLines.ts";
import {
  endLines,
  initLines,
  platformErrorType,
  startLine,
  timedOut,
  timedOutName,
} from "./lambdaLines.ts";
import type { FunctionSpec } from "./template.ts";

/** A function's concurrency when the template reserves none (Lambda's is the account's 1,000). */
export const defaultConcurrency = 10;
/**
 * How long an idle container lives. Lambda does not say; environments are commonly seen to last
 * 5 to 15 minutes without traffic. Here: 10 minutes.
 */
export const defaultIdleMs = 10 * 60_000;

export type Failure = "error" | "timeout" | "out-of-memory" | "throttled";
type Ended =
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly failure: Failure; readonly error: FunctionError };
export type Outcome = Ended & {
  /** What REPORT says of the invocation; none when throttled (no container ran it). */
  readonly report?: Report;
};

export interface FunctionOutput {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/** The functions' stdout and stderr as the host process's own. */
export const processOutput: FunctionOutput = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

export interface PoolOptions {
  readonly output?: FunctionOutput;
  /** Write Lambda's START, END and REPORT lines (local/lambdaLines.ts) with the function's output. */
  readonly lambdaLines?: boolean;
  /** The concurrency when the template reserves none (default 10). */
  readonly concurrency?: number | undefined;
  /** Past the concurrency: throttle, as Lambda does (default), or wait for a container. */
  readonly overflow?: "throttle" | "queue";
  readonly idleMs?: number | undefined;
  /** Containers kept ready: started by `warm()`, never reaped below. */
  readonly warm?: number | undefined;
  /** How long an init may run before it is cut (default Lambda's: `lambdaInitLimitMs`). */
  readonly initLimitMs?: number | undefined;
}

/**
 * Lambda's bound on a container's init phase (docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html,
 * "Init phase"): 10 s on demand; with provisioned concurrency, the greater of 130 s and the
 * function's Timeout. An init cut there is run again within the next invocation, bounded then by
 * the function's Timeout, which counts its time (`FunctionPool.invoke`).
 */
export function lambdaInitLimitMs(type: InitializationType, timeoutSeconds: number): number {
  return type === "on-demand" ? 10_000 : Math.max(130, timeoutSeconds) * 1000;
}

/**
 * The node command line Lambda's Node.js runtime starts a function of `memorySize` MB with. Its
 * bootstrap (/var/runtime/bootstrap in AWS's Node.js images, as published from a nodejs18.x image
 * and, for nodejs24.x, dev.to/wonderfulsoap's "Deep Dive into AWS Lambda (3)", 2026) runs node
 * with --expose-gc, --max-http-header-size 81920, --max-semi-space-size=(M/10)/2 and
 * --max-old-space-size=M-M/10 in whole MB, leaving the rest for memory outside the heap (the
 * nodejs24.x bootstrap leaves both sizes to V8 when the function's NODE_OPTIONS sets either: the
 * template sets no NODE_OPTIONS). The bench's measuring processes run under it
 * (bench/sandbox.ts); the pool's containers as far as a worker can (`lambdaHeap`, `hostAsLambda`).
 */
function bootstrapHeap(memorySize: number): { oldSpaceMb: number; semiSpaceMb: number } {
  const newSpace = Math.floor(memorySize / 10);
  return { oldSpaceMb: memorySize - newSpace, semiSpaceMb: Math.floor(newSpace / 2) };
}

export function lambdaNodeArgs(memorySize: number): string[] {
  const { oldSpaceMb, semiSpaceMb } = bootstrapHeap(memorySize);
  return [
    "--expose-gc",
    "--max-http-header-size=81920",
    `--max-semi-space-size=${String(semiSpaceMb)}`,
    `--max-old-space-size=${String(oldSpaceMb)}`,
  ];
}

/**
 * That heap for a container: a worker takes no V8 flags but the same limits as `resourceLimits`.
 * Its young generation is three semi-spaces (V8's two and the new large object space), which
 * gives the heap limit the flags give (the pool's tests compare them).
 */
export function lambdaHeap(memorySize: number): ResourceLimits {
  const { oldSpaceMb, semiSpaceMb } = bootstrapHeap(memorySize);
  return { maxOldGenerationSizeMb: oldSpaceMb, maxYoungGenerationSizeMb: 3 * semiSpaceMb };
}

/**
 * The rest of that node command line (`lambdaNodeArgs`), for the containers started from now on:
 * `--expose-gc` (global.gc), a V8 flag a worker cannot take; set on the process, it holds in
 * every context created after it (the workers', and any vm context), not in the server's own
 * main context. Not `--max-http-header-size 81920`, by choice: a worker takes it only in an
 * execArgv of its own, which replaces the inherited one and would have to leave out the V8 flags
 * the server was started with (ERR_WORKER_INVALID_EXEC_ARGV otherwise); for a limit on the
 * response headers of a function's own outgoing calls, not worth that. A function's
 * http.maxHeaderSize is 16 KB here.
 */
function hostAsLambda(): void {
  setFlagsFromString("--expose-gc");
}

/**
 * For a process that exists to host containers (npm start, npm run dev, npm run invoke): Lambda
 * runs every container in UTC (TZ=:UTC, `definedEnv`), and a thread's time zone is its process's,
 * whatever its env says, so that process runs in UTC too, for the containers started after. The
 * pool and the server never call it: embedded in another process (the tests), they leave its
 * environment as it was (test/local/startup.test.ts).
 */
export function hostInLambdaTimeZone(): void {
  process.env.TZ = "UTC";
}

/**
 * How often a running invocation's memory is read against MemorySize (`Container.run`): a peak
 * shorter than this can go unseen. A read is a message to the container's thread.
 */
const memoryCheckMs = 25;
/** A read of a container's memory that its end cut short: the end says what happened. */
const ignoreEnded = (): undefined => undefined;

/** An invocation's end as its container tells it, with the heap it had then. */
type Settled = Ended & { readonly memoryMb?: number };

export type InitializationType = "on-demand" | "provisioned-concurrency";

/**
 * What Lambda defines in every container's environment, over the function's own (these are
 * reserved: no configuration sets them): "Defined runtime environment variables",
 * docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html. The worker reads its context's
 * name, version, memory and log names from these, as Lambda's Node.js runtime does, so the two
 * agree. The name is the template's function name (deployed, it is petstore-<stage>-<name>).
 */
function definedEnv(
  spec: FunctionSpec,
  env: Readonly<Record<string, string>>,
  initializationType: InitializationType,
): Record<string, string> {
  const region = env.AWS_REGION ?? localRegion;
  const day = new Date().toISOString().slice(0, 10).replaceAll("-", "/");
  return {
    AWS_LAMBDA_FUNCTION_NAME: spec.name,
    AWS_LAMBDA_FUNCTION_VERSION: "$LATEST",
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(spec.memorySize),
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${spec.name}`,
    // One stream per container, named as Lambda names them.
    AWS_LAMBDA_LOG_STREAM_NAME: `${day}/[$LATEST]${randomUUID().replaceAll("-", "")}`,
    AWS_LAMBDA_INITIALIZATION_TYPE: initializationType,
    // LoggingConfig, as the runtime reads it to patch console (local/functionWorker.ts); Lambda
    // filters by level only logs in JSON.
    AWS_LAMBDA_LOG_FORMAT: spec.logFormat,
    ...(spec.logFormat === "JSON" && { AWS_LAMBDA_LOG_LEVEL: spec.logLevel }),
    AWS_EXECUTION_ENV: `AWS_Lambda_${spec.runtime}`,
    LAMBDA_TASK_ROOT: spec.codeDir,
    _HANDLER: `${parse(spec.handlerFile).name}.${spec.handlerExport}`,
    // The variable only: a worker has its process's time zone (`hostInLambdaTimeZone`).
    TZ: ":UTC",
    AWS_REGION: region,
    AWS_DEFAULT_REGION: env.AWS_DEFAULT_REGION ?? region,
  };
}

/** An invocation the local server's stop cut short or never ran (no Lambda error: the host's). */
export const stoppedName = "Local.Stopped";
function stopped(requestId: string): FunctionError {
  const message = `RequestId: ${requestId}: the local server stopped before it answered`;
  return { name: stoppedName, message, stack: "" };
}

class Container {
  readonly id: number;
  readonly generation: number;
  readonly initializationType: InitializationType;
  readonly #worker: Worker;
  /** How many invocations it has been sent, shared with its thread (its freeze, in the worker). */
  readonly #sent = new Int32Array(new SharedArrayBuffer(4));
  /** How many it had answered when it last asked for the next (`next`). */
  #askedFor = 0;
  /** Waits for it to ask for the next invocation (`asksForNext`). */
  #nextWaiter: (() => void) | undefined;
  /** Its environment: an init run again in its place keeps it (the same log stream). */
  readonly env: Readonly<Record<string, string>>;
  #pending: ((settled: Settled) => void) | undefined;
  /** Ends the container once it has been idle for the pool's idle time. */
  reaper: NodeJS.Timeout | undefined;
  dead = false;
  /** The cold start, until the first invocation reports it. */
  initMs: number | undefined;
  /** Its output until its init is reported (`reportInit`): Lambda prints it with the init. */
  #held: ["stdout" | "stderr", string][] | undefined = [];
  readonly #output: FunctionOutput;
  /** The invocation it runs or ran last (none yet: its init). */
  #requestId = "";
  maxMemoryMb = 0;
  readonly #memorySize: number;
  /**
   * Its init failed (its thread has ended): the pool keeps it in its place, as Lambda keeps the
   * environment, and its next invocation runs the init again (a suppressed init).
   */
  initFailed = false;
  /** Undefined once the bundle is loaded; the init error otherwise (the thread then ends). */
  readonly initialised: Promise<FunctionError | undefined>;

  constructor(
    id: number,
    generation: number,
    initializationType: InitializationType,
    setup: WorkerSetup,
    env: Readonly<Record<string, string>>,
    output: FunctionOutput,
    initLimitMs: number,
    ended: () => void,
  ) {
    this.id = id;
    this.env = env;
    this.generation = generation;
    this.#output = output;
    this.initializationType = initializationType;
    this.#memorySize = setup.memorySize;
    const started = performance.now();
    /** Whether its init has ended (an end after it is no init's). */
    let loaded = false;
    this.#worker = new Worker(new URL("./functionWorker.ts", import.meta.url), {
      env,
      workerData: { ...setup, sent: this.#sent.buffer } satisfies ContainerSetup,
      // MemorySize bounds the heap with V8's own limits, as Lambda sets them: past them the
      // worker ends with ERR_WORKER_OUT_OF_MEMORY (the process and the other containers carry on).
      resourceLimits: lambdaHeap(setup.memorySize),
    });
    this.initialised = new Promise((ready) => {
      // Past its bound the init is over, timed out, and its thread ends.
      const initLimit = setTimeout(() => {
        if (loaded) return;
        loaded = true;
        this.initMs = performance.now() - started;
        this.initFailed = true;
        ready(timedOut(initLimitMs));
        void this.stop();
      }, initLimitMs);
      this.#worker.on("message", (message: FromWorker) => {
        switch (message.type) {
          case "ready":
          case "init-error":
            if (loaded) break; // cut by its bound as it ended: the cut stands
            clearTimeout(initLimit);
            loaded = true;
            this.initMs = performance.now() - started;
            if (message.type === "ready") ready(undefined);
            else {
              this.initFailed = true;
              ready(message.error);
              void this.stop();
            }
            break;
          case "next":
            this.#askedFor = message.answered;
            this.#wakeNext();
            break;
          case "stdout":
          case "stderr":
            if (this.#held) this.#held.push([message.type, message.text]);
            else output[message.type](message.text);
            break;
          default:
            if (message.type === "error" && message.exits) this.dead = true;
            this.#settle(
              this.#overMemory(message.memoryMb) ??
                (message.type === "result"
                  ? { ok: true, ...message }
                  : { ok: false, failure: "error", ...message }),
            );
        }
      });
      // An uncaught error, the heap limit or an exit ends the container and what it is running.
      const end = (error: unknown): void => {
        clearTimeout(initLimit);
        this.dead = true;
        // Ended during its init (an exit or a crash while loading): the init lasted until now.
        if (!loaded) {
          this.initMs = performance.now() - started;
          this.initFailed = true;
        }
        const outOfMemory = (error as { code?: unknown }).code === "ERR_WORKER_OUT_OF_MEMORY";
        const failure = outOfMemory
          ? {
              name: "Runtime.OutOfMemory",
              message: `Runtime exited with error: the heap is over its limit for MemorySize (${setup.memorySize} MB)`,
              stack: "",
            }
          : typeof error === "number"
            ? // The runtime exited (process.exit in the function): Lambda's own words, as its
              // runtimes' users report them (aws/aws-lambda-python-runtime-interface-client#10,
              // swift-serverless/aws-lambda-swift-sprinter#27).
              {
                name: "Runtime.ExitError",
                // During init there is no request yet: no RequestId part.
                message: `${this.#requestId ? `RequestId: ${this.#requestId} ` : ""}Error: Runtime exited with error: exit status ${error}`,
                stack: "",
              }
            : serializeError(error);
        ready(failure);
        this.#settle({
          ok: false,
          failure: outOfMemory ? "out-of-memory" : "error",
          error: failure,
        });
        this.#nextWaiter?.();
        this.#nextWaiter = undefined;
        if (!this.initFailed) ended();
      };
      this.#worker.once("error", end);
      this.#worker.once("exit", (code) => {
        end(code);
      });
    });
  }

  /**
   * Runs one invocation; past `timeoutMs` (`spentMs` of it already spent, on an init run again)
   * it fails (Sandbox.Timedout) and the container ends.
   */
  run(requestId: string, event: unknown, timeoutMs: number, spentMs: number): Promise<Settled> {
    this.#requestId = requestId;
    return new Promise((done) => {
      const timer = setTimeout(() => {
        this.#settle({ ok: false, failure: "timeout", error: timedOut(timeoutMs) });
        void this.stop();
      }, timeoutMs - spentMs);
      // Lambda bounds the process's memory at every moment; V8's limits (`lambdaHeap`) bound the
      // heap only. So while it runs, the container's memory, heap and outside it (Buffers), is
      // read every `memoryCheckMs` (a busy thread answers too) and once more as it answers.
      const watch = setInterval(() => {
        this.#worker.getHeapStatistics().then((heap) => {
          if (this.#pending !== pending) return;
          const memoryMb = memoryMbOf(heap);
          // REPORT's Max Memory Used is the peak, a peak freed before the answer included.
          this.maxMemoryMb = Math.max(this.maxMemoryMb, memoryMb);
          const over = this.#overMemory(memoryMb);
          if (over) this.#settle(over);
        }, ignoreEnded);
      }, memoryCheckMs);
      const pending = (settled: Settled): void => {
        clearTimeout(timer);
        clearInterval(watch);
        if (settled.memoryMb) this.maxMemoryMb = Math.max(this.maxMemoryMb, settled.memoryMb);
        done(settled);
      };
      this.#pending = pending;
      // Thaws the container (frozen since its last answer: local/functionWorker.ts), then sends.
      Atomics.add(this.#sent, 0, 1);
      Atomics.notify(this.#sent, 0);
      this.#worker.postMessage({ requestId, event });
    });
  }

  /**
   * Memory over MemorySize (`run` reads it): the invocation fails as Lambda's would, with
   * Runtime.OutOfMemory, and the container ends.
   */
  #overMemory(memoryMb: number | undefined): Settled | undefined {
    if (memoryMb === undefined || memoryMb <= this.#memorySize) return undefined;
    this.dead = true;
    void this.stop();
    const message = `Runtime exited with error: ${String(memoryMb)} MB in use, over MemorySize (${String(this.#memorySize)} MB)`;
    return {
      ok: false,
      failure: "out-of-memory",
      error: { name: "Runtime.OutOfMemory", message, stack: "" },
      memoryMb,
    };
  }

  /**
   * Resolves once the container has asked for its next invocation, which Lambda's runtime does
   * once the turn that answered is over (local/functionWorker.ts), or has ended: the pool hands it
   * nothing before, as Lambda routes nothing to an environment that has not asked. Still busy
   * after `ms` (the rest of its Timeout: a loop after its answer), it is ended.
   */
  asksForNext(ms: number): Promise<void> {
    if (this.dead || this.#askedFor === Atomics.load(this.#sent, 0)) return Promise.resolve();
    return new Promise((done) => {
      const timer = setTimeout(
        () => {
          this.#nextWaiter = undefined;
          void this.stop();
          done();
        },
        Math.max(0, ms),
      );
      this.#nextWaiter = () => {
        clearTimeout(timer);
        done();
      };
    });
  }

  #wakeNext(): void {
    if (!this.#nextWaiter || this.#askedFor !== Atomics.load(this.#sent, 0)) return;
    const waiter = this.#nextWaiter;
    this.#nextWaiter = undefined;
    waiter();
  }

  /** Whether its init is still to be reported (its first invocation, or `warm`). */
  get initPending(): boolean {
    return this.#held !== undefined;
  }

  /** Reports its init: Lambda's lines `before` (INIT_START), the output it held, then `after`. */
  reportInit([before, after]: readonly [string[], string[]]): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    for (const line of before) this.#output.stdout(`${line}\n`);
    for (const [stream, text] of held) this.#output[stream](text);
    for (const line of after) this.#output.stdout(`${line}\n`);
  }

  #settle(settled: Settled): void {
    const done = this.#pending;
    this.#pending = undefined;
    done?.(settled);
  }

  async stop(): Promise<void> {
    this.dead = true;
    clearTimeout(this.reaper);
    await this.#worker.terminate();
  }

  /** Ends it as the server stops: an invocation it runs fails as stopped, not as its failure. */
  close(): Promise<void> {
    this.#settle({ ok: false, failure: "error", error: stopped(this.#requestId) });
    return this.stop();
  }
}

export class FunctionPool {
  readonly spec: FunctionSpec;
  /** The most containers at once: ReservedConcurrentExecutions, else the local default. */
  readonly concurrency: number;
  readonly #setup: WorkerSetup;
  readonly #env: Readonly<Record<string, string>>;
  readonly #options: PoolOptions;
  readonly #output: FunctionOutput;
  readonly #containers = new Set<Container>();
  /** The idle containers, the one used last at the end. */
  #idle: Container[] = [];
  readonly #waiting: ((container: Container | undefined) => void)[] = [];
  #started = 0;
  #generation = 0;
  #closed = false;

  constructor(
    spec: FunctionSpec,
    env: Readonly<Record<string, string>>,
    options: PoolOptions = {},
  ) {
    this.spec = spec;
    this.concurrency = spec.reservedConcurrency ?? options.concurrency ?? defaultConcurrency;
    hostAsLambda();
    this.#setup = {
      bundleUrl: pathToFileURL(resolve(spec.codeDir, spec.handlerFile)).href,
      handlerExport: spec.handlerExport,
      timeoutSeconds: spec.timeoutSeconds,
      memorySize: spec.memorySize,
    };
    this.#env = env;
    this.#options = options;
    this.#output = options.output ?? processOutput;
  }

  /** The containers alive now (busy, idle or starting). */
  get size(): number {
    return this.#containers.size;
  }

  /** How many containers have been started so far, each a cold start (an init run again not counted). */
  get coldStarts(): number {
    return this.#started;
  }

  async invoke(event: unknown, requestId: string = randomUUID()): Promise<Outcome> {
    const claimed = this.#claim();
    if (!claimed) {
      const message = `Rate Exceeded: all ${this.concurrency} containers of ${this.spec.name} are busy`;
      return {
        ok: false,
        failure: "throttled",
        error: { name: "TooManyRequestsException", message, stack: "" },
      };
    }
    const claim = await claimed;
    if (!claim) return { ok: false, failure: "error", error: stopped(requestId) };
    let container = claim;
    let initError = await container.initialised;
    const lines = this.#options.lambdaLines === true;
    // An on-demand container's init belongs to its first invocation, even one the pool started
    // before any traffic (`warm` with no containers kept): Lambda inits an on-demand environment
    // when its first invocation arrives, so its init output comes just before that START, and
    // its REPORT carries the Init Duration.
    if (container.initPending) container.reportInit(this.#initLines(container, initError));
    const started = performance.now();
    // Lambda runs a failed init again within the invocation, in the same environment (a
    // "suppressed init", Phase: invoke): its time counts in the invocation's Duration, and
    // REPORT has no Init Duration. Here a fresh thread in the failed container's place (its
    // number and environment), its init bounded by the Timeout; not once the pool is closed.
    const timeoutMs = this.spec.timeoutSeconds * 1000;
    if (initError !== undefined && !this.#closed) {
      const failed = container;
      container = this.#start(failed.initializationType, failed.id, failed.env, timeoutMs);
      this.#forget(failed);
      initError = await container.initialised;
      container.reportInit(this.#initLines(container, initError, "invoke"));
      container.initMs = undefined;
    }
    if (lines) this.#output.stdout(`${startLine(this.spec.logFormat, requestId)}\n`);
    // A cold start the server's stop cut short is the stop's, not the function's.
    const settled: Settled = initError
      ? this.#closed
        ? { ok: false, failure: "error", error: stopped(requestId) }
        : {
            ok: false,
            failure: initError.name === timedOutName ? "timeout" : "error",
            error: initError,
          }
      : await container.run(requestId, event, timeoutMs, performance.now() - started);
    const report: Report = {
      requestId,
      containerId: container.id,
      durationMs: performance.now() - started,
      initMs: container.initMs,
      maxMemoryMb: container.maxMemoryMb,
      status: settled.ok ? "success" : settled.failure === "timeout" ? "timeout" : "error",
      // A failed init is reported with the scrubbed type its INIT_REPORT gave it.
      errorType: settled.ok
        ? undefined
        : initError && settled.failure !== "timeout"
          ? platformErrorType(settled.error.name)
          : settled.error.name,
    };
    container.initMs = undefined;
    if (lines)
      this.#output.stdout(
        endLines(this.spec.logFormat, this.spec, report)
          .map((line) => `${line}\n`)
          .join(""),
      );
    await container.asksForNext(timeoutMs - report.durationMs);
    this.#release(container);
    return settled.ok
      ? { ok: true, result: settled.result, report }
      : { ok: false, failure: settled.failure, error: settled.error, report };
  }

  /**
   * Why `count` containers cannot be kept warm, or undefined: more than the function's
   * concurrency, which Lambda refuses for provisioned concurrency above a reserved concurrency.
   */
  warmRefusal(count: number): string | undefined {
    if (count <= this.concurrency) return undefined;
    const { name } = this.spec;
    return `--warm ${count} is more than the concurrency of ${name} (${this.concurrency}): warm at most ${this.concurrency}`;
  }

  /**
   * Starts the containers kept warm (`warm`), ahead of traffic, like provisioned concurrency:
   * their init is reported now and their invocations have no Init Duration. With none kept, one
   * on-demand container, to refuse at once a bundle that does not load: it is still a cold start,
   * its init reported with its first invocation. The first init error, if any.
   */
  async warm(count = this.#options.warm ?? 0): Promise<FunctionError | undefined> {
    if (this.#closed) return undefined;
    const type = count > 0 ? "provisioned-concurrency" : "on-demand";
    // Counted in this generation only (after `npm run dev`'s rebuild, busy containers of the old
    // bundle end when they answer), within the concurrency.
    const current = [...this.#containers].filter((c) => c.generation === this.#generation);
    const wanted = Math.min(Math.max(count, 1), this.concurrency) - current.length;
    const started = Array.from(
      { length: Math.max(0, Math.min(wanted, this.concurrency - this.size)) },
      () => this.#start(type),
    );
    const errors = await Promise.all(started.map((container) => container.initialised));
    for (const [index, container] of started.entries()) {
      if (type === "provisioned-concurrency" || errors[index]) {
        container.reportInit(this.#initLines(container, errors[index]));
        if (type === "provisioned-concurrency") container.initMs = undefined;
      }
      this.#release(container);
    }
    return errors.find((error) => error !== undefined);
  }

  /** Lambda's lines around a container's init (local/lambdaLines.ts), when they are printed. */
  #initLines(
    container: Container,
    error: FunctionError | undefined,
    phase: "init" | "invoke" = "init",
  ): [string[], string[]] {
    if (this.#options.lambdaLines !== true) return [[], []];
    const { initializationType, initMs } = container;
    return initLines(this.spec, initializationType, initMs ?? 0, error, phase);
  }

  /** Serves the bundle as it now is on disk: new containers; busy ones end when they answer. */
  reload(): Promise<FunctionError | undefined> {
    this.#generation++;
    for (const container of this.#idle) this.#forget(container);
    this.#idle = [];
    return this.warm();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#generation++;
    // Invocations still waiting for a container get none: they fail as the server stops.
    for (const waiting of this.#waiting.splice(0)) waiting(undefined);
    await Promise.all([...this.#containers].map((container) => container.close()));
    this.#containers.clear();
    this.#idle = [];
  }

  /** A container for an invocation; none once the pool is closed; undefined: throttled. */
  #claim(): Promise<Container | undefined> | undefined {
    if (this.#closed) return Promise.resolve(undefined);
    const idle = this.#idle.pop();
    clearTimeout(idle?.reaper);
    if (idle) return Promise.resolve(idle);
    if (this.size < this.concurrency) return Promise.resolve(this.#start());
    if (this.#options.overflow !== "queue") return undefined;
    return new Promise((handed) => this.#waiting.push(handed));
  }

  #start(
    type: InitializationType = "on-demand",
    id = ++this.#started,
    env: Readonly<Record<string, string>> = {
      ...this.#env,
      ...definedEnv(this.spec, this.#env, type),
    },
    initLimitMs = this.#options.initLimitMs ?? lambdaInitLimitMs(type, this.spec.timeoutSeconds),
  ): Container {
    const container: Container = new Container(
      id,
      this.#generation,
      type,
      this.#setup,
      env,
      this.#output,
      initLimitMs,
      () => {
        this.#forget(container);
      },
    );
    this.#containers.add(container);
    return container;
  }

  /** A container is done with an invocation: to the next waiting one, idle, or ended. */
  #release(container: Container): void {
    if (!this.#containers.has(container)) return;
    const ended = container.dead && !container.initFailed;
    if (ended || container.generation !== this.#generation) {
      this.#forget(container);
      return;
    }
    const waiting = this.#waiting.shift();
    if (waiting) {
      waiting(container);
      return;
    }
    this.#idle.push(container);
    container.reaper = setTimeout(() => {
      if (this.size > (this.#options.warm ?? 0)) this.#forget(container);
    }, this.#options.idleMs ?? defaultIdleMs).unref();
  }

  #forget(container: Container): void {
    if (!this.#containers.delete(container)) return;
    this.#idle = this.#idle.filter((idle) => idle !== container);
    if (!container.dead) void container.stop();
    // A container that ended leaves room: the next waiting invocation gets a new one.
    const waiting =
      !this.#closed &&
      this.#waiting.length > 0 &&
      this.size < this.concurrency &&
      this.#waiting.shift();
    if (waiting) waiting(this.#start());
    // One of an old bundle's: the room it leaves tops the new one up to what is kept warm.
    else if (!this.#closed && container.generation !== this.#generation) void this.warm();
  }
}
