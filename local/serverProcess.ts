/**
 * Runs `scripts/start.ts` in a child process, exactly as `npm start` runs it after building, and
 * hands back its base URL, API key and captured stdout: the request log (one JSON line per
 * request) and, apart from it, the functions' metrics (EMF lines, lib/metrics.ts). Used by the
 * tests and by `npm run load`.
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { resolve } from "node:path";
import { projectRoot } from "./template.ts";

export interface RunningServer {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Every request log line so far (stdout without the EMF and Lambda's own lines). */
  readonly logLines: string[];
  /** Lambda's START, END and REPORT lines so far, as JSON (local/lambdaLines.ts). */
  readonly platformLines: string[];
  /** Every EMF line so far (CloudWatch metrics, one JSON document per line). */
  readonly metricLines: string[];
  /** Everything written to stderr so far. */
  readonly stderr: () => string;
  stop(): Promise<void>;
}

export interface ServerOptions {
  readonly dataDir?: string;
  readonly apiKey?: string;
  readonly env?: Record<string, string>;
  /** More command-line arguments for scripts/start.ts, e.g. --parameter-overrides. */
  readonly args?: readonly string[];
}

export async function spawnLocalServer(options: ServerOptions = {}): Promise<RunningServer> {
  const args = ["--enable-source-maps", resolve(projectRoot, "scripts/start.ts")];
  if (!options.dataDir) args.push("--memory");
  args.push(...(options.args ?? []));
  const child = spawn(process.execPath, args, {
    cwd: projectRoot,
    env: {
      ...process.env,
      PORT: "0",
      // The raw lines (the request log, the EMF metrics) that logLines and metricLines hold.
      LOG_FORMAT: "json",
      // The tools measure the service, not Lambda's limits: a request finding every container
      // busy waits for one rather than be throttled, and a function has at most 4 containers,
      // still several (what shows only across containers shows in the tests) but few enough for
      // 2 cores, where each is a thread and a cold start (docs/local.md).
      LOCAL_CONCURRENCY: "4",
      LOCAL_CONCURRENCY_OVERFLOW: "queue",
      ...(options.dataDir && { DATA_DIR: options.dataDir }),
      ...(options.apiKey && { PETSTORE_API_KEY: options.apiKey }),
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logLines: string[] = [];
  const metricLines: string[] = [];
  const platformLines: string[] = [];
  let stdoutRest = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    const lines = (stdoutRest + chunk).split("\n");
    stdoutRest = lines.pop() ?? "";
    for (const line of lines) {
      if (line.length === 0) continue;
      if (isPlatformLine(line)) platformLines.push(line);
      else (isEmfLine(line) ? metricLines : logLines).push(line);
    }
  });
  const ready = new Promise<{ baseUrl: string; apiKey: string }>((resolveReady, reject) => {
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      const url = /at (http:\/\/\S+\/v1)/.exec(stderr)?.[1];
      const key = /API key: (\S+)/.exec(stderr)?.[1];
      if (url && key) resolveReady({ baseUrl: url, apiKey: key });
    });
    child.once("exit", (code) => {
      reject(new Error(`local server exited (${String(code)}): ${stderr}`));
    });
  });
  const { baseUrl, apiKey } = await ready;
  return {
    baseUrl,
    apiKey,
    logLines,
    metricLines,
    platformLines,
    stderr: () => stderr,
    stop: () => stopChild(child),
  };
}

/**
 * An EMF document as Powertools writes it: `_aws` is its first key (JSON.stringify keeps the
 * order it was built in), while a request log line starts with `time`.
 */
export function isEmfLine(line: string): boolean {
  return line.startsWith('{"_aws":');
}

/** Lambda's own line in the JSON format: `{"time":…,"type":"platform.…"` (local/lambdaLines.ts). */
export function isPlatformLine(line: string): boolean {
  return /^\{"time":"[^"]*","type":"platform\./.test(line);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once("exit", () => {
      done();
    });
    child.kill("SIGTERM");
  });
}
