/**
 * A built function run the way the Lambda Node.js runtime runs it, in a child process: from a
 * copy of its folder alone (no node_modules above it), the .mjs imported as ESM, the named
 * export called once with an API Gateway (payload 2.0) event and a Lambda context. The child
 * prints one `REPORT {...}` line; the rest of its stdout is the function's own log lines.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { expect } from "vitest";
import { gatewayEvent as apiGatewayEvent } from "../../lib/http/gatewayEvent.ts";
import type { FunctionSpec } from "../../local/template.ts";

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

/** An API Gateway HTTP API (payload 2.0) event for the route; `{param}`s become 1. */
export function gatewayEvent(routeKey: string, authorization?: string): string {
  const [method = "GET", pattern = "/v1/not-a-route"] =
    routeKey === "$default" ? ["GET", "/v1/not-a-route"] : routeKey.split(" ");
  return JSON.stringify(
    apiGatewayEvent({
      method,
      rawPath: pattern.replaceAll(/\{[^}]+\}/g, "1"),
      headers: {
        host: "example.execute-api.eu-west-1.amazonaws.com",
        "user-agent": "test",
        ...(authorization !== undefined && { authorization }),
      },
      routeKey,
      requestId: "bundle-test",
      timeEpoch: Date.now(),
      sourceIp: "192.0.2.1",
      apiId: "example",
    }),
  );
}

export interface BundleReport {
  readonly exportType: string;
  readonly statusCode?: number;
  readonly body?: string;
}

/**
 * Runs the bundle alone, from a copy of its folder under `scratch`, on one event: the
 * template's environment, what Lambda itself sets, then `overrides`; its report and stdout.
 */
export function runBundleAlone(
  spec: FunctionSpec,
  scratch: string,
  eventJson: string,
  env: { template: Record<string, string>; overrides?: Record<string, string> },
  remainingMs = 5000,
): { report: BundleReport; stdout: string } {
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
        ...env.template,
        // What Lambda itself sets; the credentials are placeholders, never used here.
        LAMBDA_TASK_ROOT: taskRoot,
        AWS_REGION: "eu-west-1",
        AWS_DEFAULT_REGION: "eu-west-1",
        AWS_LAMBDA_FUNCTION_NAME: `petstore-staging-${spec.name}`,
        AWS_ACCESS_KEY_ID: "AKIDPLACEHOLDER",
        AWS_SECRET_ACCESS_KEY: "placeholder",
        AWS_SESSION_TOKEN: "placeholder",
        ...env.overrides,
      },
    },
  );
  const line = child.stdout.split("\n").find((text) => text.startsWith("REPORT "));
  expect(line, `no report; stderr: ${child.stderr}`).toBeDefined();
  const report = JSON.parse((line ?? "REPORT {}").slice(7)) as BundleReport;
  return { report, stdout: child.stdout };
}
