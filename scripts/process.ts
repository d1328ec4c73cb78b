/**
 * Running the operator's tools (git, the SAM CLI) from the deploy and smoke commands: with the
 * terminal attached, or with the output captured. A missing tool is exit code 127, as in a
 * shell, never an exception.
 */
import { spawn } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";

export interface Captured {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export type Capture = (command: string, args: readonly string[]) => Promise<Captured>;

/** A failed tool's last words, which name the cause (no such stack, expired token, …). */
export function lastWords(stderr: string, code: number): string {
  return (
    stderr
      .trim()
      .split("\n")
      .findLast((line) => line.trim() !== "")
      ?.trim() ?? `exit ${code}`
  );
}

// sam.cmd on Windows is a batch file, which only a shell can start.
const shell = process.platform === "win32";

export const capture: Capture = (command, args) =>
  new Promise((done) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], shell });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", (error) => {
      done({ code: 127, stdout, stderr: `${command}: ${error.message}` });
    });
    child.once("close", (code, signal) => {
      done({ code: code ?? (signal ? 128 : 1), stdout, stderr });
    });
  });

/** Runs a command with the terminal attached; resolves to its exit code. */
export function runAttached(command: string, args: readonly string[]): Promise<number> {
  return new Promise((done) => {
    const child = spawn(command, args, { stdio: "inherit", shell });
    child.once("error", (error) => {
      process.stderr.write(`${command}: ${error.message}\n`);
      done(127);
    });
    child.once("exit", (code, signal) => {
      done(code ?? (signal ? 128 : 1));
    });
  });
}

export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Like `command -v`: the first executable `name` on PATH (PATHEXT on Windows). */
export function which(
  name: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string | undefined {
  const extensions =
    process.platform === "win32" ? (env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";") : [""];
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    for (const extension of extensions) {
      const candidate = join(dir, name + extension);
      try {
        accessSync(candidate, constants.X_OK);
        if (statSync(candidate).isFile()) return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}
