/**
 * Runs test/support/samTransform.py (aws-sam-translator) on infra/template.yaml for parameter
 * sets and returns the plain CloudFormation templates, or why it could not.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadTemplate, projectRoot } from "../../local/template.ts";
import { stageConfig } from "../../scripts/stages.ts";
import type { JsonObject } from "./cloudFormation.ts";
import type { MissingTool } from "./missingTool.ts";

const helper = resolve(projectRoot, "test/support/samTransform.py");

export type TransformedResource = { Type: string; Properties?: JsonObject } & JsonObject;

export interface Transformed {
  readonly Resources: Record<string, TransformedResource>;
  readonly Rules?: JsonObject;
}

export interface TransformRun {
  readonly transformed?: Transformed[];
  /** The tool that is missing here (python3 or aws-sam-translator): the checks skip. */
  readonly missing?: MissingTool;
  readonly error?: string;
}

export function transformTemplate(parameterSets: readonly Record<string, string>[]): TransformRun {
  const region = stageConfig("staging").region;
  // aws-sam-translator alone does not expand Fn::ForEach (CloudFormation's
  // AWS::LanguageExtensions does, before the SAM transform): it gets the template expanded.
  const dir = mkdtempSync(join(tmpdir(), "petstore-sam-"));
  const expanded = join(dir, "template.json");
  writeFileSync(expanded, JSON.stringify(loadTemplate()));
  const child = spawnSync("python3", [helper, expanded, JSON.stringify(parameterSets)], {
    encoding: "utf8",
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, AWS_DEFAULT_REGION: region, AWS_REGION: region },
  });
  rmSync(dir, { recursive: true, force: true });
  if (child.error) {
    return { missing: { tool: "python3", get: "install Python 3 (apt-get install python3)" } };
  }
  if (child.status === 3) {
    return {
      missing: { tool: "aws-sam-translator (Python)", get: "pip install aws-sam-translator" },
    };
  }
  if (child.status !== 0) return { error: child.stderr };
  return { transformed: JSON.parse(child.stdout) as Transformed[] };
}
