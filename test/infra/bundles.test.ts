/**
 * Every function's CodeUri + Handler resolves to a bundle from `npm run build` (the suite's
 * global setup runs buildFunctions()) that loads as the Lambda Node.js runtime loads it: the
 * folder alone (as the zip `sam deploy` uploads, no node_modules anywhere above it), the .mjs
 * imported as ESM, the named export read, the template's environment plus what Lambda sets.
 * The loaded handler then answers a request that needs no store (401 or 404), and a failure it
 * logs names source lines (lib/stackTrace.ts), though no NODE_OPTIONS turns source maps on.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { generateKey } from "../../lib/keyFormat.ts";
import { functionsOf, projectRoot } from "../../local/template.ts";
import { stageConfig } from "../../scripts/stages.ts";
import { evaluate, parameterValues } from "../support/cfnConditions.ts";
import { isObject, text } from "../support/cloudFormation.ts";
import { gatewayEvent, runBundleAlone } from "../support/lambdaRuntime.ts";
import { scratchDir } from "../support/scratchDir.ts";
import { environmentOf, template } from "../support/templateResources.ts";

const functions = functionsOf();
const scratch = scratchDir("petstore-lambda-");

/** The function's environment as CloudFormation would set it for staging. */
function templateEnvironment(logicalId: string): Record<string, string> {
  const parameters = parameterValues(template, stageConfig("staging").parameters);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(environmentOf(logicalId))) {
    // Refs to resources become their physical names; parameters their stage values.
    const resolved =
      isObject(value) && typeof value.Ref === "string" && value.Ref in template.Resources
        ? `petstore-staging-${value.Ref}`
        : evaluate(value, parameters, template.Conditions);
    env[name] = text(resolved);
  }
  return env;
}

describe.each(functions.map((spec) => [spec.name, spec] as const))("%s bundle", (_name, spec) => {
  const file = resolve(spec.codeDir, spec.handlerFile);

  it("is where CodeUri and Handler point: one ESM index file with its source map", () => {
    expect(spec.codeDir).toBe(resolve(projectRoot, "dist", spec.name));
    expect(existsSync(file), `${file} missing: run npm run build`).toBe(true);
    // Lambda would pick index.js or index.cjs over our file if one were there.
    const entries = readdirSync(spec.codeDir).filter((name) => /^index\.[cm]?js$/.test(name));
    expect(entries).toEqual(["index.mjs"]);
    const code = readFileSync(file, "utf8");
    expect(code).toMatch(/\/\/# sourceMappingURL=index\.mjs\.map\s*$/);
    const map = JSON.parse(readFileSync(`${file}.map`, "utf8")) as { sources: string[] };
    expect(map.sources.some((source) => source.endsWith(`functions/${spec.name}/index.ts`))).toBe(
      true,
    );
  });

  // What it imports from outside itself: test/infra/bundleContents.test.ts (esbuild's metafile).

  // The pre-traffic hook answers CodeDeploy, not requests: test/infra/deployHook.test.ts runs it.
  if (spec.routeKeys.length === 0) return;

  const runAlone = (
    eventJson: string,
    overrides: Record<string, string> = {},
    remainingMs = 5000,
  ) =>
    runBundleAlone(
      spec,
      scratch,
      eventJson,
      { template: templateEnvironment(spec.logicalId), overrides },
      remainingMs,
    );

  it("loads alone as the Lambda runtime loads it and answers", () => {
    const routeKey = spec.routeKeys[0] ?? "$default";
    const { report } = runAlone(gatewayEvent(routeKey));
    expect(report.exportType).toBe("function");
    // No Authorization header: 401 before any store call; $default: 404 without one.
    const expected = routeKey === "$default" ? 404 : 401;
    expect(report.statusCode, report.body).toBe(expected);
  });

  // A key makes the function call the store, which is unreachable here: a 503 whose log line
  // carries the failure's stack, mapped from the minified bundle to source lines on the way out.
  // A key of staging's format: staging refuses any other shape unread (AllowLegacyCredentials).
  const storeRoute = spec.routeKeys.find((key) => key !== "$default");
  if (!storeRoute) return;
  it("logs a failure's stack with source file lines, not minified bundle offsets", () => {
    const { report, stdout } = runAlone(
      gatewayEvent(storeRoute, `Bearer ${generateKey("staging")}`),
      { DYNAMODB_ENDPOINT: "http://127.0.0.1:9", STORE_ATTEMPT_TIMEOUT_MS: "200" },
      1000,
    );
    expect(report.statusCode, report.body).toBe(503);
    const logged = stdout
      .split("\n")
      .filter((text) => text.startsWith("{"))
      .map((text) => JSON.parse(text) as { detail?: string })
      .find((entry) => entry.detail !== undefined);
    expect(logged?.detail).toMatch(/\n\s+at .*\blib\/[\w/]+\.ts:\d+:\d+/);
    expect(logged?.detail).not.toMatch(/index\.mjs:\d+:\d+/);
  });
});
