/**
 * What `npm run deploy` is asked to do (the command line, read into a Plan), the refusals that
 * come before anything runs, and the `sam deploy` arguments for a stage.
 */
import { keyStageOf, keyVerdict } from "../../../lib/keyFormat.ts";
import { createHash } from "node:crypto";
import type { Template } from "../../../local/template.ts";
import { loadTemplate, servedFunctions, templatePath } from "../../../local/template.ts";
import type { Release } from "../../release.ts";
import type { StageConfig } from "../../stages.ts";
import { samconfigPath, SettingsError, stageConfig, stages } from "../../stages.ts";
import { commandLine, parseCommandLine, UsageError } from "../args.ts";
import type { DeployIo } from "./io.ts";
import { minimumVersions } from "./preflight.ts";

const usage = `usage: npm run deploy -- <${stages.join("|")}> [--yes] [--dry-run] [--no-build] [--no-smoke]
       npm run deploy -- <${stages.join("|")}> --print-role
  --yes         production only: skip both confirmations (this one and SAM's change set review)
  --dry-run     print what would run and every pre-flight finding; run nothing, need no key
  --no-build    deploy the dist/ already there
  --no-smoke    skip the smoke test after the deploy (then no key is needed)
  --print-role  print the stage's GitHub deploy role and region (role=…, region=…) from
                infra/samconfig.toml, for the workflow; refused while the settings are not real
  the smoke test's key: PETSTORE_API_KEY (a key of that stage; one the running stage refuses
                is refused before the build)
  before anything runs, the pre-flight refuses placeholder settings in infra/samconfig.toml, a
  workflow role of another account, a missing or old SAM CLI (>= ${minimumVersions.sam}) or AWS CLI
  (>= ${minimumVersions.aws}), and credentials for another account (one line each)
exit: 0 deployed (dry run: the pre-flight passed), 1 failed on the way (SAM's own code when
  sam deploy fails; 1 when the stack does not run the release after it, as when its change
  set was declined), 2 refused before anything ran (a mistake in the command or the pre-flight)`;

export interface Plan {
  readonly stage: string;
  readonly config: StageConfig;
  readonly yes: boolean;
  readonly dryRun: boolean;
  readonly build: boolean;
  readonly smoke: boolean;
  readonly printRole: boolean;
}

/**
 * The `sam deploy` arguments for a stage. Paths are absolute: see infra/samconfig.toml. The
 * stage's parameters are given again on the command line (which replaces samconfig's list), with
 * the release's hash (`releaseSha256`, known once dist/ is built: a placeholder until then).
 */
export function samDeployArgs(
  stage: string,
  options: { yes: boolean; tags?: string; samconfig?: string; release?: string },
): string[] {
  const { parameters } = stageConfig(stage, options.samconfig ?? samconfigPath);
  const release = options.release ?? "<the SHA-256 of the build and the values it reads>";
  const overrides = { ...parameters, [configurationParameter]: release };
  return [
    "deploy",
    "--config-file",
    options.samconfig ?? samconfigPath,
    "--config-env",
    stage,
    "--template-file",
    templatePath,
    "--parameter-overrides",
    // SAM CLI's own format: a value in double quotes, `\"` for a quote inside.
    Object.entries(overrides)
      .map(([name, value]) => `${name}="${value.replaceAll('"', '\\"')}"`)
      .join(" "),
    ...(options.tags === undefined ? [] : ["--tags", options.tags]),
    ...(options.yes ? ["--no-confirm-changeset"] : []),
  ];
}

/** The template parameter each function behind a route takes as its AutoPublishCodeSha256. */
export const configurationParameter = "FunctionConfigurationSha256";

/**
 * The template parameters a function's configuration reads: a `Ref`, or `${Name}` in a `Sub`,
 * in Globals' function properties or a function's own (the hash's own parameter aside; its
 * DeploymentPreference and Events are how SAM deploys it and routes to it, not configuration).
 */
export function functionParameters(template: Template = loadTemplate()): string[] {
  const names = new Set<string>();
  const visit = (node: unknown): void => {
    if (typeof node !== "object" || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      // How SAM deploys and routes to the function, not the function's configuration.
      if (key === "DeploymentPreference" || key === "Events") continue;
      if (key === "Ref" && typeof value === "string") names.add(value);
      const text: unknown = key === "Fn::Sub" && Array.isArray(value) ? value[0] : value;
      if (key === "Fn::Sub" && typeof text === "string")
        for (const [, name = ""] of text.matchAll(/\$\{(\w+)\}/g)) names.add(name);
      visit(value);
    }
  };
  visit(template.Globals?.Function);
  for (const resource of Object.values(template.Resources))
    if (resource.Type === "AWS::Serverless::Function") visit(resource.Properties);
  const declared = Object.keys(template.Parameters ?? {});
  return [...names].filter((n) => declared.includes(n) && n !== configurationParameter).sort();
}

