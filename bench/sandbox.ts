/**
 * What the bench runs and where. What: built under .bench-tmp/, the bundles of `npm run build`
 * (copied, so a rebuild of dist/ mid-run changes nothing); the same built with lib/metrics.ts
 * swapped for a no-op (variants/noMetrics.ts), to show what metrics cost; the limit and typical
 * variants with the same esbuild options; and the measuring child. Where: Lambda's CPU share. A
 * function gets CPU in proportion to its memory, one vCPU at 1,769 MB; each measuring process
 * starts inside a cgroup v1 CPU quota of size ÷ 1,769 of one core, so Node's startup, the import
 * and every call run under the share. Where no cgroup is writable, it runs at full speed and says
 * so (results.json: `cpuShareEnforced: false`).
 */
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, openSync, readdirSync } from "node:fs";
import { rmdirSync, statSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Readable } from "node:stream";
import { text } from "node:stream/consumers";
import type { PluginBuild } from "esbuild";
import { build } from "esbuild";
import { localFunctionEnv, unthrottled } from "../local/functionEnv.ts";
import { lambdaNodeArgs } from "../local/functionPool.ts";
import { projectRoot, routesOf, templateFunctionEnv } from "../local/template.ts";
import { buildFunctions, functionBuilds, lambdaBundleOptions } from "../scripts/build.ts";
import type { ChildTask } from "./child.ts";

export const tmpDir = resolve(projectRoot, ".bench-tmp");
/**
 * The CFS period. AWS does not document Lambda's; 20 ms rather than the kernel's default 100 ms,
 * so that a throttled process pauses for at most 20 ms × (1 − share) at a time instead of up to
 * 93 ms: with the longer period, whether a pause falls into a 3 ms call would decide its p99.
 */
export const periodUs = 20_000;

/** `share` of one core (512 MB: 0.289); `group`, the cgroup directory when it is enforced. */
export type Sandbox = { memoryMb: number; share: number; group?: string; problem?: string };
export const fullSpeed: Sandbox = { memoryMb: 1769, share: 1 };

const cpuRoot = "/sys/fs/cgroup/cpu";

/** The function infra/template.yaml serves a route with (the template owns the names). */
function functionServing(routeKey: string): string {
  const spec = routesOf().get(routeKey);
  if (!spec) throw new Error(`infra/template.yaml serves no ${routeKey}: the bench measures it`);
  return spec.name;
}
/** The functions of the contract's two operations; the variants export a handler of each name. */
export const listFunction = functionServing("GET /v1/categories");
export const createFunction = functionServing("POST /v1/categories");
export const benchFunctions = [listFunction, createFunction] as const;
export type BenchFunction = string;
export const variants = ["ours", "ours without metrics", "limit", "typical"] as const;
export type Variant = (typeof variants)[number];
type Bundles = Record<Variant, Record<BenchFunction, { path: string; bytes: number }>>;

/** One variant's bundle of one function, as buildAll made it. */
export function bundleOf(
  built: Built,
  variant: Variant,
  fn: BenchFunction,
): { path: string; bytes: number } {
  const made = built.bundles[variant][fn];
  if (!made) throw new Error(`no ${variant} bundle of ${fn}`);
  return made;
}
/** nodeOptions: the template's NODE_OPTIONS ("" when none), so that ours runs as deployed. */
export type Built = { bundles: Bundles; child: string; nodeOptions: string };

/** The variables the template sets for every function (Globals; no resource is named ""). */
const globals = templateFunctionEnv("").defaults;
/** How long every variant keeps a key's verdict: the deployed API key cache. */
const keyCacheSeconds = globals.API_KEY_CACHE_SECONDS ?? "";

const noOpMetrics = {
  name: "no-op-metrics",
  setup: (b: PluginBuild): void => {
    const path = resolve(projectRoot, "bench/variants/noMetrics.ts");
    b.onResolve({ filter: /^\.\/metrics\.ts$/ }, () => ({ path }));
  },
};

async function bundle(variant: Variant, fn: BenchFunction) {
  const dir = resolve(tmpDir, "bundles", variant, fn);
  const outfile = resolve(dir, "index.mjs");
  if (variant === "ours") {
    mkdirSync(dir, { recursive: true });
    for (const file of ["index.mjs", "index.mjs.map"])
      copyFileSync(resolve(projectRoot, "dist", fn, file), resolve(dir, file));
  } else if (variant === "ours without metrics") {
    const { options } = functionBuilds().find((b) => b.name === fn) ?? {};
    await build({ ...options, outfile, plugins: [noOpMetrics] });
  } else {
    // One bundle per function, as shipped: the entry re-exports that function's handler only.
    const contents = `export { ${fn} as handler } from "./${variant}.ts";`;
    const resolveDir = resolve(projectRoot, "bench/variants");
    await build({ ...lambdaBundleOptions, stdin: { contents, resolveDir, loader: "ts" }, outfile });
  }
  return { path: outfile, bytes: statSync(outfile).size };
}

