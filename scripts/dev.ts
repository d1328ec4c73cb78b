/**
 * `npm run dev`: `npm start` that follows the code. esbuild watches functions/ and lib/ (with
 * the build's own options, scripts/build.ts) and rebuilds the bundles on every change; the
 * server then serves each function from a fresh container (a new module instance of the new
 * bundle), with no restart: the store, the port and the API key stay. A change to
 * infra/template.yaml (routes, functions) still needs a restart.
 */
import { context } from "esbuild";
import type { Plugin } from "esbuild";
import { functionBuilds } from "./build.ts";
import { banner, readStart, startFromCommandLine, stopOnSignals } from "./start.ts";

// The command line first: --help and a mistake end here, before anything is built or watched.
const settings = readStart("dev", process.argv.slice(2));

/** Set once the server runs: builds before that are the first ones. */
const live: { reload?: () => Promise<void> } = {};
let pending: NodeJS.Timeout | undefined;
/** The functions whose bundle failed or succeeded to rebuild since the last report. */
const failed = new Set<string>();
const rebuilt = new Set<string>();

/** After a burst of rebuilds (one change rebuilds every bundle it is in): say what is served. */
function report(): void {
  const time = new Date().toLocaleTimeString();
  const [broken, fresh] = [[...failed], [...rebuilt]];
  failed.clear();
  rebuilt.clear();
  if (broken.length > 0) {
    process.stderr.write(
      `[dev] ${time} rebuild failed (${broken.join(", ")}; esbuild's errors above): the last good code is still serving. Fix the error and save again.\n`,
    );
  }
  if (fresh.length === 0) return;
  void live.reload?.().then(() => {
    const which = broken.length > 0 ? ` (${fresh.join(", ")})` : "";
    process.stderr.write(`[dev] ${time} rebuilt${which}; serving the new code\n`);
  });
}

/** Resolves after the bundle's first build; later builds are reported once per burst. */
function watching(name: string): { plugin: Plugin; built: Promise<void> } {
  let firstBuild: () => void = () => undefined;
  const built = new Promise<void>((done) => (firstBuild = done));
  const plugin: Plugin = {
    name: "reload-local-server",
    setup(build) {
      build.onEnd((result) => {
        firstBuild();
        if (!live.reload) return;
        // esbuild printed any errors; the bundle that built last stays on disk and serving.
        (result.errors.length > 0 ? failed : rebuilt).add(name);
        clearTimeout(pending);
        pending = setTimeout(report, 50);
      });
    },
  };
  return { plugin, built };
}

const builds = functionBuilds().map(({ name, options }) => ({ options, ...watching(name) }));
const contexts = await Promise.all(
  builds.map(({ options, plugin }) => context({ ...options, plugins: [plugin] })),
);
await Promise.all(contexts.map((ctx) => ctx.watch()));
await Promise.all(builds.map(({ built }) => built));
const server = await startFromCommandLine(settings);
live.reload = () => server.reload();
process.stderr.write(banner(server));
process.stderr.write("[dev] watching functions/ and lib/; changes are served without a restart\n");
stopOnSignals(server, async () => {
  await Promise.all(contexts.map((ctx) => ctx.dispose()));
});
