/** The deployable stages and their settings, read from infra/samconfig.toml. */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { projectRoot } from "../local/template.ts";

export const stages: readonly string[] = ["staging", "production"];
export const samconfigPath = resolve(projectRoot, "infra/samconfig.toml");

/** The `region = "..."` of a stage's deploy parameters in samconfig.toml. */
export function stageRegion(stage: string): string {
  const text = readFileSync(samconfigPath, "utf8");
  const section = text
    .split(/^\[/m)
    .find((block) => block.startsWith(`${stage}.deploy.parameters]`));
  const region = section && /^region\s*=\s*"([^"]+)"/m.exec(section)?.[1];
  if (!region) throw new Error(`infra/samconfig.toml has no region for stage ${stage}`);
  return region;
}
