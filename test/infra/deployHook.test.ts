/**
 * The pre-traffic hook as CodeDeploy runs it: the built bundle (dist/preTrafficHook) invokes the
 * new versions — here the real function bundles over the embedded store, behind a stand-in of
 * Lambda's Invoke API — and reports to a stand-in of CodeDeploy's API. A healthy set of versions
 * is reported Succeeded, a broken one Failed; either way nothing is left but a revoked key, the
 * key never reaches a log line, and the hook's table calls are exactly what its role grants.
 */
import { createServer } from "node:http";
import type { IncomingMessage, Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Handler } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Item } from "../../lib/dynamodb.ts";
import type { EmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import { ensureTable, localClient, startEmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import { localFunctionEnv } from "../../local/functionEnv.ts";
import { lambdaContext } from "../../local/apiGateway.ts";
import { functionsOf, loadTemplate } from "../../local/template.ts";
import { asArray, getAttArnOf, iamStatements, isObject, raw } from "../support/cloudFormation.ts";
import { accessesOf } from "../support/dynamoAccess.ts";
import type { RecordingProxy } from "../support/recordingDynamoProxy.ts";
import { startRecordingProxy } from "../support/recordingDynamoProxy.ts";

const table = "petstore-hook-test";
const specs = functionsOf();
const hookSpec = specs.find((spec) => spec.name === "preTrafficHook");
const versionArn = (name: string, version: number): string =>
  `arn:aws:lambda:local:000000000000:function:petstore-test-${name}:${version}`;

interface Reported {
  readonly target: string;
  readonly body: Record<string, string>;
}

let dynamo: EmbeddedDynamo;
let functionsProxy: RecordingProxy;
let hookProxy: RecordingProxy;
let lambda: Server;
let codeDeploy: Server;
const versions = new Map<string, Handler>();
const invoked: string[] = [];
const reported: Reported[] = [];
let instance = 0;

async function loadBundle(name: string, env: Record<string, string> = {}): Promise<Handler> {
  const spec = specs.find((candidate) => candidate.name === name);
  if (!spec) throw new Error(`no function ${name} in the template`);
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    const url = `${pathToFileURL(resolve(spec.codeDir, spec.handlerFile)).href}?hook-test=${++instance}`;
    const module = (await import(url)) as Record<string, Handler>;
    const handler = module[spec.handlerExport];
    if (!handler) throw new Error(`${name} exports no ${spec.handlerExport}: run npm run build`);
    return handler;
  } finally {
    process.env = saved;
  }
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Lambda's Invoke API for the versions registered in `versions`; a throw is a function error. */
function lambdaStandIn(): Server {
  return createServer((request, response) => {
    void (async () => {
      const match = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(request.url ?? "");
      const arn = decodeURIComponent(match?.[1] ?? "");
      const handler = versions.get(arn);
      const event: unknown = JSON.parse(await bodyOf(request));
      if (!handler || request.method !== "POST" || !request.headers.authorization) {
        response.writeHead(404, { "content-type": "application/json" }).end('{"Type":"User"}');
        return;
      }
      invoked.push(arn);
      try {
        const result: unknown = await handler(
          event,
          lambdaContext(arn.split(":")[6] ?? "", 10),
          () => undefined,
        );
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify(result));
      } catch (error) {
        response.writeHead(200, { "x-amz-function-error": "Unhandled" });
        response.end(JSON.stringify({ errorMessage: String(error) }));
      }
    })();
  });
}

function codeDeployStandIn(): Server {
  return createServer((request, response) => {
    void bodyOf(request).then((body) => {
      reported.push({
        target: String(request.headers["x-amz-target"]),
        body: JSON.parse(body) as Record<string, string>,
      });
      response.writeHead(200, { "content-type": "application/x-amz-json-1.1" }).end("{}");
    });
  });
}

beforeAll(async () => {
  dynamo = await startEmbeddedDynamo();
  const db = localClient(dynamo.endpoint);
  await ensureTable(db, table);
  db.close();
  functionsProxy = await startRecordingProxy(dynamo.endpoint);
  hookProxy = await startRecordingProxy(dynamo.endpoint);
  const env = localFunctionEnv(functionsProxy.endpoint, table);
  for (const name of ["listCategories", "createCategory", "routeFallback"]) {
    versions.set(versionArn(name, 2), await loadBundle(name, env));
  }
  // Broken versions: one whose table does not exist (answers 503), one that crashes.
  versions.set(
    versionArn("listCategories", 3),
    await loadBundle("listCategories", { ...env, TABLE_NAME: "no-such-table" }),
  );
  versions.set(versionArn("routeFallback", 3), () => Promise.reject(new Error("boom")));
  lambda = lambdaStandIn();
  codeDeploy = codeDeployStandIn();
  process.env.LAMBDA_ENDPOINT = await listen(lambda);
  process.env.CODEDEPLOY_ENDPOINT = await listen(codeDeploy);
}, 60_000);

afterAll(async () => {
  delete process.env.LAMBDA_ENDPOINT;
  delete process.env.CODEDEPLOY_ENDPOINT;
  await new Promise((done) => lambda.close(done));
  await new Promise((done) => codeDeploy.close(done));
  await functionsProxy.close();
  await hookProxy.close();
  await dynamo.close();
});

/** One hook invocation, as CodeDeploy makes it, with its stdout captured. */
async function runHook(
  deploymentId: string,
  version: Record<"listCategories" | "createCategory" | "routeFallback", number>,
): Promise<{ result: unknown; logs: string[]; report: Reported | undefined }> {
  // The hook reads its settings on its first invocation, from this environment.
  const hook = await loadBundle("preTrafficHook");
  const logs: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  const saved = { ...process.env };
  Object.assign(process.env, {
    ...localFunctionEnv(hookProxy.endpoint, table),
    LIST_CATEGORIES_VERSION: versionArn("listCategories", version.listCategories),
    CREATE_CATEGORY_VERSION: versionArn("createCategory", version.createCategory),
    ROUTE_FALLBACK_VERSION: versionArn("routeFallback", version.routeFallback),
  });
  process.stdout.write = (chunk: string | Uint8Array) => {
    logs.push(String(chunk));
    return true;
  };
  try {
    const event = {
      DeploymentId: deploymentId,
      LifecycleEventHookExecutionId: `exec-${deploymentId}`,
    };
    const result: unknown = await hook(
      event,
      lambdaContext("preTrafficHook", 120),
      () => undefined,
    );
    const report = reported.find((entry) => entry.body.deploymentId === deploymentId);
    return { result, logs, report };
  } finally {
    process.stdout.write = write;
    process.env = saved;
  }
}

async function apiKeyRecords(): Promise<Item[]> {
  const db = localClient(dynamo.endpoint);
  try {
    const page: { Items?: Item[] } = await db.call(
      "Query",
      {
        TableName: table,
        KeyConditionExpression: "pk = :pk",
        ExpressionAttributeValues: { ":pk": { S: "APIKEY" } },
      },
      Date.now() + 5000,
    );
    return page.Items ?? [];
  } finally {
    db.close();
  }
}

describe("healthy new versions take traffic", () => {
  it("reports Succeeded after invoking each new version with read-only requests", async () => {
    const { result, logs, report } = await runHook("d-healthy", {
      listCategories: 2,
      createCategory: 2,
      routeFallback: 2,
    });
    expect(result).toEqual({ status: "Succeeded" });
    expect(report).toEqual({
      target: "CodeDeploy_20141006.PutLifecycleEventHookExecutionStatus",
      body: {
        deploymentId: "d-healthy",
        lifecycleEventHookExecutionId: "exec-d-healthy",
        status: "Succeeded",
      },
    });
    for (const name of ["listCategories", "createCategory", "routeFallback"]) {
      expect(invoked).toContain(versionArn(name, 2));
    }
    const lines = logs
      .join("")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { ok?: boolean; level: string });
    expect(lines.filter((line) => line.ok === true).length).toBeGreaterThanOrEqual(5);
    expect(lines.filter((line) => line.level === "ERROR")).toEqual([]);
  });

  it("changes nothing but its own key, which it revokes, and never logs the key", async () => {
    const { logs } = await runHook("d-clean", {
      listCategories: 2,
      createCategory: 2,
      routeFallback: 2,
    });
    const writes = functionsProxy.calls.filter((call) =>
      /Put|Update|Delete|Write/.test(call.operation),
    );
    expect(writes.map((call) => call.operation)).toEqual([]);
    const key = (await apiKeyRecords()).find(
      (item) => item.label?.S === "pre-traffic check d-clean",
    );
    expect(key?.revokedAt?.S).toBeDefined();
    expect(Date.parse(key?.expiresAt?.S ?? "") - Date.now()).toBeLessThanOrEqual(15 * 60 * 1000);
    expect(logs.join("")).not.toMatch(/petstore_[A-Za-z0-9_-]{20,}/);
  });
});

