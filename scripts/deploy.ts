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
 */
import { existsSync } from "node:fs";
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import { templatePath } from "../local/template.ts";
import { functionsOf } from "../local/template.ts";
import { buildFunctions } from "./build.ts";
import type { Capture } from "./process.ts";
import { capture, runAttached, shellQuote, which } from "./process.ts";
import type { Release } from "./release.ts";
import { readRelease, rollbackAdvice, stackTags } from "./release.ts";
import { runChecks } from "./smokeChecks.ts";
import type { StageConfig } from "./stages.ts";
import { samconfigPath, stackOutput, stageConfig, stages } from "./stages.ts";

const usage =
  `usage: npm run deploy -- <${stages.join("|")}> [--yes] [--dry-run] [--no-build] ` +
  `[--no-smoke]\n  the smoke test's key: PETSTORE_API_KEY (a key of that stage)`;
const samInstall =
  "https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/install-sam-cli.html";

export interface DeployIo {
  /** Builds dist/ (scripts/build.ts). */
  readonly build: () => Promise<unknown>;
  /** Runs a command with the terminal attached; resolves to its exit code. */
  readonly run: (command: string, args: readonly string[]) => Promise<number>;
  /** Runs a command with its output captured (git, `sam list stack-outputs`). */
  readonly capture: Capture;
  /** Runs the smoke test's checks, reporting each; resolves to whether all passed. */
  readonly smoke: (baseUrl: string, apiKey: string, write: boolean) => Promise<boolean>;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The absolute path of an executable on PATH, or undefined. */
  readonly which: (name: string) => string | undefined;
  /** Asks a yes/no question on the terminal. */
  readonly confirm: (question: string) => Promise<boolean>;
  readonly interactive: boolean;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
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

interface Plan {
  readonly stage: string;
  readonly config: StageConfig;
  readonly yes: boolean;
  readonly dryRun: boolean;
  readonly build: boolean;
  readonly smoke: boolean;
}

function plan(argv: readonly string[], io: DeployIo): Plan | number {
  let parsed;
  try {
    parsed = parseArgs({
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
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(usage);
    return 0;
  }
  const [stage, ...extra] = positionals;
  if (stage === undefined || extra.length > 0) {
    io.err(usage);
    return 2;
  }
  if (!stages.includes(stage)) {
    io.err(`unknown stage "${stage}": the stages are ${stages.join(" and ")}.\n${usage}`);
    return 2;
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
function preflight(plan: Plan, release: Release, io: DeployIo): number | undefined {
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

export async function deploy(argv: readonly string[], io: DeployIo): Promise<number> {
  const planned = plan(argv, io);
  if (typeof planned === "number") return planned;
  const { stage, config } = planned;
  const read = await readRelease(io.capture);
  if (!read.ok) {
    io.err(read.message);
    return 1;
  }
  const refused = preflight(planned, read.release, io);
  if (refused !== undefined) return refused;
  const args = samDeployArgs(stage, { yes: planned.yes, tags: stackTags(config, read.release) });
  const where = `stack ${config.stackName} in ${config.region}`;
  const asks = stage === "production" && !planned.yes;

  if (planned.dryRun) {
    io.out(`dry run: would deploy ${where}`);
    if (asks) io.out("would ask for confirmation first (pass --yes to skip)");
    if (planned.build) io.out("would run: npm run build");
    io.out(`would run: ${["sam", ...args].map(shellQuote).join(" ")}`);
    if (planned.smoke) io.out(`would run the smoke test (${smokeMode(stage)}) against BaseUrl`);
    return 0;
  }

  const sam = io.which("sam");
  if (sam === undefined) {
    io.err(
      `the AWS SAM CLI (\`sam\`) is not on PATH. It is a prerequisite of deploying: ` +
        `install it (${samInstall}), check \`sam --version\`, then run this again.`,
    );
    return 1;
  }

  if (asks) {
    if (!io.interactive) {
      io.err(
        `refusing to deploy production without confirmation: no terminal to ask on. ` +
          `Run it in a terminal, or pass --yes.`,
      );
      return 2;
    }
    const confirmed = await io.confirm(`Deploy ${where} with your current AWS credentials? [y/N] `);
    if (!confirmed) {
      io.err("not deployed.");
      return 1;
    }
  }

  if (planned.build) {
    io.out(`building dist/ …`);
    await io.build();
  }
  io.out(`deploying ${where}: sam ${args.map(shellQuote).join(" ")}`);
  const code = await io.run(sam, args);
  if (code !== 0) {
    io.err(
      `sam deploy failed (exit ${code}). CloudFormation rolls a failed update back by itself, ` +
        `and CodeDeploy keeps traffic on the old versions when the pre-traffic hook or an alarm ` +
        `fails; see the stack's events (the CloudFormation console) for the cause.`,
    );
    return code;
  }
  io.out("");
  io.out(`Deployed ${where} (commit ${read.release.commit}, version ${read.release.version}).`);
  return planned.smoke ? smokeAfterDeploy(planned, io) : 0;
}

function smokeMode(stage: string): string {
  return stage === "production" ? "read-only" : "with one write";
}

async function smokeAfterDeploy(plan: Plan, io: DeployIo): Promise<number> {
  const found = await stackOutput(plan.config, "BaseUrl", io.capture);
  if (!found.ok) {
    io.err(`${found.message}\nThen: npm run smoke -- --stage ${plan.stage}`);
    return 1;
  }
  io.out(`smoke test of ${found.value} (${smokeMode(plan.stage)}):`);
  const apiKey = io.env.PETSTORE_API_KEY?.trim() ?? "";
  if (await io.smoke(found.value, apiKey, plan.stage !== "production")) return 0;
  io.err(`the smoke test failed against the new release of ${plan.stage}.`);
  for (const line of rollbackAdvice(plan.config)) io.err(line);
  return 1;
}

const terminalIo: DeployIo = {
  build: buildFunctions,
  run: runAttached,
  capture,
  smoke: async (baseUrl, apiKey, write) => {
    const results = await runChecks(baseUrl, apiKey, {
      write,
      report: ({ name, ok, detail }) => {
        process.stdout.write(`${ok ? "PASS" : "FAIL"}  ${name}${detail ? `: ${detail}` : ""}\n`);
      },
    });
    return results.every((result) => result.ok);
  },
  env: process.env,
  which: (name) => which(name),
  confirm: async (question) => {
    const readline = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return /^y(es)?$/i.test((await readline.question(question)).trim());
    } finally {
      readline.close();
    }
  },
  interactive: process.stdin.isTTY,
  out: (line) => {
    process.stdout.write(`${line}\n`);
  },
  err: (line) => {
    process.stderr.write(`${line}\n`);
  },
};

if (import.meta.main) {
  process.exitCode = await deploy(process.argv.slice(2), terminalIo);
}
