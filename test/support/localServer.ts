/** The local server (scripts/start.ts in a child process) for tests: see local/serverProcess.ts. */
import { afterAll, beforeAll } from "vitest";
import type { RunningServer, ServerOptions } from "../../local/serverProcess.ts";
import { unthrottled } from "../../local/functionEnv.ts";
import { spawnLocalServer } from "../../local/serverProcess.ts";

export type { RunningServer, ServerOptions };

/** A test's server: a rate limit no test reaches unless the test sets one (RATE_LIMIT…). */
export const startServer = (options: ServerOptions = {}): Promise<RunningServer> =>
  spawnLocalServer({ ...options, env: { ...unthrottled, ...options.env } });

/** The local server of a test file, already started; `start()` starts it again after `stop()`. */
export interface LocalServer extends RunningServer {
  start(): Promise<void>;
}

/**
 * The local server of one test file (every test/http file): started as the file loads, stopped
 * after its last test. One line at the file's top level:
 *
 *     const { baseUrl: url, apiKey: key } = await localServer();
 *
 * With `dataDir` the store is kept there (the keys command and restarts reach it). After a
 * `stop()` and `start()` the server has a new port: read `baseUrl` from the object again.
 */
export async function localServer(options: ServerOptions = {}): Promise<LocalServer> {
  let server = await startServer(options);
  afterAll(async () => {
    await server.stop();
  });
  // A run that skips every test of the file (`-t`, `vitest list`) calls no afterAll: the worker's
  // SIGTERM at teardown stops the server then, and ends the worker as the signal would have.
  process.once("SIGTERM", () => {
    void server.stop();
    process.kill(process.pid, "SIGTERM");
  });
  // Not a spread: that would read the getters once, and `start()` would not be seen.
  return Object.assign(
    delegateTo(() => server),
    {
      start: async () => {
        server = await startServer(options);
      },
    },
  );
}

/**
 * A local server for a suite that may not run (a `describe.skipIf`): started before its tests,
 * stopped after, so a skipped suite starts none.
 */
export function useLocalServer(options: ServerOptions = {}): RunningServer {
  let server: RunningServer | undefined;
  beforeAll(async () => {
    server = await startServer(options);
  });
  afterAll(async () => {
    await server?.stop();
  });
  return delegateTo(() => {
    if (!server) throw new Error("the local server is not started (beforeAll)");
    return server;
  });
}

/** A server object that reads whichever server `current` answers, at each use. */
function delegateTo(current: () => RunningServer): RunningServer {
  return {
    get baseUrl() {
      return current().baseUrl;
    },
    get apiKey() {
      return current().apiKey;
    },
    get logLines() {
      return current().logLines;
    },
    get metricLines() {
      return current().metricLines;
    },
    get platformLines() {
      return current().platformLines;
    },
    stderr: () => current().stderr(),
    stop: () => current().stop(),
  };
}
