/**
 * A command run to its end without blocking this process (a server the test runs may have to
 * answer it): its exit code and everything it wrote.
 */
import { spawn } from "node:child_process";
import { projectRoot } from "../../local/template.ts";

export interface Finished {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

export function runCommand(
  file: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; stdin?: string } = {},
): Promise<Finished> {
  return new Promise((done, fail) => {
    const child = spawn(file, args, {
      cwd: projectRoot,
      stdio: ["pipe", "pipe", "pipe"],
      env: options.env ?? process.env,
    });
    child.stdin.end(options.stdin ?? "");
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
    child.once("error", fail);
    // "close", not "exit": a busy machine may still hold the output's last chunks at exit.
    child.once("close", (code) => {
      done({ code: code ?? -1, out, err });
    });
  });
}
