/**
 * Runs `scripts/start.ts` in a child process, exactly as `npm start` runs it after building, and
 * hands back its base URL, API key and captured request log (stdout: one JSON line per request).
 * Used by the tests and by `npm run load`.
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { resolve } from "node:path";
import { projectRoot } from "./template.ts";

export interface RunningServer {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Every stdout line so far (the request log). */
  readonly logLines: string[];
  /** Everything written to stderr so far. */
  readonly stderr: () => string;
  stop(): Promise<void>;
}

export interface ServerOptions {
  readonly dataDir?: string;
  readonly apiKey?: string;
  readonly env?: Record<string, string>;
}

export async function spawnLocalServer(options: ServerOptions = {}): Promise<RunningServer> {
  const args = ["--enable-source-maps", resolve(projectRoot, "scripts/start.ts")];
  if (!options.dataDir) args.push("--memory");
  const child = spawn(process.execPath, args, {
    cwd: projectRoot,
    env: {
      ...process.env,
      PORT: "0",
      ...(options.dataDir && { DATA_DIR: options.dataDir }),
      ...(options.apiKey && { PETSTORE_API_KEY: options.apiKey }),
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logLines: string[] = [];
  let stdoutRest = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    const lines = (stdoutRest + chunk).split("\n");
    stdoutRest = lines.pop() ?? "";
    logLines.push(...lines.filter((line) => line.length > 0));
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
    stderr: () => stderr,
    stop: () => stopChild(child),
  };
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
