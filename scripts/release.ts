/**
 * What a deploy ships and how it is labelled: the git commit and the package version (stack
 * tags, which CloudFormation copies onto the functions), whether the work tree is clean, and
 * what to do when a deployed release turns out bad.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { functionsOf, projectRoot } from "../local/template.ts";
import type { Capture } from "./process.ts";
import type { StageConfig } from "./stages.ts";
import { parseParameterOverrides } from "./stages.ts";

export interface Release {
  readonly commit: string;
  /** Uncommitted changes (tracked or untracked, .gitignore'd files aside). */
  readonly dirty: boolean;
  readonly version: string;
}

export type ReadRelease = { ok: true; release: Release } | { ok: false; message: string };

export async function readRelease(run: Capture): Promise<ReadRelease> {
  const head = await run("git", ["rev-parse", "HEAD"]);
  const status = await run("git", ["status", "--porcelain"]);
  if (head.code !== 0 || status.code !== 0) {
    return {
      ok: false,
      message:
        "cannot tell which commit this is (git rev-parse HEAD failed): deploy from a git " +
        "clone of this repository, with git on PATH.",
    };
  }
  const { version } = JSON.parse(readFileSync(resolve(projectRoot, "package.json"), "utf8")) as {
    version: string;
  };
  return {
    ok: true,
    release: { commit: head.stdout.trim(), dirty: status.stdout.trim() !== "", version },
  };
}

/** The stage's tags from samconfig.toml plus commit and version, in SAM's --tags format. */
export function stackTags(config: StageConfig, release: Release): string {
  const tags = {
    ...parseParameterOverrides(String(config.deploy.tags ?? "")),
    commit: release.dirty ? `${release.commit}-dirty` : release.commit,
    version: release.version,
  };
  return Object.entries(tags)
    .map(([name, value]) => `${name}="${value}"`)
    .join(" ");
}

/** What to do when the new release is live and misbehaves. */
export function rollbackAdvice(config: StageConfig): string[] {
  // The functions behind the routes, as infra/template.yaml names them (petstore-<stage>-<name>).
  const functions = functionsOf()
    .filter((spec) => spec.routeKeys.length > 0)
    .map((spec) => spec.name);
  const where = `--region ${config.region}`;
  return [
    `To roll back ${config.stackName} (docs/operating.md "Rolling back"):`,
    `  quickest, the code only: point each alias back at the version it had before, e.g.`,
    ...functions.map(
      (name) =>
        `    aws lambda update-alias ${where} --function-name ${config.stackName}-${name} ` +
        `--name live --function-version <previous>`,
    ),
    `    (the previous numbers: aws lambda list-versions-by-function ${where} --function-name <name>)`,
    `  complete, code and template: deploy the previous release again,`,
    `    git checkout <previous tag or commit> && npm ci && npm run deploy -- ${config.stage}`,
  ];
}