export async function buildAll(): Promise<Built> {
  await buildFunctions();
  const bundles = {} as Bundles;
  for (const v of variants) {
    bundles[v] = {};
    for (const fn of benchFunctions) bundles[v][fn] = await bundle(v, fn);
  }
  const child = resolve(tmpDir, "child.mjs");
  const entryPoints = [resolve(projectRoot, "bench/child.ts")];
  const options = { bundle: true, format: "esm", platform: "node", target: "node24" } as const;
  await build({ ...options, entryPoints, outfile: child, logLevel: "warning" });
  return { bundles, child, nodeOptions: globals.NODE_OPTIONS ?? "" };
}

/** Removes the empty groups of bench runs that were killed (a `finally` never ran for them). */
function removeStaleGroups(): void {
  for (const name of readdirSync(cpuRoot)) {
    const pid = /^petstore-bench-(\d+)-\d+$/.exec(name)?.[1];
    if (pid === undefined || existsSync(`/proc/${pid}`)) continue;
    try {
      rmdirSync(resolve(cpuRoot, name));
    } catch {
      // Still holds a process (a child that outlived its run): left alone.
    }
  }
}

/** A cgroup for `memoryMb`, or an unenforced sandbox and the one-line reason. */
export function openSandbox(memoryMb: number): Sandbox {
  const share = Math.min(1, memoryMb / 1769);
  const group = `${cpuRoot}/petstore-bench-${String(process.pid)}-${String(memoryMb)}`;
  try {
    removeStaleGroups();
    mkdirSync(group, { recursive: true });
    writeFileSync(resolve(group, "cpu.cfs_period_us"), String(periodUs));
    writeFileSync(resolve(group, "cpu.cfs_quota_us"), String(Math.round(share * periodUs)));
    return { memoryMb, share, group };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const problem = `no writable cgroup v1 CPU controller (${reason}): running at FULL SPEED`;
    return { memoryMb, share, problem: `${problem}, not at Lambda's CPU share` };
  }
}

export function closeSandbox(sandbox: Sandbox): void {
  if (sandbox.group) rmdirSync(sandbox.group);
}

/** The functions' log goes to a file: piping it here would wake the store's process per line. */
let logFd: number | undefined;

/**
 * Runs the child with `task` in the sandbox's cgroup; returns what it wrote on fd 3. The child's
 * whole environment is what Lambda sets (none of npm's variables), with the template's API key
 * cache (every variant keeps a key's verdict as long: a warm call reads no key, as deployed) and
 * a rate limit none reaches.
 */
export async function runChild<Result>(
  child: string,
  task: ChildTask,
  sandbox: Sandbox,
  store = { endpoint: "", table: "", nodeOptions: "" },
): Promise<Result> {
  logFd ??= openSync(resolve(tmpDir, "function-stdout.log"), "w");
  // Node as Lambda's runtime starts it for this size: its heap limits and flags.
  const node = [process.execPath, ...lambdaNodeArgs(sandbox.memoryMb), child, JSON.stringify(task)];
  // The shell joins the cgroup, then becomes Node: Node's startup already runs under the quota.
  const [command = "", ...args] = sandbox.group
    ? ["/bin/sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', sandbox.group, ...node]
    : node;
  const env = {
    ...(store.nodeOptions && { NODE_OPTIONS: store.nodeOptions }),
    ...localFunctionEnv(store.endpoint, store.table),
    ...{ TZ: "UTC", API_KEY_CACHE_SECONDS: keyCacheSeconds },
    // The bench measures the service, not its rate limit: a limit no workload reaches, so one
    // lease (kept apart by bench/proxy.ts) serves a whole process.
    ...unthrottled,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(sandbox.memoryMb),
  };
  const proc = spawn(command, args, { env, stdio: ["ignore", logFd, "pipe", "pipe"] });
  const [stderr, result, code] = await Promise.all([
    text(proc.stderr as Readable),
    text(proc.stdio[3] as Readable),
    new Promise<number | null>((done, fail) => proc.once("error", fail).once("close", done)),
  ]);
  if (code !== 0 || result === "")
    throw new Error(
      `broken benchmark: a child exited with ${String(code)}:\n${stderr.slice(-2000)}`,
    );
  return JSON.parse(result) as Result;
}
