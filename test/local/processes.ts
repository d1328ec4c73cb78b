/**
 * What the tests of the local tools start them with: a script run to its exit (killed if it
 * outlives `timeoutMs`), with what it wrote and how long it took; a server script (npm start,
 * npm run dev) left serving until the test file ends; a server listening on a free port; a port
 * nothing listens on; a wait for a condition.
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import type { AddressInfo, Server } from "node:net";
import { resolve } from "node:path";
import { afterAll } from "vitest";
import { projectRoot } from "../../local/template.ts";

export interface Exit {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** `node <script> <args>` (a path from the project root), from the project root. */
export function runScript(
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<Exit> {
  const started = Date.now();
  const child = spawn(process.execPath, [resolve(projectRoot, script), ...args], {
    cwd: projectRoot,
    env,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill(), timeoutMs);
  return new Promise((done) => {
    // "close", not "exit": a busy machine may still hold the output's last chunks at exit.
    child.once("close", (status) => {
      clearTimeout(timer);
      done({ status, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** `server` listening on a free port of 127.0.0.1 (by default one that accepts and never answers). */
export async function listening(
  server: Server = createServer(),
): Promise<{ port: number; close: () => Promise<void> }> {
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise((done) => {
        server.close(() => {
          done();
        });
      }),
  };
}

/** A port nothing listens on: connections to it are refused. */
export async function closedPort(): Promise<number> {
  const { port, close } = await listening();
  await close();
  return port;
}

/** Polls `condition` until it holds or `timeoutMs` has passed; says whether it held. */
export async function until(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((settle) => setTimeout(settle, 50));
  }
  return condition();
}

export interface Serving {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly stop: () => Promise<void>;
}

export interface ServingOptions {
  /** The folder the script runs in and is found in (the project's, or a copy of it). */
  readonly cwd?: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** Whether its stderr says, beyond where it serves and with which key, that it is ready. */
  readonly ready?: (stderr: string) => boolean;
}

/**
 * A starter for server scripts on a free port (PORT=0): each resolves once the banner names the
 * address and the key, and rejects if the script exits first. Every one still running is stopped
 * (SIGTERM) after the file's tests. Call at a test file's top level.
 */
export function serverScripts(): (script: string, options?: ServingOptions) => Promise<Serving> {
  const children: ChildProcess[] = [];
  const stop = async (child: ChildProcess): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((done) => child.once("exit", done));
    child.kill("SIGTERM");
    await exited;
  };
  afterAll(async () => {
    await Promise.all(children.map(stop));
  });
  return (script, { cwd = projectRoot, args = [], env = {}, ready = () => true } = {}) => {
    const child = spawn(process.execPath, [resolve(cwd, script), ...args], {
      cwd,
      env: { ...process.env, PORT: "0", ...env },
    });
    children.push(child);
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    return new Promise((done, fail) => {
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
        const baseUrl = /at (http:\/\/\S+\/v1)/.exec(stderr)?.[1];
        const apiKey = /API key: (\S+)/.exec(stderr)?.[1];
        if (baseUrl && apiKey && ready(stderr)) {
          done({
            baseUrl,
            apiKey,
            stdout: () => stdout,
            stderr: () => stderr,
            stop: () => stop(child),
          });
        }
      });
      child.once("exit", (code) => {
        fail(new Error(`${script} exited (${String(code)}): ${stderr}`));
      });
    });
  };
}
