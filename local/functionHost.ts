/**
 * Runs a built function the way Lambda does, for the local server and `npm run invoke`: in its
 * own "container" (a worker thread, local/functionWorker.ts) with its own environment, so the
 * host never sets `process.env`. `reload()` swaps in a fresh container (watch mode), letting the
 * old one finish what it is running; a container that dies is replaced on the next invocation.
 */
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";
import { Worker } from "node:worker_threads";
import type { FromWorker, FunctionError, WorkerSetup } from "./functionProtocol.ts";
import { serializeError } from "./functionProtocol.ts";
import type { FunctionSpec } from "./template.ts";

export type Outcome =
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly error: FunctionError };

export interface FunctionOutput {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/** The functions' stdout and stderr as the host process's own. */
export const processOutput: FunctionOutput = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

class Container {
  readonly #worker: Worker;
  readonly #pending = new Map<number, (outcome: Outcome) => void>();
  #nextId = 0;
  #retired = false;
  dead = false;
  /** Undefined once the bundle is loaded; the init error otherwise. */
  readonly initialised: Promise<FunctionError | undefined>;

  constructor(setup: WorkerSetup, env: Readonly<Record<string, string>>, output: FunctionOutput) {
    this.#worker = new Worker(new URL("./functionWorker.ts", import.meta.url), {
      env: { ...env },
      workerData: setup,
    });
    this.initialised = new Promise((ready) => {
      this.#worker.on("message", (message: FromWorker) => {
        switch (message.type) {
          case "ready":
            ready(undefined);
            break;
          case "init-error":
            ready(message.error);
            break;
          case "stdout":
          case "stderr":
            output[message.type](message.text);
            break;
          case "result":
            this.#settle(message.id, { ok: true, result: message.result });
            break;
          case "error":
            this.#settle(message.id, { ok: false, error: message.error });
        }
      });
      // An uncaught error or an exit ends the runtime: every invocation in flight fails.
      const end = (error: unknown): void => {
        this.dead = true;
        ready(serializeError(error));
        for (const id of [...this.#pending.keys()])
          this.#settle(id, { ok: false, error: serializeError(error) });
      };
      this.#worker.once("error", end);
      this.#worker.once("exit", () => {
        end(new Error("the function's runtime exited"));
      });
    });
  }

  invoke(event: unknown): Promise<Outcome> {
    const id = ++this.#nextId;
    return new Promise((done) => {
      this.#pending.set(id, done);
      this.#worker.postMessage({ id, event });
    });
  }

  /** Stops taking invocations; ends once the ones in flight are answered. */
  retire(): Promise<void> {
    this.#retired = true;
    return this.#pending.size === 0 ? this.#stop() : Promise.resolve();
  }

  #settle(id: number, outcome: Outcome): void {
    const done = this.#pending.get(id);
    this.#pending.delete(id);
    done?.(outcome);
    if (this.#retired && this.#pending.size === 0) void this.#stop();
  }

  async #stop(): Promise<void> {
    this.dead = true;
    await this.#worker.terminate();
  }

  /** Ends the container now, whatever it is running (the host is closing). */
  terminate(): Promise<void> {
    return this.#stop();
  }
}

export class FunctionHost {
  readonly spec: FunctionSpec;
  readonly #setup: WorkerSetup;
  readonly #env: Readonly<Record<string, string>>;
  readonly #output: FunctionOutput;
  #container: Container;

  constructor(spec: FunctionSpec, env: Readonly<Record<string, string>>, output = processOutput) {
    this.spec = spec;
    this.#setup = {
      bundleUrl: pathToFileURL(resolve(spec.codeDir, spec.handlerFile)).href,
      handlerExport: spec.handlerExport,
      functionName: spec.name,
      timeoutSeconds: spec.timeoutSeconds,
    };
    this.#env = env;
    this.#output = output;
    this.#container = this.#start();
  }

  /** Undefined when the bundle loaded; its init error otherwise. */
  initialised(): Promise<FunctionError | undefined> {
    return this.#container.initialised;
  }

  invoke(event: unknown): Promise<Outcome> {
    if (this.#container.dead) this.#container = this.#start();
    return this.#container.invoke(event);
  }

  /** A fresh container with the bundle as it is now on disk (a new module instance). */
  async reload(): Promise<FunctionError | undefined> {
    const old = this.#container;
    this.#container = this.#start();
    await old.retire();
    return this.#container.initialised;
  }

  close(): Promise<void> {
    return this.#container.terminate();
  }

  #start(): Container {
    return new Container(this.#setup, this.#env, this.#output);
  }
}
