/**
 * The pre-traffic hook's test rig: the embedded store with one table, the real function bundles
 * behind a stand-in of Lambda's Invoke API (version 2 of each healthy; version 3 of the list's
 * function answers 503, of the fallback crashes), a stand-in of CodeDeploy's API, and recording
 * proxies between the store and the functions and between it and the hook. The functions are
 * the template's (local/template.ts), found by the routes they serve.
 */
import type { Handler } from "aws-lambda";
import { seedTable } from "../../bench/data.ts";
import { versionVariable } from "../../lib/deployHook/targets.ts";
import type { Item } from "../../lib/dynamodb.ts";
import type { KeyEvent } from "../../lib/repositories/keyEvents.ts";
import { KeyEventStore } from "../../lib/repositories/keyEvents.ts";
import { lambdaContext } from "../../local/apiGateway.ts";
import type { EmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import { ensureTable, localClient, startEmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import { localFunctionEnv } from "../../local/functionEnv.ts";
import { functionsOf, routesOf } from "../../local/template.ts";
import type { Reported } from "./hookStandIns.ts";
import {
  codeDeployStandIn,
  lambdaStandIn,
  listen,
  loadBundle,
  versionArn,
} from "./hookStandIns.ts";
import type { RecordingProxy } from "./recordingDynamoProxy.ts";
import { startRecordingProxy } from "./recordingDynamoProxy.ts";

const table = "petstore-hook-test";
const specs = functionsOf();
/** The functions the hook checks: every one that serves a route. */
export const checkedFunctions = specs
  .filter((spec) => spec.routeKeys.length > 0)
  .map((s) => s.name);
const hookName = specs.find((spec) => spec.routeKeys.length === 0)?.name ?? "";
/** The name of the function serving a route key, e.g. "GET /v1/categories" or "$default". */
export const functionServing = (routeKey: string): string =>
  routesOf(specs).get(routeKey)?.name ?? "";

/** The version of each checked function a deployment brings: 2 unless named here. */
export type HookVersions = Readonly<Record<string, number>>;

export interface HookRig {
  readonly functionsProxy: RecordingProxy;
  readonly hookProxy: RecordingProxy;
  /** The version ARNs the hook invoked, in order. */
  readonly invoked: readonly string[];
  /** One hook invocation, as CodeDeploy makes it, with its stdout captured. */
  /** `unset`: settings the template gives that this run goes without. */
  runHook(
    deploymentId: string,
    version: HookVersions,
    unset?: readonly string[],
  ): Promise<{ result: unknown; logs: string[]; report: Reported | undefined }>;
  /** The table's API key records (the hook's own included). */
  apiKeyRecords(): Promise<Item[]>;
  /** Stores categories 1..count with descriptions of `descriptionChars` (the bench's seed). */
  seedCategories(count: number, descriptionChars: number): Promise<void>;
  /** The key history of one key, as `npm run keys -- history <keyId>` reads it. */
  keyEvents(keyId: string): Promise<KeyEvent[]>;
  close(): Promise<void>;
}

export async function startHookRig(): Promise<HookRig> {
  const dynamo = await startEmbeddedDynamo();
  const db = localClient(dynamo.endpoint);
  await ensureTable(db, table);
  db.close();
  const functionsProxy = await startRecordingProxy(dynamo.endpoint);
  const hookProxy = await startRecordingProxy(dynamo.endpoint);
  const env = localFunctionEnv(functionsProxy.endpoint, table);
  const versions = new Map<string, Handler>();
  for (const name of checkedFunctions) {
    versions.set(versionArn(name, 2), await loadBundle(name, env));
  }
  // Broken versions: one whose table does not exist (answers 503), one that crashes.
  const list = functionServing("GET /v1/categories");
  versions.set(
    versionArn(list, 3),
    await loadBundle(list, { ...env, TABLE_NAME: "no-such-table" }),
  );
  versions.set(versionArn(functionServing("$default"), 3), () => Promise.reject(new Error("boom")));
  const invoked: string[] = [];
  const reported: Reported[] = [];
  const lambda = lambdaStandIn(versions, invoked);
  const codeDeploy = codeDeployStandIn(reported);
  process.env.LAMBDA_ENDPOINT = await listen(lambda);
  process.env.CODEDEPLOY_ENDPOINT = await listen(codeDeploy);
  return {
    functionsProxy,
    hookProxy,
    invoked,
    runHook: (deploymentId, version, unset = []) =>
      runHook(hookProxy, reported, deploymentId, version, unset),
    apiKeyRecords: () => apiKeyRecords(dynamo),
    seedCategories: async (count, descriptionChars) => {
      const client = localClient(dynamo.endpoint);
      try {
        await seedTable(client, table, count, descriptionChars);
      } finally {
        client.close();
      }
    },
    keyEvents: async (keyId) => {
      const client = localClient(dynamo.endpoint);
      try {
        return await new KeyEventStore(client, table).list(keyId, Date.now() + 5000);
      } finally {
        client.close();
      }
    },
    close: async () => {
      delete process.env.LAMBDA_ENDPOINT;
      delete process.env.CODEDEPLOY_ENDPOINT;
      await new Promise((done) => lambda.close(done));
      await new Promise((done) => codeDeploy.close(done));
      await functionsProxy.close();
      await hookProxy.close();
      await dynamo.close();
    },
  };
}

async function runHook(
  hookProxy: RecordingProxy,
  reported: readonly Reported[],
  deploymentId: string,
  version: HookVersions,
  unset: readonly string[],
): Promise<{ result: unknown; logs: string[]; report: Reported | undefined }> {
  // The hook reads its settings on its first invocation, from this environment.
  const hook = await loadBundle(hookName);
  const logs: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  const saved = { ...process.env };
  Object.assign(process.env, {
    ...localFunctionEnv(hookProxy.endpoint, table),
    // As the template sets them: each checked function's new version.
    ...Object.fromEntries(
      checkedFunctions.map((name) => [versionVariable(name), versionArn(name, version[name] ?? 2)]),
    ),
  });
  for (const name of unset) Reflect.deleteProperty(process.env, name);
  process.stdout.write = (chunk: string | Uint8Array) => {
    logs.push(String(chunk));
    return true;
  };
  try {
    const event = {
      DeploymentId: deploymentId,
      LifecycleEventHookExecutionId: `exec-${deploymentId}`,
    };
    const result: unknown = await hook(event, lambdaContext(hookName, 120), () => undefined);
    const report = reported.find((entry) => entry.body.deploymentId === deploymentId);
    return { result, logs, report };
  } finally {
    process.stdout.write = write;
    process.env = saved;
  }
}

async function apiKeyRecords(dynamo: EmbeddedDynamo): Promise<Item[]> {
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
