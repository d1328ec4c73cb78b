/** Runs the operator's keys command (scripts/keys.ts) against a local store folder. */
import { spawn, spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { projectRoot } from "../../local/template.ts";

export interface CommandRun {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

export function keysCommand(dataDir: string, ...args: string[]): CommandRun {
  return keysCommandFed(dataDir, "", ...args);
}

/** The keys command with `input` on its standard input (`revoke -` reads a key there). */
export function keysCommandFed(dataDir: string, input: string, ...args: string[]): CommandRun {
  const run = spawnSync(process.execPath, [resolve(projectRoot, "scripts/keys.ts"), ...args], {
    cwd: projectRoot,
    env: { ...process.env, DATA_DIR: dataDir },
    encoding: "utf8",
    input,
  });
  return { status: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}

/** Issues a key with `keys create` and reads the key and its id from the output. */
export function issueKey(dataDir: string, ...extra: string[]): { key: string; keyId: string } {
  const run = keysCommand(dataDir, "create", "--label", "test-client", ...extra);
  const key = /^(petstore_\S+)$/m.exec(run.stdout)?.[1];
  const keyId = /^(key_[0-9a-f]+)/m.exec(run.stdout)?.[1];
  if (run.status !== 0 || !key || !keyId)
    throw new Error(`keys create failed: ${run.stdout}${run.stderr}`);
  return { key, keyId };
}

/**
 * `npm run keys -- <args>` over `dataDir` with `env` added, without blocking this process (so a
 * store it runs itself can answer the command).
 */
export function keysCommandAsync(
  dataDir: string,
  env: Record<string, string>,
  ...args: string[]
): Promise<CommandRun> {
  const child = spawn(process.execPath, [resolve(projectRoot, "scripts/keys.ts"), ...args], {
    cwd: projectRoot,
    env: { ...process.env, DATA_DIR: dataDir, ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((done) => {
    child.once("close", (status) => {
      done({ status: status ?? -1, stdout, stderr });
    });
  });
}
