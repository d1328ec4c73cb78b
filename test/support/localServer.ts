/** The local server (scripts/start.ts in a child process) for tests: see local/serverProcess.ts. */
import { afterAll, beforeAll } from "vitest";
import type { RunningServer, ServerOptions } from "../../local/serverProcess.ts";
import { unthrottled } from "../../local/functionEnv.ts";
import { spawnLocalServer } from "../../local/serverProcess.ts";

export type { RunningServer, ServerOptions };

/** A test's server: a rate limit no test reaches unless the test sets one (RATE_LIMIT…). */
export const startServer = (options: ServerOptions = {}): Promise<RunningServer> =>
  spawnLocalServer({ ...options, env: { ...unthrottled, ...options.env } });

/** A local server for one test file: started before its tests, stopped after. */
export function useLocalServer(options: ServerOptions = {}): RunningServer {
  let server: RunningServer | undefined;
  beforeAll(async () => {
    server = await startServer(options);
  });
  afterAll(async () => {
    await server?.stop();
  });
  const running = (): RunningServer => {
    if (!server) throw new Error("the local server is not started (beforeAll)");
    return server;
  };
  return {
    get baseUrl() {
      return running().baseUrl;
    },
    get apiKey() {
      return running().apiKey;
    },
    get logLines() {
      return running().logLines;
    },
    get metricLines() {
      return running().metricLines;
    },
    stderr: () => running().stderr(),
    stop: () => running().stop(),
  };
}
