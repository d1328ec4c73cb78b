/**
 * Any function of infra/template.yaml by name, built as its index.ts builds it: functions/<name>/
 * handler.ts's `build`, with the routes the template serves. The test harnesses
 * (test/functions/harness.ts, securityHarness.ts) give it their wiring (store, env, log).
 */
import { resolve } from "node:path";
import type { DepsOptions } from "../../lib/deps.ts";
import type { ServiceHandler } from "../../lib/middleware.ts";
import type { RouteTable } from "../../lib/routes.ts";
import { projectRoot, servedRoutes } from "../../local/template.ts";

type Build = (options: DepsOptions, routes: RouteTable) => ServiceHandler;

export async function buildHandler(
  name: string,
  wire: (build: (options: DepsOptions) => ServiceHandler) => ServiceHandler,
): Promise<ServiceHandler> {
  const { build } = (await import(resolve(projectRoot, "functions", name, "handler.ts"))) as {
    build?: Build;
  };
  if (!build) throw new Error(`functions/${name}/handler.ts exports no build(options, routes)`);
  const routes = servedRoutes();
  return wire((options) => build(options, routes));
}
