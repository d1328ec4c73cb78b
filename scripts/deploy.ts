/**
 * `npm run deploy -- <staging|production> [--yes] [--dry-run] [--no-build] [--no-smoke]`: builds
 * dist/ (the bundles the template's CodeUri names), deploys that stage's stack with the AWS SAM
 * CLI (the operator's AWS credentials, the stage's settings from infra/samconfig.toml), tags the
 * stack and its functions with the git commit and package version, then runs the smoke test
 * against the stage (read-only in production) with the key in PETSTORE_API_KEY.
 *
 *   --yes       production only: skip both confirmations (this one and SAM's change set review)
 *   --dry-run   print what would run and the pre-flight's findings, run nothing (no build, no
 *               AWS call, no key); exit 2 when the real deploy would be refused
 *   --print-role the stage's GitHub deploy role and region, for the workflow (see preflight.ts)
 *   --no-build  deploy the dist/ already there (the pipeline's one build, for both stages)
 *   --no-smoke  skip the smoke test (then PETSTORE_API_KEY is not needed)
 *
 * Before anything runs, the pre-flight (scripts/lib/deploy/preflight.ts) refuses placeholder
 * settings in infra/samconfig.toml, a workflow role of another account, a missing or old SAM CLI
 * or AWS CLI, and credentials for another account, one line each (exit 2).
 * Production is deployed from a clean work tree only, and asks first on a terminal; without a
 * terminal it needs --yes. A smoke key the stage refuses now refuses the deploy (key.ts). After
 * sam, the stack must run the release (a declined change set is no deploy). A failed smoke test
 * says how to roll back, unless the stage refused its key.
 *
 * The parts, in scripts/lib/deploy/: plan.ts (the command line, the plan's own refusals),
 * preflight.ts (the settings' and tools' checks), key.ts (whether the stage takes the smoke
 * key), run.ts (the steps), io.ts (the terminal, processes and smoke test they use).
 */
import { terminalIo } from "./lib/deploy/io.ts";
import { deploy } from "./lib/deploy/run.ts";

export type { DeployIo } from "./lib/deploy/io.ts";
export { samDeployArgs } from "./lib/deploy/plan.ts";
export { deploy };

if (import.meta.main) {
  process.exitCode = await deploy(process.argv.slice(2), terminalIo);
}
