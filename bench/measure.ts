/** Starts one measuring child (child.ts, bundled) in a fresh Node process and reads its result. */
import { spawn } from "node:child_process";
import { openSync } from "node:fs";
import { resolve } from "node:path";
import type { Readable } from "node:stream";
import { localCredentials, localRegion } from "../local/embeddedDynamo.ts";
import { tmpDir } from "./bundle.ts";
import type { ChildResult, ChildTask } from "./protocol.ts";

export interface StoreTarget {
  readonly endpoint: string;
  readonly table: string;
}

/**
 * The child's whole environment, as Lambda would set it: nothing inherited from the shell (npm
 * sets dozens of variables), NODE_OPTIONS only when asked for. The API key cache
 * is off, so every variant makes the same store calls on every invocation (the service's own
 * 30 s cache would save it the key lookup on warm calls; the bench measures the work, not the cache).
 */
function lambdaEnvironment(store: StoreTarget, nodeOptions: string): Record<string, string> {
  return {
    ...(nodeOptions && { NODE_OPTIONS: nodeOptions }),
    ...localCredentials,
    AWS_REGION: localRegion,
    AWS_DEFAULT_REGION: localRegion,
    TABLE_NAME: store.table,
    DYNAMODB_ENDPOINT: store.endpoint,
    API_KEY_CACHE_SECONDS: "0",
    TZ: "UTC",
  };
}

async function collect(stream: Readable | null): Promise<string> {
  if (!stream) return "";
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The functions' stdout (their request log) goes to this file, not to a pipe into this process:
 * this process is also the store, and waking it for every log line would slow the store's answers
 * to the variants that log (in Lambda, logs go to a separate process).
 */
let logFd: number | undefined;
function functionLog(): number {
  logFd ??= openSync(resolve(tmpDir, "function-stdout.log"), "w");
  return logFd;
}

export async function runChild(
  childScript: string,
  task: ChildTask,
  store: StoreTarget,
  nodeOptions = "",
): Promise<ChildResult> {
  const flags = task.collectGarbage ? ["--expose-gc"] : [];
  const child = spawn(process.execPath, [...flags, childScript, JSON.stringify(task)], {
    env: lambdaEnvironment(store, nodeOptions),
    stdio: ["ignore", functionLog(), "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", resolve);
  });
  const [stderr, result, code] = await Promise.all([
    collect(child.stderr),
    collect(child.stdio[3] as Readable | null),
    exited,
  ]);
  if (code !== 0 || result === "") {
    throw new Error(
      `bench child for ${task.bundle} exited with ${String(code)}:\n${stderr.trim().slice(-2000)}`,
    );
  }
  return JSON.parse(result) as ChildResult;
}