describe("a broken version never takes traffic", () => {
  it.each([
    [
      "answers 503 (its table is missing)",
      { listCategories: 3, createCategory: 2, routeFallback: 2 },
    ],
    ["crashes", { listCategories: 2, createCategory: 2, routeFallback: 3 }],
  ])("reports Failed when a new version %s, and still revokes its key", async (_why, version) => {
    const id = `d-broken-${version.listCategories}-${version.routeFallback}`;
    const { result, logs, report } = await runHook(id, version);
    expect(result).toEqual({ status: "Failed" });
    expect(report?.body.status).toBe("Failed");
    expect(logs.join("")).toContain('"level":"ERROR"');
    const key = (await apiKeyRecords()).find((item) => item.label?.S === `pre-traffic check ${id}`);
    expect(key?.revokedAt?.S).toBeDefined();
  });
});

describe("the hook's role grants exactly the table calls it makes", () => {
  it("every call is granted, and every grant is used", async () => {
    // Its own healthy run, so the calls compared are this test's whatever ran before it.
    const before = hookProxy.calls.length;
    await runHook("d-iam", { listCategories: 2, createCategory: 2, routeFallback: 2 });
    const template = raw(loadTemplate());
    const role = getAttArnOf(template.Resources[hookSpec?.logicalId ?? ""]?.Properties?.Role);
    expect(role).toBe("PreTrafficHookRole");
    const granted = iamStatements(template)
      .filter(({ owner }) => owner === role)
      .flatMap(({ statement }) => {
        const condition = isObject(statement.Condition) ? statement.Condition : {};
        const equals = condition["ForAllValues:StringEquals"];
        const keys = asArray(isObject(equals) ? equals["dynamodb:LeadingKeys"] : undefined);
        return asArray(statement.Action)
          .map(String)
          .filter((action) => action.startsWith("dynamodb:"))
          .flatMap((action) =>
            keys.map((key) => `${action} ${typeof key === "string" ? key : ""}`),
          );
      });
    const made = new Set(
      hookProxy.calls
        .slice(before)
        .flatMap((call) => accessesOf(call, "pk"))
        .map((access) => `${access.action} ${access.leadingKey ?? "(none)"}`),
    );
    expect([...made].sort()).toEqual([...new Set(granted)].sort());
  });
});
