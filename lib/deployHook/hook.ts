/**
 * The CodeDeploy pre-traffic hook: before `live` moves to the new versions, invoke each new
 * version with read-only requests as API Gateway would send them (./probes.ts), check the answers
 * against the contract (./checks.ts), and report Succeeded or Failed to CodeDeploy (./report.ts).
 * A Failed report stops the deployment and leaves traffic on the old versions.
 *
 * Nothing is written but one short-lived API key (so that one check reaches the table with a
 * valid key): issued with a 15-minute expiry, revoked when the checks end, whatever happened.
 * The key never appears in the hook's log lines.
 */
import { runChecks } from "./checks.ts";
import { reportOutcomes } from "./report.ts";
import type { CheckOutcome, HookDeps, HookEvent, HookStatus } from "./types.ts";

export type { CheckOutcome, HookDeps, HookEvent, HookStatus } from "./types.ts";

/** The Lambda handler's work: check, log each outcome, report to CodeDeploy. */
export async function preTrafficHook(
  event: HookEvent,
  deps: HookDeps,
): Promise<{ status: HookStatus }> {
  let outcomes: CheckOutcome[];
  try {
    outcomes = await runChecks(deps, event.DeploymentId);
  } catch (error) {
    // The key could not be issued or revoked: no verdict on the versions, so no traffic for them.
    const detail = error instanceof Error ? error.message : String(error);
    outcomes = [{ check: "issue and revoke a check key", ok: false, detail }];
  }
  return { status: await reportOutcomes(event, outcomes, deps) };
}
