/**
 * Lambda entry of the CodeDeploy pre-traffic hook (lib/deployHook/ does the work). The parts are
 * built on the first invocation, not at load: the settings come from a deployment, and a bundle
 * loaded elsewhere (the tests, `npm run invoke`) needs none to load.
 *
 * Lambda and CodeDeploy are called through the AWS SDK, bundled into this function only: it runs
 * once per deploy, so its cold start does not matter (the request functions keep lib/dynamodb.ts).
 * LAMBDA_ENDPOINT and CODEDEPLOY_ENDPOINT replace the regional endpoints for local stand-ins.
 */
import {
  CodeDeployClient,
  PutLifecycleEventHookExecutionStatusCommand,
} from "@aws-sdk/client-codedeploy";
import { InvokeCommand, LambdaClient } from "@aws-sdk/client-lambda";
import { ApiKeyStore } from "../../lib/repositories/apiKeys.ts";
import { systemClock } from "../../lib/clock.ts";
import { DynamoDb, environmentCredentials } from "../../lib/dynamodb.ts";
import { keyStageOf } from "../../lib/keyFormat.ts";
import type { HookDeps, HookEvent } from "../../lib/deployHook/hook.ts";
import { preTrafficHook } from "../../lib/deployHook/hook.ts";
import type { RouteFunctions } from "../../lib/deployHook/targets.ts";
import { versionVariable } from "../../lib/deployHook/targets.ts";

/** Injected by scripts/build.ts from infra/template.yaml: route key → the function serving it. */
declare const __PETSTORE_FUNCTIONS__: RouteFunctions;

type Env = Readonly<Record<string, string | undefined>>;

function required(env: Env, name: string): string {
  const value = env[name]?.trim();
  if (!value) throw new Error(`${name} must be set (infra/template.yaml sets it)`);
  return value;
}

export function hookDeps(
  env: Env = process.env,
  routes: RouteFunctions = __PETSTORE_FUNCTIONS__,
): HookDeps {
  const { region, credentials } = sdkClient(env, "DYNAMODB_ENDPOINT");
  const table = required(env, "TABLE_NAME");
  const db = new DynamoDb({ region, endpoint: env.DYNAMODB_ENDPOINT || undefined, credentials });
  // Named in the key history as the function itself; its role lets it write only keys it makes.
  const hookName = env.AWS_LAMBDA_FUNCTION_NAME ?? "preTrafficHook";
  const keys = new ApiKeyStore(db, table, systemClock, `lambda:${hookName}`);
  const lambda = new LambdaClient(sdkClient(env, "LAMBDA_ENDPOINT"));
  const now = systemClock;
  const deadline = (): number => now() + 10_000;
  // Every function the routes name has its new version in a variable the template sets.
  const names = [...new Set(Object.values(routes))];
  return {
    routes,
    versions: Object.fromEntries(names.map((name) => [name, required(env, versionVariable(name))])),
    invoke: async (arn, event) => {
      const answer = await lambda.send(
        new InvokeCommand({ FunctionName: arn, Payload: JSON.stringify(event) }),
      );
      return {
        payload: answer.Payload?.transformToString() ?? "",
        functionError: answer.FunctionError,
      };
    },
    issueKey: async (label, expiresAt, removeAt) => {
      // A key of the stage's own format: the new versions refuse any other without a read.
      const stage = keyStageOf(env.STAGE ?? "local");
      const options = { expiresAt, stage, removeAt };
      const { apiKey, record } = await keys.issue(label, deadline(), options);
      return { apiKey, keyId: record.keyId };
    },
    revokeKey: async (key) => {
      if (!(await keys.revokeOwn(key, deadline())))
        throw new Error(`the check key ${key.keyId} was not revoked: not found as the hook's own`);
    },
    report: reporter(env),
    log,
    now,
  };
}

/** One JSON line of the hook's log. */
function log(line: Record<string, unknown>): void {
  process.stdout.write(
    `${JSON.stringify({ time: new Date(systemClock()).toISOString(), ...line })}\n`,
  );
}

/** An SDK client's settings: the SDK's own retries (3 attempts, backoff), 30 s per attempt. */
function sdkClient(env: Env, endpointVariable: string) {
  return {
    region: env.AWS_REGION ?? required(env, "AWS_DEFAULT_REGION"),
    credentials: environmentCredentials(env),
    requestHandler: { requestTimeout: 30_000 },
    ...(env[endpointVariable] ? { endpoint: env[endpointVariable] } : {}),
  };
}

/** Tells CodeDeploy the hook's verdict on the deployment. */
function reporter(env: Env): HookDeps["report"] {
  const codeDeploy = new CodeDeployClient(sdkClient(env, "CODEDEPLOY_ENDPOINT"));
  return async (event, status) => {
    await codeDeploy.send(
      new PutLifecycleEventHookExecutionStatusCommand({
        deploymentId: event.DeploymentId,
        lifecycleEventHookExecutionId: event.LifecycleEventHookExecutionId,
        status,
      }),
    );
  };
}

let deps: HookDeps | undefined;

export const handler = async (event: HookEvent): Promise<{ status: "Succeeded" | "Failed" }> => {
  try {
    deps ??= hookDeps();
  } catch (error) {
    // A hook that cannot set up (a setting missing) still gives CodeDeploy its verdict: unheard,
    // CodeDeploy waits out the hook's timeout (an hour) before it rolls the deployment back.
    const detail = error instanceof Error ? error.message : String(error);
    log({
      level: "ERROR",
      deploymentId: event.DeploymentId,
      check: "set up the hook",
      ok: false,
      detail,
    });
    await reporter(process.env)(event, "Failed");
    return { status: "Failed" };
  }
  return preTrafficHook(event, deps);
};
