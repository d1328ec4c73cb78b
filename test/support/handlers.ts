/**
 * Any function of infra/template.yaml by name, built as its index.ts builds it: functions/<name>/
 * handler.ts's `build`, with what the build tells it of the declarations. The test harnesses
 * (test/functions/harness.ts, securityHarness.ts) give it their wiring (store, env, log).
 */
import { resolve } from "node:path";
import type { DepsOptions } from "../../lib/deps.ts";
import type { ServiceHandler } from "../../lib/middleware.ts";
import type { Declared } from "../../lib/routes.ts";
import type { Scope } from "../../lib/scopes.ts";
import { functionsOf, projectRoot } from "../../local/template.ts";
import { declaredFor } from "../../scripts/build.ts";

type Build = (options: DepsOptions, declared: Declared) => ServiceHandler;

/** What the build tells function `name` of the declarations (scripts/build.ts, `declaredFor`). */
export function declaredOf(name: string): Declared {
  const spec = functionsOf().find((candidate) => candidate.name === name);
  if (!spec) throw new Error(`infra/template.yaml has no function ${name}`);
  return declaredFor(spec);
}

/** The scope openapi.yaml declares for function `name`'s routes. */
export function scopeOf(name: string): Scope {
  const { scope } = declaredOf(name);
  if (!scope) throw new Error(`openapi.yaml declares no scope for ${name}'s routes`);
  return scope;
}

export async function buildHandler(
  name: string,
  wire: (build: (options: DepsOptions) => ServiceHandler) => ServiceHandler,
): Promise<ServiceHandler> {
  const { build } = (await import(resolve(projectRoot, "functions", name, "handler.ts"))) as {
    build?: Build;
  };
  if (!build) throw new Error(`functions/${name}/handler.ts exports no build(options, declared)`);
  const declared = declaredOf(name);
  return wire((options) => build(options, declared));
}
