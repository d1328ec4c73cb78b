/**
 * The pre-traffic hook's test rig: the embedded store with one table, the real function bundles
 * behind a stand-in of Lambda's Invoke API (version 2 of each healthy; version 3 of
 * listCategories answers 503, of routeFallback crashes), a stand-in of CodeDeploy's API, and
 * recording proxies between the store and the functions and between it and the hook.
 */
import type { Handler } from "aws-lambda";
import type { Item } from "../../lib/dynamodb.ts";
import { lambdaContext } from "../../local/apiGateway.ts";
import type { EmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import { ensureTable, localClient, startEmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import { localFunctionEnv } from "../../local/functionEnv.ts";
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

export type HookVersions = Record<"listCategories" | "createCategory" | "routeFallback", number>;

export interface HookRig {
  readonly functionsProxy: RecordingProxy;
  readonly hookProxy: RecordingProxy;
  /** The version ARNs the hook invoked, in order. */
  readonly invoked: readonly string[];
  /** One hook invocation, as CodeDeploy makes it, with its stdout captured. */
  runHook(
    deploymentId: string,
    version: HookVersions,
  ): Promise<{ result: unknown; logs: string[]; report: Reported | undefined }>;
  /** The table's API key records (the hook's own included). */
  apiKeyRecords(): Promise<Item[]>;
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
  for (const name of ["listCategories", "createCategory", "routeFallback"]) {
    versions.set(versionArn(name, 2), await loadBundle(name, env));
  }
  // Broken versions: one whose table does not exist (answers 503), one that crashes.
  versions.set(
    versionArn("listCategories", 3),
    await loadBundle("listCategories", { ...env, TABLE_NAME: "no-such-table" }),
  );
  versions.set(versionArn("routeFallback", 3), () => Promise.reject(new Error("boom")));
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
    runHook: (deploymentId, version) => runHook(hookProxy, reported, deploymentId, version),
    apiKeyRecords: () => apiKeyRecords(dynamo),
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
