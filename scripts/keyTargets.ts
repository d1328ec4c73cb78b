/**
 * Where `npm run keys` manages keys: the local store (through local/localKeys.ts) or a deployed
 * stage's table, with the operator's AWS credentials in the stage's region. Every way a stage
 * can be out of reach (no credentials, rejected credentials, no network, no table) becomes one
 * KeysTargetError saying what to check, within a few seconds.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { KeyStage } from "../lib/keyFormat.ts";
import { keyStageOf } from "../lib/keyFormat.ts";
import { ApiKeyStore } from "../lib/repositories/apiKeys.ts";
import { KeyEventStore } from "../lib/repositories/keyEvents.ts";
import { DynamoDb } from "../lib/dynamodb.ts";
import { DynamoDbError } from "../lib/table/errors.ts";
import type { AwsCredentials } from "../lib/dynamodb.ts";
import { StoreUnavailableError } from "../lib/errors.ts";
import { defaultDataDir, storeEngineOf } from "../local/embeddedDynamo.ts";
import { localOperator, openLocalStore } from "../local/localKeys.ts";
import type { LocalStore } from "../local/localKeys.ts";
import { StoreLockedError } from "../local/storeLock.ts";
import { StoreEndpointError, storeEndpointOf, StoreUnreachableError } from "../local/storeCheck.ts";
import { projectRoot } from "../local/template.ts";
import { SettingsError, stageRegion } from "./stages.ts";

export interface Target extends LocalStore {
  /** The stage a new key names (lib/keyFormat.ts). */
  readonly keyStage: KeyStage;
  /**
   * Who is making changes, for the audit trail: the AWS identity's ARN, or the OS user;
   * undefined when it cannot be read.
   */
  who(): Promise<string | undefined>;
  /** What the trail says of an operator whose identity could not be read (a revoke goes on). */
  readonly unknownWho: string;
}

/** A failure the operator can fix; the message says how. */
export class KeysTargetError extends Error {
  override readonly name = "KeysTargetError";
}

/** How long one command may wait for a stage before it gives up. */
export const stageBudgetMs = 5000;

/**
 * The local store, chosen exactly as `npm start` chooses it: DYNAMODB_ENDPOINT when set (a URL,
 * answering within 3 s), else the data folder of PETSTORE_STORE's engine (DATA_DIR, default
 * .data/dynamodb, or .data/dynamodb-local for DynamoDB Local).
 */
export async function localTarget(env: NodeJS.ProcessEnv): Promise<Target> {
  try {
    const engine = storeEngineOf(env);
    const dataDir = resolve(projectRoot, env.DATA_DIR ?? defaultDataDir(engine));
    const store = await openLocalStore({ dataDir, endpoint: storeEndpointOf(env), engine });
    return {
      ...store,
      keyStage: "local",
      who: () => Promise.resolve(localOperator()),
      unknownWho: "local:unknown",
    };
  } catch (error) {
    if (error instanceof StoreLockedError)
      throw new KeysTargetError(`${error.message} but left no endpoint file: stop it and retry`);
    if (error instanceof StoreEndpointError) throw new KeysTargetError(error.message);
    if (error instanceof StoreUnreachableError)
      throw new KeysTargetError(
        `${error.message}: start that store, or unset DYNAMODB_ENDPOINT to use the data folder's`,
      );
    throw error;
  }
}

export async function stageTarget(stage: string, env: NodeJS.ProcessEnv): Promise<Target> {
  // Only the operator's command needs the SDK's credential chain (profiles, SSO, ...); the
  // functions read the Lambda environment directly and never load it.
  const missing = missingProfile(env);
  if (missing !== undefined) throw new KeysTargetError(missing);
  const { fromNodeProviderChain } = await import("@aws-sdk/credential-providers");
  const provider = fromNodeProviderChain();
  const region = stageRegion(stage);
  // The stage's region from samconfig.toml, where `npm run deploy` put its table: an AWS_REGION
  // left in the operator's shell must not send the command to another region. The SDK's own
  // endpoint variable is honoured (a VPC endpoint, or a test double).
  const endpoint = env.AWS_ENDPOINT_URL_DYNAMODB ?? env.AWS_ENDPOINT_URL;
  const credentials = (): Promise<AwsCredentials> =>
    credentialsWithin(provider, stage, stageBudgetMs / 2);
  const db = new DynamoDb({ region, endpoint, attemptTimeoutMs: 2000, credentials });
  const table = `petstore-${stage}`;
  return {
    keys: new ApiKeyStore(db, table),
    events: new KeyEventStore(db, table),
    keyStage: keyStageOf(stage),
    who: () => callerArn(region, credentials, env.AWS_ENDPOINT_URL_STS ?? env.AWS_ENDPOINT_URL),
    unknownWho: "aws:unknown",
    where: `table ${table} in ${region} (${stage})`,
    close: () => {
      db.close();
      return Promise.resolve();
    },
  };
}

