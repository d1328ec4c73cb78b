/**
 * The checks: one short-lived key issued, every probe sent to its function's new version, the key
 * revoked whatever happened. The key expires by itself after 15 minutes should the revoke fail.
 */
import { gatewayEvent } from "./gatewayEvent.ts";
import type { Answer, Probe } from "./probes.ts";
import { CheckFailed, probes } from "./probes.ts";
import { routeKeyOf } from "./targets.ts";
import type { CheckOutcome, HookDeps } from "./types.ts";

const keyLifetimeMs = 15 * 60 * 1000;

/** Runs every probe against the new versions; revokes the check key whatever happens. */
export async function runChecks(deps: HookDeps, deploymentId: string): Promise<CheckOutcome[]> {
  const expiresAt = new Date(deps.now() + keyLifetimeMs);
  const key = await deps.issueKey(`pre-traffic check ${deploymentId}`, expiresAt);
  try {
    const outcomes: CheckOutcome[] = [];
    for (const [index, probe] of probes.entries()) {
      outcomes.push(await runProbe(deps, probe, key.apiKey, `${deploymentId}-${index}`));
    }
    return outcomes;
  } finally {
    await deps.revokeKey(key.keyId);
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
  const event = gatewayEvent(
    probe,
    routeKey,
    probe.withKey ? apiKey : undefined,
    requestId,
    deps.now(),
  );
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

/** A Lambda proxy result (JSON text) as an Answer; throws when it is not JSON. */
function answerOf(payload: string): Answer {
  const result = JSON.parse(payload) as { statusCode?: number; headers?: object; body?: string };
  const headers = Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([name, value]) => [
      name.toLowerCase(),
      String(value),
    ]),
  );
  const body: unknown = result.body === undefined ? undefined : JSON.parse(result.body);
  return { statusCode: result.statusCode ?? 0, headers, body };
}
