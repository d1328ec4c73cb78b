/** The hook's verdict: each outcome logged (never the key), then Succeeded or Failed to CodeDeploy. */
import type { CheckOutcome, HookDeps, HookEvent, HookStatus } from "./types.ts";

/** Succeeded only when every check passed; a Failed report keeps traffic on the old versions. */
export async function reportOutcomes(
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
