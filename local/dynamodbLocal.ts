/**
 * AWS's DynamoDB Local as a child process on a free port: the embedded store closest to the
 * service (transactions, ReturnValuesOnConditionCheckFailure, the service's validation), at the
 * cost of a JVM (a few seconds to start, ~150-200 MB). Needs Java 17; the jar is fetched on first
 * use. It has no option to bind one interface: it listens on all of them, unlike dynalite (loopback).
 */
import { spawn } from "node:child_process";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { delimiter, join } from "node:path";
import { ensureDynamodbLocalJar } from "./dynamodbLocalJar.ts";
import { SetupError } from "./setupError.ts";

export interface DynamodbLocal {
  readonly endpoint: string;
  close(): Promise<void>;
}

const readyTimeoutMs = 60_000;
// One GC thread and the quick compiler only: the JVM starts sooner on a small, shared machine.
const jvmFlags = ["-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"];
/**
 * The JVM would outlive a parent killed outright (SIGKILL, a crashed test worker). This shell
 * keeps the JVM's lifetime tied to its stdin, a pipe from this process: when the pipe closes,
 * whichever way this process ends, `cat` returns and the JVM is stopped (killed after 10 s).
 */
const watchdog = [
  'exec 3<&0; "$0" "$@" 3<&- </dev/null & jvm=$!',
  '{ cat <&3 >/dev/null; kill "$jvm"; n=0',
  'while kill -0 "$jvm" && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done',
  'kill -9 "$jvm"; } 2>/dev/null &',
  'exec 3<&-; wait "$jvm"',
].join("\n");

/** The java launcher: $JAVA_HOME/bin/java, else the first on PATH. */
export function findJava(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dirs = [
    ...(env.JAVA_HOME ? [join(env.JAVA_HOME, "bin")] : []),
    ...(env.PATH ?? "").split(delimiter).filter(Boolean),
  ];
  for (const dir of dirs) {
    try {
      accessSync(join(dir, "java"), constants.X_OK);
      return join(dir, "java");
    } catch {
      // not here
    }
  }
  return undefined;
}

export function requireJava(): string {
  const java = findJava();
  if (!java) {
    throw new SetupError(
      "DynamoDB Local needs Java 17 or later: apt-get install -y openjdk-17-jre-headless",
    );
  }
  return java;
}

/** In memory, or persisted in `dataDir` (which must exist). */
export async function startDynamodbLocal(
  options: { dataDir?: string } = {},
): Promise<DynamodbLocal> {
  const java = requireJava();
  const dir = await ensureDynamodbLocalJar();
  // DynamoDB Local takes no port 0: pick a free one, and on the rare race for it, pick again.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const args = [
      ...jvmFlags,
      `-Djava.library.path=${join(dir, "DynamoDBLocal_lib")}`,
      "-jar",
      join(dir, "DynamoDBLocal.jar"),
      ...(options.dataDir ? ["-dbPath", options.dataDir] : ["-inMemory"]),
      ...["-port", String(port), "-disableTelemetry"],
    ];
    const child = spawn("sh", ["-c", watchdog, java, ...args], { cwd: dir });
    const output = capture(child);
    const failure = await waitUntilReady(child, port, output);
    if (!failure) return { endpoint: `http://127.0.0.1:${port}`, close: () => stop(child) };
    await stop(child);
    if (failure !== "port taken" || attempt >= 5) {
      throw new Error(`DynamoDB Local did not start on port ${port}: ${failure}`);
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => {
        resolvePort(port);
      });
    });
  });
}

/** The JVM's last words (bounded), for error messages. */
function capture(child: ChildProcessWithoutNullStreams): () => string {
  let text = "";
  const keep = (chunk: Buffer): void => {
    text = (text + chunk.toString("utf8")).slice(-8192);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  return () => text;
}

const portTaken = (output: string): boolean => /BindException|Address already in use/.test(output);

/** Undefined once the server answers HTTP; otherwise why it never will. */
async function waitUntilReady(
  child: ChildProcessWithoutNullStreams,
  port: number,
  output: () => string,
): Promise<string | undefined> {
  const deadline = Date.now() + readyTimeoutMs;
  while (Date.now() < deadline) {
    // A failed bind leaves the JVM running, so read its output rather than wait for an exit.
    if (portTaken(output())) return "port taken";
    if (child.exitCode !== null) return `exited (${child.exitCode}): ${lastLine(output())}`;
    if ((await answers(port)) && !portTaken(output())) return undefined;
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  }
  return `no answer within ${readyTimeoutMs / 1000} s: ${lastLine(output())}`;
}

async function answers(port: number): Promise<boolean> {
  try {
    const answer = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) });
    await answer.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

function lastLine(output: string): string {
  const lines = output.split("\n").filter((line) => line.trim().length > 0);
  return lines.at(-1)?.trim() ?? "(no output)";
}

function stop(child: ChildProcessWithoutNullStreams): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once("exit", () => {
      done();
    });
    child.stdin.end(); // the watchdog stops the JVM; the shell exits with it
  });
}
