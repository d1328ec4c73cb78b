/**
 * `npm run deploy -- <staging|production> [--yes] [--dry-run] [--no-build] [--no-smoke]`: builds
 * dist/ (the bundles the template's CodeUri names), deploys that stage's stack with the AWS SAM
 * CLI (the operator's AWS credentials, the stage's settings from infra/samconfig.toml), tags the
 * stack and its functions with the git commit and package version, then runs the smoke test
 * against the stage (read-only in production) with the key in PETSTORE_API_KEY.
 *
 *   --yes       production only: skip both confirmations (this one and SAM's change set review)
 *   --dry-run   print what would run, run nothing (no build, no AWS call, no SAM CLI needed)
 *   --no-build  deploy the dist/ already there (the pipeline's one build, for both stages)
 *   --no-smoke  skip the smoke test (then PETSTORE_API_KEY is not needed)
 *
 * Production is deployed from a clean work tree only, and asks first on a terminal; without a
 * terminal it needs --yes. A failed smoke test says how to roll back.
 *
 * The parts, in scripts/lib/deploy/: plan.ts (the command line, the refusals before anything
 * runs), run.ts (the steps), io.ts (the terminal, processes and smoke test they use).
 */
import { terminalIo } from "./lib/deploy/io.ts";
import { deploy } from "./lib/deploy/run.ts";

export type { DeployIo } from "./lib/deploy/io.ts";
export { samDeployArgs } from "./lib/deploy/plan.ts";
export { deploy };

if (import.meta.main) {
  process.exitCode = await deploy(process.argv.slice(2), terminalIo);
}
