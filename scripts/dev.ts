/**
 * `npm run dev`: `npm start` that follows the code. A change under functions/ or lib/ rebuilds
 * every bundle (with the build's own options, scripts/build.ts); the server then serves each
 * function from a fresh container (a new module instance of the new bundle), with no restart:
 * the store, the port and the API key stay. A change to infra/template.yaml (routes, functions)
 * or to openapi.yaml's scopes (the build injects them) still needs a restart.
 *
 * One save is one line: `[dev] … rebuilt; serving the new code`, or esbuild's errors once and one
 * `rebuild failed` line. The folders are watched here (node:fs's recursive watch), not by esbuild's
 * own watch mode: that is one watcher per bundle, each noticing a save at its own moment (it polls),
 * so one save printed a line per bundle and an error in lib/ once per bundle that includes it.
 */
import { watch } from "node:fs";
import { resolve } from "node:path";
import { context, formatMessages } from "esbuild";
import type { BuildFailure, PartialMessage } from "esbuild";
import { projectRoot } from "../local/template.ts";
import { functionBuilds } from "./build.ts";
import { banner, readStart, startFromCommandLine, stopOnSignals } from "./start.ts";

// The command line first: --help and a mistake end here, before anything is built or watched.
const settings = readStart("dev", process.argv.slice(2));

/** Saves that arrive within this long of each other are one change (an editor's temp file and rename). */
const settleMs = 100;

const builds = await Promise.all(
  functionBuilds().map(async ({ name, options }) => ({
    name,
    // esbuild's own log is off: the errors of all bundles are printed here, each once.
    ctx: await context({ ...options, logLevel: "silent" }),
  })),
);

/** Rebuilds every bundle; the names that failed and their errors, each error once. */
async function rebuildAll(): Promise<{ failed: string[]; errors: PartialMessage[] }> {
  const outcomes = await Promise.allSettled(builds.map(({ ctx }) => ctx.rebuild()));
  const failed: string[] = [];
  const errors = new Map<string, PartialMessage>();
  outcomes.forEach((outcome, index) => {
    if (outcome.status === "fulfilled") return;
    failed.push(builds[index]?.name ?? "?");
    // A failed build rejects with esbuild's BuildFailure; anything else is one message of its own.
    const reason: unknown = outcome.reason;
    const messages: PartialMessage[] = (reason as Partial<BuildFailure> | undefined)?.errors ?? [
      { text: reason instanceof Error ? reason.message : String(reason) },
    ];
    for (const message of messages) {
      const where = message.location;
      const key = `${where?.file ?? ""}:${String(where?.line)}:${String(where?.column)}:${message.text}`;
      errors.set(key, message);
    }
  });
  return { failed, errors: [...errors.values()] };
}

async function printErrors(errors: PartialMessage[]): Promise<void> {
  const color = process.stderr.isTTY;
  const lines = await formatMessages(errors, { kind: "error", color });
  process.stderr.write(lines.join(""));
}

const first = await rebuildAll();
if (first.failed.length > 0) await printErrors(first.errors);
const server = await startFromCommandLine(settings);
process.stderr.write(banner(server));
process.stderr.write("[dev] watching functions/ and lib/; changes are served without a restart\n");

let timer: NodeJS.Timeout | undefined;
let running = false;
let again = false;

/** One settled change: rebuild everything, then one line saying what is served. */
async function onChange(): Promise<void> {
  if (running) {
    again = true;
    return;
  }
  running = true;
  try {
    const { failed, errors } = await rebuildAll();
    const time = new Date().toLocaleTimeString();
    if (failed.length > 0) {
      await printErrors(errors);
      process.stderr.write(
        `[dev] ${time} rebuild failed (${failed.join(", ")}; esbuild's errors above): the last good code is still serving. Fix the error and save again.\n`,
      );
    } else {
      await server.reload();
      process.stderr.write(`[dev] ${time} rebuilt; serving the new code\n`);
    }
  } finally {
    running = false;
  }
  if (again) {
    again = false;
    await onChange();
  }
}

const watchers = ["functions", "lib"].map((folder) =>
  watch(resolve(projectRoot, folder), { recursive: true }, () => {
    clearTimeout(timer);
    timer = setTimeout(() => void onChange(), settleMs);
  }),
);

stopOnSignals(server, async () => {
  clearTimeout(timer);
  for (const watcher of watchers) watcher.close();
  await Promise.all(builds.map(({ ctx }) => ctx.dispose()));
});
