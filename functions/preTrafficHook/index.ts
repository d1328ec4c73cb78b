/**
 * Lambda entry of the CodeDeploy pre-traffic hook (lib/deployHook/ does the work). The parts are
 * built on the first invocation, not at load: the local server loads every bundle the template
 * names, and this one needs settings only a deployment gives it.
 */
import { ApiKeyStore } from "../../lib/repositories/apiKeys.ts";
import { AwsCalls } from "../../lib/awsCall.ts";
import { systemClock } from "../../lib/clock.ts";
import { DynamoDb, environmentCredentials } from "../../lib/dynamodb.ts";
import { keyStageOf } from "../../lib/keyFormat.ts";
import type { HookDeps, HookEvent } from "../../lib/deployHook/hook.ts";
import { preTrafficHook } from "../../lib/deployHook/hook.ts";

type Env = Readonly<Record<string, string | undefined>>;

function required(env: Env, name: string): string {
  const value = env[name]?.trim();
  if (!value) throw new Error(`${name} must be set (infra/template.yaml sets it)`);
  return value;
}

export function hookDeps(env: Env = process.env): HookDeps {
  const region = env.AWS_REGION ?? required(env, "AWS_DEFAULT_REGION");
  const credentials = environmentCredentials(env);
  const table = required(env, "TABLE_NAME");
  const db = new DynamoDb({ region, endpoint: env.DYNAMODB_ENDPOINT || undefined, credentials });
  const keys = new ApiKeyStore(db, table);
  const aws = new AwsCalls({
    region,
    credentials,
    lambdaEndpoint: env.LAMBDA_ENDPOINT || undefined,
    codeDeployEndpoint: env.CODEDEPLOY_ENDPOINT || undefined,
  });
  const now = systemClock;
  const deadline = (): number => now() + 10_000;
  return {
    versions: {
      listCategories: required(env, "LIST_CATEGORIES_VERSION"),
      createCategory: required(env, "CREATE_CATEGORY_VERSION"),
      routeFallback: required(env, "ROUTE_FALLBACK_VERSION"),
    },
    invoke: (arn, event) => aws.invoke(arn, event),
    issueKey: async (label, expiresAt) => {
      // A key of the stage's own format: the new versions refuse any other without a read.
      const stage = keyStageOf(env.STAGE ?? "local");
      const { apiKey, record } = await keys.issue(label, expiresAt, deadline(), undefined, {
        stage,
      });
      return { apiKey, keyId: record.keyId };
    },
    revokeKey: async (keyId) => {
      await keys.revoke(keyId, deadline());
    },
    report: (event, status) =>
      aws.reportHookStatus(event.DeploymentId, event.LifecycleEventHookExecutionId, status),
    log: (line) => {
      process.stdout.write(`${JSON.stringify({ time: new Date(now()).toISOString(), ...line })}\n`);
    },
    now,
  };
}

let deps: HookDeps | undefined;

export const handler = (event: HookEvent): Promise<{ status: "Succeeded" | "Failed" }> => {
  deps ??= hookDeps();
  return preTrafficHook(event, deps);
};
