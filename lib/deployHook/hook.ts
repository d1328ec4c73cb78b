/**
 * The CodeDeploy pre-traffic hook: before `live` moves to the new versions, invoke each new
 * version with read-only requests as API Gateway would send them (./probes.ts), check the answers
 * against the contract, log each outcome, and report Succeeded or Failed to CodeDeploy. A Failed
 * report stops the deployment and leaves traffic on the old versions.
 *
 * Nothing is written but one short-lived API key (so that one check reaches the table with a
 * valid key): issued with a 15-minute expiry, revoked when the checks end, whatever happened,
 * each with its event in the key history. The key never appears in the hook's log lines.
 */
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { acceptCompressed, lambdaBodyText } from "../bodyText.ts";
import { gatewayEvent } from "../http/gatewayEvent.ts";
import type { Answer, Probe } from "./probes.ts";
import { CheckFailed, probesFor } from "./probes.ts";
import type { RouteFunctions } from "./targets.ts";
import { routeKeyOf } from "./targets.ts";

export type HookStatus = "Succeeded" | "Failed";

export interface HookEvent {
  readonly DeploymentId: string;
  readonly LifecycleEventHookExecutionId: string;
}

/** The hook's own short-lived key: the key itself (never logged) and its id. */
export interface ProbeKey {
  readonly apiKey: string;
  readonly keyId: string;
}

export interface HookDeps {
  /** Which function serves each route (the template's, injected at build time). */
  readonly routes: RouteFunctions;
  /** The ARN of each function's new version, by function name (the template's `<Function>.Version`). */
  readonly versions: Readonly<Record<string, string>>;
  readonly invoke: (
    versionArn: string,
    event: APIGatewayProxyEventV2,
  ) => Promise<{ payload: string; functionError: string | undefined }>;
  /**
   * Issues the probe key, recorded in the key history as made by the hook; the table may delete
   * its record from `removeAt` on (its events stay).
   */
  readonly issueKey: (label: string, expiresAt: Date, removeAt: Date) => Promise<ProbeKey>;
  /** Revokes the probe key, recorded likewise: addressed by the key, as the hook may not read keys. */
  readonly revokeKey: (key: ProbeKey) => Promise<void>;
  readonly report: (event: HookEvent, status: HookStatus) => Promise<void>;
  readonly log: (line: Readonly<Record<string, unknown>>) => void;
  readonly now: () => number;
}

export interface CheckOutcome {
  readonly check: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** The Lambda handler's work: check, log each outcome, report to CodeDeploy. */
export async function preTrafficHook(
  event: HookEvent,
  deps: HookDeps,
): Promise<{ status: HookStatus }> {
  let outcomes: CheckOutcome[];
  try {
    outcomes = await runChecks(deps, event.DeploymentId);
  } catch (error) {
    // The key could not be issued: no verdict on the versions, so no traffic for them.
    const detail = error instanceof Error ? error.message : String(error);
    outcomes = [{ check: "issue a check key", ok: false, detail }];
  }
  return { status: await reportOutcomes(event, outcomes, deps) };
}

/** Succeeded only when every check passed; a Failed report keeps traffic on the old versions. */
async function reportOutcomes(
  event: HookEvent,
  outcomes: readonly CheckOutcome[],
  deps: Pick<HookDeps, "report" | "log">,
): Promise<HookStatus> {
  for (const outcome of outcomes) {
    deps.log({
      level: outcome.ok ? "INFO" : "ERROR",
      deploymentId: event.DeploymentId,
      ...outcome,
    });
  }
  const status = outcomes.every((outcome) => outcome.ok) ? "Succeeded" : "Failed";
  await deps.report(event, status);
  deps.log({ level: "INFO", deploymentId: event.DeploymentId, reported: status });
  return status;
}

const keyLifetimeMs = 15 * 60 * 1000;
/**
 * How long a check key's record stays after it expires: one is made per function deployment
 * group and deploy, and would otherwise fill `keys list` for good. Its create and revoke events
 * stay in the key history.
 */
const keyRecordKeptMs = 7 * 24 * 60 * 60 * 1000;

/**
 * Runs every probe against the new versions; revokes the check key whatever happens. A revoke
 * that fails holds no verdict back: the key expires within `keyLifetimeMs` anyway and was never
 * shown, so it is logged (WARN, with the key's id and expiry) and the versions are judged on
 * their probes alone.
 */
async function runChecks(deps: HookDeps, deploymentId: string): Promise<CheckOutcome[]> {
  const expiresAt = new Date(deps.now() + keyLifetimeMs);
  const removeAt = new Date(expiresAt.getTime() + keyRecordKeptMs);
  const key = await deps.issueKey(`pre-traffic check ${deploymentId}`, expiresAt, removeAt);
  try {
    const outcomes: CheckOutcome[] = [];
    for (const [index, probe] of probesFor(deps.routes).entries()) {
      outcomes.push(await runProbe(deps, probe, key.apiKey, `${deploymentId}-${index}`));
    }
    return outcomes;
  } finally {
    await deps.revokeKey(key).catch((error: unknown) => {
      deps.log({
        level: "WARN",
        deploymentId,
        check: "revoke the check key",
        detail: error instanceof Error ? error.message : String(error),
        keyId: key.keyId,
        expiresAt: expiresAt.toISOString(),
      });
    });
  }
}

async function runProbe(
  deps: HookDeps,
  probe: Probe,
  apiKey: string,
  requestId: string,
): Promise<CheckOutcome> {
  const routeKey = routeKeyOf(deps.routes, probe.method, probe.path);
  const target = deps.routes[routeKey] ?? `no function serves ${routeKey}`;
  const version = deps.versions[target] ?? target;
  const event = gatewayEvent({
    method: probe.method,
    rawPath: probe.path,
    headers: {
      host: "pre-traffic-check.invalid",
      "user-agent": "petstore-pre-traffic-hook",
      // As clients ask: without it a list over Lambda's 6 MB limit is a 406, and every deploy of
      // a healthy release would be rolled back once the list grows that far.
      ...acceptCompressed,
      ...(probe.withKey && { authorization: `Bearer ${apiKey}` }),
      ...(probe.body !== undefined && { "content-type": "application/json" }),
    },
    ...(probe.body !== undefined && { body: probe.body }),
    routeKey,
    requestId,
    timeEpoch: deps.now(),
    apiId: "pre-traffic-hook",
  });
  try {
    if (!(target in deps.versions)) throw new CheckFailed("no new version to check");
    const { payload, functionError } = await deps.invoke(version, event);
    if (functionError !== undefined) {
      throw new CheckFailed(`the function failed (${functionError}): ${payload.slice(0, 300)}`);
    }
    const answer = answerOf(payload);
    probe.verify(answer);
    return { check: probe.check, ok: true, detail: `${version}: ${answer.statusCode}` };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { check: probe.check, ok: false, detail: `${version}: ${why}` };
  }
}

/**
 * A Lambda proxy result (JSON text) as an Answer, its body decoded from base64 and gzip/br when
 * compressed; throws when it is not JSON.
 */
function answerOf(payload: string): Answer {
  const result = JSON.parse(payload) as {
    statusCode?: number;
    headers?: object;
    body?: string;
    isBase64Encoded?: boolean;
  };
  const headers = Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([name, value]) => [
      name.toLowerCase(),
      String(value),
    ]),
  );
  const body: unknown =
    result.body === undefined ? undefined : JSON.parse(lambdaBodyText({ ...result, headers }));
  return { statusCode: result.statusCode ?? 0, headers, body };
}