/**
 * What each function behind a route takes as AutoPublishCodeSha256 (FunctionConfigurationSha256):
 * the SHA-256 of their bundles as built (`bundles`: a hash per function), their properties as the
 * template writes them (Globals' and their own), and the values (a parameter not given: its
 * Default) of the parameters those read. Given a hash, SAM names the version after it alone
 * (samtranslator's LogicalIdGenerator puts it in place of its own), so it must hold all SAM would
 * have hashed: code, environment, MemorySize. And SAM's own hash takes an environment's `!Ref`s
 * as written, not their values (aws/serverless-application-model#1640): a deploy that changed
 * only a value would publish no version, and `live` would keep the old one. One hash for them
 * all: a deploy that changes anything publishes a version of each.
 */
export function releaseSha256(
  parameters: Readonly<Record<string, string>>,
  bundles: Readonly<Record<string, string>>,
  template: Template = loadTemplate(),
): string {
  const defaultOf = (name: string): string => {
    const fallback = template.Parameters?.[name]?.Default;
    return typeof fallback === "string" || typeof fallback === "number" ? String(fallback) : "";
  };
  const values = functionParameters(template).map((name) => [
    name,
    parameters[name] ?? defaultOf(name),
  ]);
  const properties = servedFunctions(template).map(({ name, logicalId }) => [
    name,
    template.Resources[logicalId]?.Properties,
    bundles[name] ?? "",
  ]);
  const written = [values, template.Globals?.Function, properties];
  return createHash("sha256").update(JSON.stringify(written)).digest("hex");
}

/** The command line as a Plan, or the exit code when it is --help (0) or a mistake (2). */
export function plan(argv: readonly string[], io: DeployIo): Plan | number {
  try {
    return commandLine(() => readPlan(argv, io.samconfig), {
      help: () => {
        io.out(usage);
      },
      mistake: (message) => {
        io.err(`deploy: ${message} (npm run deploy -- --help)`);
      },
    });
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    io.err(`deploy: ${error.message}`);
    return 2;
  }
}

function readPlan(argv: readonly string[], samconfig: string): Plan | "help" {
  const { values, positionals } = parseCommandLine({
    args: [...argv],
    allowPositionals: true,
    options: {
      yes: { type: "boolean", short: "y", default: false },
      "dry-run": { type: "boolean", default: false },
      "no-build": { type: "boolean", default: false },
      "no-smoke": { type: "boolean", default: false },
      "print-role": { type: "boolean", default: false },
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
    config: stageConfig(stage, samconfig),
    yes: values.yes,
    dryRun: values["dry-run"],
    build: !values["no-build"],
    smoke: !values["no-smoke"],
    printRole: values["print-role"],
  };
}

/**
 * The refusals of the plan itself, one line each: a dirty production tree, no key for the smoke
 * test, with --no-build bundles missing or older than the code. A dry run needs neither a key
 * nor bundles.
 */
export function planFindings(plan: Plan, release: Release, io: DeployIo): string[] {
  const findings: string[] = [];
  if (plan.stage === "production" && release.dirty) {
    findings.push(
      "the work tree has uncommitted changes, and production runs committed code only: " +
        "commit or stash them (git status)",
    );
  }
  // A key the stage refuses unread (lib/keyFormat.ts) would fail the smoke test after a good
  // deploy, on 401: said before anything runs, without asking the stage (run.ts asks it next).
  const smokeKey = io.env.PETSTORE_API_KEY?.trim();
  if (plan.smoke && smokeKey && keyVerdict(smokeKey, keyStageOf(plan.stage)) === "refused") {
    findings.push(
      `PETSTORE_API_KEY is not a key of ${plan.stage} (another stage's, or its checksum is ` +
        `wrong): the smoke test after the deploy would fail on 401; use a key of ${plan.stage}, ` +
        `or pass --no-smoke`,
    );
  }
  if (plan.dryRun) return findings;
  if (plan.smoke && !smokeKey) {
    findings.push(
      `the smoke test after the deploy needs a key of ${plan.stage} in PETSTORE_API_KEY ` +
        `(npm run keys -- create --stage ${plan.stage} --label smoke), or pass --no-smoke`,
    );
  }
  // Production runs committed code only: a dist/ older than the code would deploy other code.
  const stale = plan.build ? [] : io.staleBundles();
  if (stale.length > 0) {
    findings.push(
      `--no-build, but dist/ is missing or older than the code for ${stale.join(", ")}: ` +
        `run npm run build, or drop --no-build`,
    );
  }
  return findings;
}

/** Whether the smoke test after a deploy writes to the stage: production is never written to. */
export function smokeWrites(stage: string): boolean {
  return stage !== "production";
}

/** How the smoke test after a deploy treats the stage, in words. */
export function smokeMode(stage: string): string {
  return smokeWrites(stage) ? "with one write" : "read-only";
}
