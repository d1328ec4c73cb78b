/**
 * `npm run dev`: `npm start` that follows the code. A change under functions/ or lib/ rebuilds
 * every bundle (with the build's own options, scripts/build.ts); the server then serves each
 * function from a fresh container (a new module instance of the new bundle), with no restart:
 * the store, the port and the API key stay. A change to infra/template.yaml (routes, functions)
 * or to openapi.yaml's scopes (the build injects them) still needs a restart.
 *
 * One save is one line: `[dev] … rebuilt; serving the new code`, or esbuild's errors once and one
 * `rebuild failed` line. The folders are watched here, not by esbuild's own watch mode: that is one
 * watcher per bundle, each noticing a save at its own moment (it polls), so one save printed a
 * line per bundle and an error in lib/ once per bundle that includes it. Each folder is watched on
 * its own (node:fs's watch, not recursive): a folder's watch hears of its files by name, so a file
 * replaced by a rename (sed -i, an editor's atomic save) is still heard of when next saved in place;
 * the recursive watch, which watches each file it found, lost such a file after the rename.
 */
import { readdirSync, statSync, watch } from "node:fs";
import type { FSWatcher } from "node:fs";
import { join, resolve } from "node:path";
import { context, formatMessages } from "esbuild";
import type { BuildFailure, PartialMessage } from "esbuild";
import { projectRoot } from "../local/template.ts";
import { functionBuilds } from "./build.ts";
import { banner, readStart, startFromCommandLine, stopOnSignals } from "./start.ts";

// The command line first: --help and a mistake end here, before anything is built or watched.
const settings = readStart("dev", process.argv.slice(2));

/**
 * The rebuild lines' clock, in the shell's time zone: made before the server takes Lambda's UTC
 * (a formatter keeps the zone it was made in; naming the zone would fail on TZ= left empty).
 * 24-hour, as docs/local.md shows it (10:42:07), whatever the locale's habit.
 */
const clock = new Intl.DateTimeFormat(undefined, {
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
});

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
    const time = clock.format(new Date());
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

/** The watched folders: functions/, lib/ and every folder under them, each watched alone. */
const watchers = new Map<string, { readonly watcher: FSWatcher; readonly inode: number }>();

/** A folder's inode: a folder removed and made again under its name is another one. */
function inodeOf(folder: string): number | undefined {
  try {
    return statSync(folder).ino;
  } catch {
    return undefined;
  }
}

/** Watches the folders there are now (a new one from its first save on) and forgets gone ones. */
function watchFolders(): void {
  const roots = ["functions", "lib"].map((folder) => resolve(projectRoot, folder));
  const folders = new Set(roots);
  for (const root of roots) {
    let entries;
    try {
      entries = readdirSync(root, { withFileTypes: true, recursive: true });
    } catch {
      // A folder going away while it is read (a branch switch): the next change reads it again.
      continue;
    }
    for (const entry of entries)
      if (entry.isDirectory()) folders.add(join(entry.parentPath, entry.name));
  }
  for (const [folder, { watcher, inode }] of watchers)
    if (!folders.has(folder) || inodeOf(folder) !== inode) {
      watcher.close();
      watchers.delete(folder);
    }
  for (const folder of folders) {
    const inode = inodeOf(folder);
    if (watchers.has(folder) || inode === undefined) continue;
    const watcher = watch(folder, () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        watchFolders();
        void onChange();
      }, settleMs);
    });
    // A folder removed under its watch is forgotten (here, or by the inode check above), so one
    // made again under the same name is watched afresh at the next change.
    watcher.on("error", () => {
      watcher.close();
      if (watchers.get(folder)?.watcher === watcher) watchers.delete(folder);
    });
    watchers.set(folder, { watcher, inode });
  }
}
watchFolders();
// Only now: a save from here on is heard (the tests save as soon as they read this line).
process.stderr.write("[dev] watching functions/ and lib/; changes are served without a restart\n");

stopOnSignals(server, async () => {
  clearTimeout(timer);
  for (const { watcher } of watchers.values()) watcher.close();
  await Promise.all(builds.map(({ ctx }) => ctx.dispose()));
});
