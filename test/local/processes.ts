/**
 * What the tests of the local tools start them with: a script run to its exit (killed if it
 * outlives `timeoutMs`), with what it wrote and how long it took; a server listening on a free
 * port; a port nothing listens on.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import type { AddressInfo, Server } from "node:net";
import { resolve } from "node:path";
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
    child.once("exit", (status) => {
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
