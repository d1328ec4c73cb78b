/**
 * What `npm run deploy` is asked to do (the command line, read into a Plan), the refusals that
 * come before anything runs, and the `sam deploy` arguments for a stage.
 */
import { existsSync } from "node:fs";
import { functionsOf, templatePath } from "../../../local/template.ts";
import type { Release } from "../../release.ts";
import type { StageConfig } from "../../stages.ts";
import { samconfigPath, stageConfig, stages } from "../../stages.ts";
import { commandLine, parseCommandLine, UsageError } from "../args.ts";
import type { DeployIo } from "./io.ts";

const usage =
  `usage: npm run deploy -- <${stages.join("|")}> [--yes] [--dry-run] [--no-build] ` +
  `[--no-smoke]\n  the smoke test's key: PETSTORE_API_KEY (a key of that stage)`;

export interface Plan {
  readonly stage: string;
  readonly config: StageConfig;
  readonly yes: boolean;
  readonly dryRun: boolean;
  readonly build: boolean;
  readonly smoke: boolean;
}

/** The `sam deploy` arguments for a stage. Paths are absolute: see infra/samconfig.toml. */
export function samDeployArgs(stage: string, options: { yes: boolean; tags?: string }): string[] {
  return [
    "deploy",
    "--config-file",
    samconfigPath,
    "--config-env",
    stage,
    "--template-file",
    templatePath,
    ...(options.tags === undefined ? [] : ["--tags", options.tags]),
    ...(options.yes ? ["--no-confirm-changeset"] : []),
  ];
}

/** The command line as a Plan, or the exit code when it is --help (0) or a mistake (2). */
export function plan(argv: readonly string[], io: DeployIo): Plan | number {
  return commandLine(() => readPlan(argv), {
    help: () => {
      io.out(usage);
    },
    mistake: (message) => {
      io.err(`${message}\n${usage}`);
    },
  });
}

function readPlan(argv: readonly string[]): Plan | "help" {
  const { values, positionals } = parseCommandLine({
    args: [...argv],
    allowPositionals: true,
    options: {
      yes: { type: "boolean", short: "y", default: false },
      "dry-run": { type: "boolean", default: false },
      "no-build": { type: "boolean", default: false },
      "no-smoke": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return "help";
  const [stage, ...extra] = positionals;
  if (stage === undefined) throw new UsageError(`no stage given: use ${stages.join(" or ")}`);
  if (extra.length > 0) throw new UsageError(`one stage at a time, not "${extra.join(" ")}" too`);
  if (!stages.includes(stage)) {
    throw new UsageError(`unknown stage "${stage}": the stages are ${stages.join(" and ")}.`);
  }
  return {
    stage,
    config: stageConfig(stage),
    yes: values.yes,
    dryRun: values["dry-run"],
    build: !values["no-build"],
    smoke: !values["no-smoke"],
  };
}

/** Refusals that come before anything runs: a dirty production tree, no key, no bundles. */
export function preflight(plan: Plan, release: Release, io: DeployIo): number | undefined {
  if (plan.stage === "production" && release.dirty) {
    io.err(
      "refusing to deploy production from a work tree with uncommitted changes: production " +
        "runs committed code only. Commit or stash them (git status), then run this again.",
    );
    return 2;
  }
  if (plan.smoke && !io.env.PETSTORE_API_KEY?.trim()) {
    io.err(
      `the smoke test after the deploy needs a key of ${plan.stage} in PETSTORE_API_KEY ` +
        `(npm run keys -- create --stage ${plan.stage} --label smoke), or pass --no-smoke.`,
    );
    return 2;
  }
  const missing = functionsOf().filter(
    (spec) => !existsSync(`${spec.codeDir}/${spec.handlerFile}`),
  );
  if (!plan.build && !plan.dryRun && missing.length > 0) {
    io.err(
      `--no-build, but dist/ lacks ${missing.map((spec) => spec.name).join(", ")}: run npm run build.`,
    );
    return 2;
  }
  return undefined;
}

/** How the smoke test after a deploy treats the stage: production is never written to. */
export function smokeMode(stage: string): string {
  return stage === "production" ? "read-only" : "with one write";
}
