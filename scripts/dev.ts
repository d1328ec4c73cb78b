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

/** Resolves after the bundle's first build; later successful builds reload the server once. */
function watching(): { plugin: Plugin; built: Promise<void> } {
  let firstBuild: () => void = () => undefined;
  const built = new Promise<void>((done) => (firstBuild = done));
  const plugin: Plugin = {
    name: "reload-local-server",
    setup(build) {
      build.onEnd((result) => {
        firstBuild();
        // esbuild printed any errors; the code that built last keeps serving.
        if (result.errors.length > 0 || !live.reload) return;
        clearTimeout(pending);
        pending = setTimeout(() => {
          void live.reload?.().then(() => {
            const time = new Date().toLocaleTimeString();
            process.stderr.write(`[dev] ${time} rebuilt; serving the new code\n`);
          });
        }, 50);
      });
    },
  };
  return { plugin, built };
}

const builds = functionBuilds().map(({ options }) => ({ options, ...watching() }));
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
