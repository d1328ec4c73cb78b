/**
 * Lambda's CPU share: a function gets CPU in proportion to its memory, one vCPU at 1,769 MB. The
 * bench gives each measuring process the same share with a cgroup v1 CPU quota (quota = size ÷
 * 1,769 of one core per period) and starts the process inside it, so Node's startup, the import
 * and every call run under the share. Where no cgroup is writable, it runs at full speed and says
 * so; the results are then marked `enforced: false`.
 */
import { spawn } from "node:child_process";
import { mkdirSync, openSync, rmdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Readable } from "node:stream";
import { localCredentials, localRegion } from "../local/embeddedDynamo.ts";
import { tmpDir } from "./bundle.ts";
import type { ChildTask } from "./child.ts";

export const fullCoreMb = 1769;
/**
 * The CFS period. AWS does not document Lambda's; 20 ms rather than the kernel's default 100 ms,
 * so that a throttled process pauses for at most 20 ms × (1 − share) at a time instead of up to
 * 93 ms: with the longer period, whether a pause falls into a 3 ms call would decide its p99.
 * The printed table names the period, to be revisited if AWS ever publishes theirs.
 */
export const periodUs = 20_000;
const cpuRoot = "/sys/fs/cgroup/cpu";

export interface Sandbox {
  readonly memoryMb: number;
  /** Of one core: 512 MB → 0.289. */
  readonly share: number;
  /** The cgroup directory, when the share is enforced. */
  readonly group: string | undefined;
}

/** A cgroup for `memoryMb`, or an unenforced sandbox and the one-line reason. */
export function openSandbox(memoryMb: number): { sandbox: Sandbox; problem?: string } {
  const share = Math.min(1, memoryMb / fullCoreMb);
  const group = resolve(cpuRoot, `petstore-bench-${process.pid}-${memoryMb}`);
  try {
    mkdirSync(group, { recursive: true });
    writeFileSync(resolve(group, "cpu.cfs_period_us"), String(periodUs));
    writeFileSync(resolve(group, "cpu.cfs_quota_us"), String(Math.round(share * periodUs)));
    return { sandbox: { memoryMb, share, group } };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      sandbox: { memoryMb, share, group: undefined },
      problem: `no writable cgroup v1 CPU controller (${reason}): running at FULL SPEED, not at Lambda's CPU share`,
    };
  }
}

export function closeSandbox(sandbox: Sandbox): void {
  if (sandbox.group) rmdirSync(sandbox.group);
}

/**
 * The child's whole environment, as Lambda sets it: nothing from the shell (npm sets dozens of
 * variables). The API key cache is off, so every variant makes the same store calls on every call.
 */
function lambdaEnvironment(sandbox: Sandbox, endpoint: string, table: string, nodeOptions: string) {
  return {
    ...(nodeOptions && { NODE_OPTIONS: nodeOptions }),
    ...localCredentials,
    AWS_REGION: localRegion,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(sandbox.memoryMb),
    TABLE_NAME: table,
    DYNAMODB_ENDPOINT: endpoint,
    API_KEY_CACHE_SECONDS: "0",
    TZ: "UTC",
  };
}

/** The functions' log goes to a file: piping it here would wake the store's process per line. */
let logFd: number | undefined;

async function collect(stream: Readable | null): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream ?? []) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export interface Store {
  readonly endpoint: string;
  readonly table: string;
}

/** Runs child.mjs with `task` in the sandbox's cgroup and returns what it wrote on fd 3. */
export async function runChild<Result>(
  childScript: string,
  task: ChildTask,
  sandbox: Sandbox,
  store: Store = { endpoint: "", table: "" },
  nodeOptions = "",
): Promise<Result> {
  logFd ??= openSync(resolve(tmpDir, "function-stdout.log"), "w");
  const node = [process.execPath, childScript, JSON.stringify(task)];
  // The shell joins the cgroup, then becomes Node: Node's startup already runs under the quota.
  const [command, ...args] = sandbox.group
    ? ["/bin/sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', sandbox.group, ...node]
    : node;
  const child = spawn(command ?? "", args, {
    env: lambdaEnvironment(sandbox, store.endpoint, store.table, nodeOptions),
    stdio: ["ignore", logFd, "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((done, fail) => {
    child.once("error", fail);
    child.once("close", done);
  });
  const [stderr, result, code] = await Promise.all([
    collect(child.stderr),
    collect(child.stdio[3] as Readable | null),
    exited,
  ]);
  if (code !== 0 || result === "") {
    throw new Error(
      `broken benchmark: a child exited with ${String(code)}:\n${stderr.trim().slice(-2000)}`,
    );
  }
  return JSON.parse(result) as Result;
}
