/**
 * cfn-lint (Python) on a CloudFormation template, informational checks included, or why it
 * cannot run here (the tests skip, naming it).
 */
import { spawnSync } from "node:child_process";
import { stageConfig } from "../../scripts/stages.ts";
import type { MissingTool } from "./missingTool.ts";

const version = spawnSync("cfn-lint", ["--version"], { encoding: "utf8" });

/** Set when cfn-lint is not installed here. */
export const cfnLintMissing: MissingTool | undefined =
  version.error !== undefined || version.status !== 0
    ? { tool: "cfn-lint (Python)", get: "pip install cfn-lint" }
    : undefined;

/** Every finding (parseable format) and the exit status; a clean template gives "" and 0. */
export function cfnLint(path: string): { findings: string; status: number | null } {
  const child = spawnSync(
    "cfn-lint",
    ["--include-checks", "I", "--format", "parseable", "--", path],
    {
      encoding: "utf8",
      timeout: 120_000,
      env: { ...process.env, AWS_DEFAULT_REGION: stageConfig("production").region },
    },
  );
  return { findings: child.stdout + child.stderr, status: child.status };
}
