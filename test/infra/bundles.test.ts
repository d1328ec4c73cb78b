/**
 * Every function's CodeUri + Handler resolves to a bundle from `npm run build` (the suite's
 * global setup runs buildFunctions()) that loads as the Lambda Node.js runtime loads it: the
 * folder alone (as the zip `sam deploy` uploads, no node_modules anywhere above it), the .mjs
 * imported as ESM, the named export read, the template's environment plus what Lambda sets.
 * The loaded handler then answers a request that needs no store (401 or 404), and a failure it
 * logs names source lines (lib/stackTrace.ts), though no NODE_OPTIONS turns source maps on.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { sampleApiKey } from "../../local/functionEnv.ts";
import { functionsOf, loadTemplate, projectRoot } from "../../local/template.ts";
import { stageConfig } from "../../scripts/stages.ts";
import type { Json, JsonObject } from "../support/cloudFormation.ts";
import { evaluate, isObject, parameterValues, raw, text } from "../support/cloudFormation.ts";

const template = raw(loadTemplate());
const functions = functionsOf();
const scratch = mkdtempSync(join(tmpdir(), "petstore-lambda-"));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** The function's environment as CloudFormation would set it for staging. */
function templateEnvironment(logicalId: string): Record<string, string> {
  const parameters = parameterValues(template, stageConfig("staging").parameters);
  const variables = {
    ...variablesOf(template.Globals.Function.Environment),
    ...variablesOf(template.Resources[logicalId]?.Properties?.Environment),
  };
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(variables)) {
    // Refs to resources become their physical names; parameters their stage values.
    const resolved =
      isObject(value) && typeof value.Ref === "string" && value.Ref in template.Resources
        ? `petstore-staging-${value.Ref}`
        : evaluate(value, parameters, template.Conditions);
    env[name] = text(resolved);
  }
  return env;
}

function variablesOf(environment: Json | undefined): JsonObject {
  return isObject(environment) && isObject(environment.Variables) ? environment.Variables : {};
}

/** What the runtime does for an ESM handler, then one invocation; prints a JSON report. */
const loader = `
const [file, exportName, event, remainingMs] = process.argv.slice(1);
const module = await import(file);
const handler = module[exportName];
const report = { exportType: typeof handler, exports: Object.keys(module) };
if (typeof handler === "function") {
  const context = {
    awsRequestId: "bundle-test", functionName: "bundle-test", functionVersion: "$LATEST",
    invokedFunctionArn: "arn:aws:lambda:eu-west-1:000000000000:function:bundle-test",
    memoryLimitInMB: "512", logGroupName: "/aws/lambda/bundle-test", logStreamName: "x",
    callbackWaitsForEmptyEventLoop: true, getRemainingTimeInMillis: () => Number(remainingMs),
  };
  const result = await handler(JSON.parse(event), context);
  report.statusCode = result?.statusCode;
  report.body = result?.body;
}
process.stdout.write("REPORT " + JSON.stringify(report) + "\\n");
`;

function event(routeKey: string, authorization?: string): string {
  const [method = "GET", pattern = "/v1/not-a-route"] =
    routeKey === "$default" ? ["GET", "/v1/not-a-route"] : routeKey.split(" ");
  const path = pattern.replaceAll(/\{[^}]+\}/g, "1");
  return JSON.stringify({
    version: "2.0",
    routeKey,
    rawPath: path,
    rawQueryString: "",
    headers: {
      host: "example.execute-api.eu-west-1.amazonaws.com",
      ...(authorization !== undefined && { authorization }),
    },
    requestContext: {
      accountId: "000000000000",
      apiId: "example",
      domainName: "example.execute-api.eu-west-1.amazonaws.com",
      domainPrefix: "example",
      http: { method, path, protocol: "HTTP/1.1", sourceIp: "192.0.2.1", userAgent: "test" },
      requestId: "bundle-test",
      routeKey,
      stage: "$default",
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    isBase64Encoded: false,
  });
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

  it("imports nothing but Node built-ins", () => {
    const code = readFileSync(file, "utf8");
    const specifiers = [
      ...code.matchAll(
        /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s*|\brequire\s*\(\s*)["']([^"']+)["']/g,
      ),
    ].map((match) => match[1] ?? "");
    const external = specifiers.filter((name) => !name.startsWith("node:"));
    expect(external).toEqual([]);
  });

  // The pre-traffic hook answers CodeDeploy, not requests: test/infra/deployHook.test.ts runs it.
  if (spec.routeKeys.length === 0) return;

  /** Runs the bundle alone, from a copy of its folder, on one event; its report and stdout. */
  function runAlone(eventJson: string, overrides: Record<string, string> = {}, remainingMs = 5000) {
    const taskRoot = join(scratch, spec.name);
    cpSync(spec.codeDir, taskRoot, { recursive: true });
    expect(existsSync(join(dirname(scratch), "node_modules"))).toBe(false);
    const child = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        loader,
        pathToFileURL(join(taskRoot, spec.handlerFile)).href,
        spec.handlerExport,
        eventJson,
        String(remainingMs),
      ],
      {
        cwd: taskRoot,
        encoding: "utf8",
        timeout: 20_000,
        env: {
          PATH: process.env.PATH ?? "",
          ...templateEnvironment(spec.logicalId),
          // What Lambda itself sets; the credentials are placeholders, never used here.
          LAMBDA_TASK_ROOT: taskRoot,
          AWS_REGION: "eu-west-1",
          AWS_DEFAULT_REGION: "eu-west-1",
          AWS_LAMBDA_FUNCTION_NAME: `petstore-staging-${spec.name}`,
          AWS_ACCESS_KEY_ID: "AKIDPLACEHOLDER",
          AWS_SECRET_ACCESS_KEY: "placeholder",
          AWS_SESSION_TOKEN: "placeholder",
          ...overrides,
        },
      },
    );
    const line = child.stdout.split("\n").find((text) => text.startsWith("REPORT "));
    expect(line, `no report; stderr: ${child.stderr}`).toBeDefined();
    const report = JSON.parse((line ?? "REPORT {}").slice(7)) as {
      exportType: string;
      statusCode?: number;
      body?: string;
    };
    return { report, stdout: child.stdout };
  }

  it("loads alone as the Lambda runtime loads it and answers", () => {
    const routeKey = spec.routeKeys[0] ?? "$default";
    const { report } = runAlone(event(routeKey));
    expect(report.exportType).toBe("function");
    // No Authorization header: 401 before any store call; $default: 404 without one.
    const expected = routeKey === "$default" ? 404 : 401;
    expect(report.statusCode, report.body).toBe(expected);
  });

  // A key makes the function call the store, which is unreachable here: a 503 whose log line
  // carries the failure's stack, mapped from the minified bundle to source lines on the way out.
  const storeRoute = spec.routeKeys.find((key) => key !== "$default");
  if (!storeRoute) return;
  it("logs a failure's stack with source file lines, not minified bundle offsets", () => {
    const { report, stdout } = runAlone(
      event(storeRoute, `Bearer ${sampleApiKey}`),
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