/**
 * The ARN of the AWS identity the command runs as (STS GetCallerIdentity, which needs no
 * permission), with the table's credentials; undefined when STS cannot say. No credentials at all
 * is said as for any other command (`noCredentials`): nothing could reach the table either.
 */
async function callerArn(
  region: string,
  credentials: () => Promise<AwsCredentials>,
  endpoint: string | undefined,
): Promise<string | undefined> {
  let sts: import("@aws-sdk/client-sts").STSClient | undefined;
  try {
    const { GetCallerIdentityCommand, STSClient } = await import("@aws-sdk/client-sts");
    sts = new STSClient({ region, ...(endpoint && { endpoint }), credentials, maxAttempts: 1 });
    const abortSignal = AbortSignal.timeout(stageBudgetMs / 2);
    const { Arn } = await sts.send(new GetCallerIdentityCommand({}), { abortSignal });
    return Arn;
  } catch (error) {
    if (error instanceof KeysTargetError) throw error;
    return undefined;
  } finally {
    sts?.destroy();
  }
}

/**
 * AWS_PROFILE naming a profile that neither AWS file has: said as such (the SDK's own message
 * only says no credentials were found). Undefined when it is unset or found.
 */
export function missingProfile(env: NodeJS.ProcessEnv): string | undefined {
  const profile = env.AWS_PROFILE;
  if (!profile) return undefined;
  const home = env.HOME ?? homedir();
  const files = [
    { path: env.AWS_CONFIG_FILE ?? join(home, ".aws/config"), prefix: "profile " },
    { path: env.AWS_SHARED_CREDENTIALS_FILE ?? join(home, ".aws/credentials"), prefix: "" },
  ];
  const sections = files.flatMap(({ path, prefix }) => {
    const text = existsSync(path) ? readFileSync(path, "utf8") : "";
    return [...text.matchAll(/^\s*\[\s*([^\]]+?)\s*\]/gm)].map((match) =>
      (match[1] ?? "").replace(prefix === "" ? /^$/ : /^profile\s+/, ""),
    );
  });
  if (sections.includes(profile)) return undefined;
  return `AWS_PROFILE is "${profile}", a profile in neither ${files.map((file) => file.path).join(" nor ")}: check the name (aws configure list-profiles) or create it (aws configure sso --profile ${profile})`;
}

type Provider = () => Promise<AwsCredentials>;

async function credentialsWithin(
  provider: Provider,
  stage: string,
  ms: number,
): Promise<AwsCredentials> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new KeysTargetError(noCredentials(stage, `none found within ${ms / 1000} s`)));
    }, ms);
  });
  try {
    const { accessKeyId, secretAccessKey, sessionToken } = await Promise.race([provider(), late]);
    return { accessKeyId, secretAccessKey, ...(sessionToken && { sessionToken }) };
  } catch (error) {
    if (error instanceof KeysTargetError) throw error;
    throw new KeysTargetError(noCredentials(stage, firstLine(error)));
  } finally {
    clearTimeout(timer);
  }
}

function noCredentials(stage: string, why: string): string {
  return `no AWS credentials for ${stage} (${why}): set AWS_PROFILE to your ${stage} profile and run aws sso login --profile <profile> (or aws configure)`;
}

/** What to tell the operator when a call to a stage's table fails. */
export function explainStageFailure(error: unknown, stage: string): string | undefined {
  if (error instanceof KeysTargetError || error instanceof SettingsError) return error.message;
  const region = stageRegion(stage);
  const table = `petstore-${stage}`;
  if (error instanceof StoreUnavailableError)
    return `DynamoDB in ${region} did not answer within ${stageBudgetMs / 1000} s: check your network (and any proxy), and the region in infra/samconfig.toml`;
  if (!(error instanceof DynamoDbError)) return undefined;
  switch (error.type) {
    case "UnrecognizedClientException":
    case "InvalidSignatureException":
    case "ExpiredTokenException":
    case "MissingAuthenticationTokenException":
      return `AWS refused the credentials (${error.type}): run aws sso login --profile <profile>, and check AWS_PROFILE names your ${stage} profile`;
    case "AccessDeniedException":
      return `your AWS identity may not use table ${table} (AccessDeniedException): check AWS_PROFILE names your ${stage} profile (aws sts get-caller-identity)`;
    case "ResourceNotFoundException":
      return `no table ${table} in ${region} for this AWS account: deploy the stage first (npm run deploy -- ${stage}), or check AWS_PROFILE names the right account`;
    default:
      return `DynamoDB refused the call (${error.type}): ${firstLine(error)}`;
  }
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n", 1)[0] ?? "";
}
