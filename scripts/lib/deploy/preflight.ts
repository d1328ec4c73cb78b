/**
 * The deploy's pre-flight: what must be true of the settings and the operator's tools before a
 * stage is deployed. Each finding is one line saying what to set or install; a real deploy
 * refuses on any of them (exit 2, before anything is built or sent), a dry run prints them.
 *
 * - infra/samconfig.toml: a real 12-digit AccountId, not a placeholder (111111111111, …,
 *   123456789012), named alike in s3_bucket and role_arn; an AlarmEmail that is not a reserved
 *   documentation address (example.com/.org/.net, *.test, *.example, *.invalid, *.localhost),
 *   and one for production (whose alarms page someone).
 * - .github/workflows/deploy.yml: it reads each stage's role from samconfig.toml
 *   (`npm run deploy -- <stage> --print-role`); a role ARN written into it must name the
 *   stage's AccountId.
 * - the SAM CLI and the AWS CLI: on PATH, at least the versions below.
 */
import { existsSync, readFileSync } from "node:fs";
import type { Capture } from "../../process.ts";
import { lastWords } from "../../process.ts";
import type { StageConfig } from "../../stages.ts";

export const samInstall =
  "https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/install-sam-cli.html";
export const awsInstall =
  "https://docs.aws.amazon.com/cli/latest/userguide/getting-started-install.html";

/** The oldest releases the deploy path is written for (docs/deploying.md "What you need"). */
export const minimumVersions = { sam: "1.120.0", aws: "2.15.0" } as const;

/** Account ids that only ever stand in for a real one: repeated digits, the AWS docs' example. */
export function isPlaceholderAccount(id: string): boolean {
  return /^(\d)\1{11}$/.test(id) || id === "123456789012" || id === "012345678901";
}

/** Domains reserved for documentation and tests (RFC 2606, RFC 6761): nobody reads their mail. */
export function isPlaceholderEmail(address: string): boolean {
  const domain = address.slice(address.lastIndexOf("@") + 1).toLowerCase();
  return (
    /(^|\.)example\.(com|org|net)$/.test(domain) ||
    /(^|\.)(test|example|invalid|localhost)$/.test(domain)
  );
}

/** The role a stage's GitHub deploy job assumes (infra/pipeline.yaml creates it). */
export function githubDeployRole(config: StageConfig): string {
  return `arn:aws:iam::${config.parameters.AccountId ?? ""}:role/petstore-${config.stage}-github-deploy`;
}

/** What is wrong with a stage's settings and the workflow's roles, one line each. */
export function configFindings(config: StageConfig, workflowFile: string): string[] {
  const { stage, parameters, deploy } = config;
  const section = `[${stage}.deploy.parameters] in infra/samconfig.toml`;
  const findings: string[] = [];
  const account = parameters.AccountId ?? "";
  if (!/^\d{12}$/.test(account)) {
    findings.push(
      `AccountId "${account}" in ${section} is not a 12-digit AWS account id: put in the ${stage} account's (aws sts get-caller-identity --query Account)`,
    );
  } else if (isPlaceholderAccount(account)) {
    findings.push(
      `AccountId ${account} in ${section} is a placeholder: put in the ${stage} account's id (aws sts get-caller-identity --query Account), in AccountId, s3_bucket and role_arn`,
    );
  } else {
    for (const key of ["s3_bucket", "role_arn"]) {
      const named = /\d{12}/.exec(String(deploy[key] ?? ""))?.[0];
      if (named !== account)
        findings.push(
          `${key} in ${section} names account ${named ?? "(none)"}, AccountId ${account}: make them the same account`,
        );
    }
  }
  const email = parameters.AlarmEmail ?? "";
  if (email !== "" && isPlaceholderEmail(email)) {
    findings.push(
      `AlarmEmail ${email} in ${section} is a placeholder (a reserved domain nobody reads): put in the on-call address`,
    );
  } else if (email === "" && stage === "production") {
    findings.push(
      `AlarmEmail in ${section} is empty, so production's alarms would page nobody: put in the on-call address`,
    );
  }
  findings.push(...workflowFindings(config, workflowFile));
  return findings;
}

/** A role ARN written into the workflow for this stage must name the stage's account. */
function workflowFindings(config: StageConfig, workflowFile: string): string[] {
  if (!existsSync(workflowFile)) return [];
  const text = readFileSync(workflowFile, "utf8");
  const account = config.parameters.AccountId ?? "";
  const written = new RegExp(
    String.raw`arn:aws:iam::(\d{12}):role/petstore-${config.stage}-github-deploy`,
    "g",
  );
  const others = [...text.matchAll(written)]
    .map((match) => match[1] ?? "")
    .filter((id) => id !== account);
  return [...new Set(others)].map(
    (id) =>
      `.github/workflows/deploy.yml assumes petstore-${config.stage}-github-deploy in account ${id}, but AccountId is ${account}: let it read the role with npm run deploy -- ${config.stage} --print-role (docs/deploying.md "Pipeline")`,
  );
}

/** The SAM CLI and the AWS CLI: on PATH and recent enough, one line for each that is not. */
export async function toolFindings(
  which: (name: string) => string | undefined,
  capture: Capture,
): Promise<string[]> {
  const tools = [
    {
      name: "sam",
      what: "the AWS SAM CLI (`sam`)",
      version: /SAM CLI, version (\d+\.\d+\.\d+)/,
      minimum: minimumVersions.sam,
      install: samInstall,
    },
    {
      name: "aws",
      what: "the AWS CLI (`aws`, version 2)",
      version: /aws-cli\/(\d+\.\d+\.\d+)/,
      minimum: minimumVersions.aws,
      install: awsInstall,
    },
  ];
  const findings: string[] = [];
  for (const tool of tools) {
    const path = which(tool.name);
    if (path === undefined) {
      findings.push(
        `${tool.what} is not on PATH: install ${tool.minimum} or later (${tool.install}), check \`${tool.name} --version\``,
      );
      continue;
    }
    const { stdout, stderr } = await capture(path, ["--version"]);
    const version = tool.version.exec(`${stdout}\n${stderr}`)?.[1];
    if (version === undefined || olderThan(version, tool.minimum)) {
      findings.push(
        `${tool.what} is ${version ?? "of an unknown version"}, older than ${tool.minimum}, the oldest this deploy supports: upgrade it (${tool.install})`,
      );
    }
  }
  return findings;
}

export function olderThan(version: string, minimum: string): boolean {
  const [a, b] = [version, minimum].map((text) => text.split(".").map(Number));
  for (let i = 0; i < 3; i++) {
    const difference = (a?.[i] ?? 0) - (b?.[i] ?? 0);
    if (difference !== 0) return difference < 0;
  }
  return false;
}

/**
 * The account the operator's credentials are for (`aws sts get-caller-identity`) against the
 * stage's AccountId: a wrong profile is named before SAM starts. Undefined when they agree.
 */
export async function identityFinding(
  config: StageConfig,
  aws: string,
  capture: Capture,
): Promise<string | undefined> {
  const account = config.parameters.AccountId ?? "";
  const args = ["sts", "get-caller-identity", "--query", "Account", "--output", "text"];
  const { code, stdout, stderr } = await capture(aws, [...args, "--region", config.region]);
  if (code !== 0) {
    return `aws sts get-caller-identity failed (${lastWords(stderr, code)}): set AWS_PROFILE to your ${config.stage} profile and run aws sso login (or aws configure)`;
  }
  const found = stdout.trim();
  return found === account
    ? undefined
    : `your AWS credentials are for account ${found}, but ${config.stage} lives in ${account} (AccountId): set AWS_PROFILE to your ${config.stage} profile`;
}

/**
 * The account's Lambda concurrency quota against the stage's AlarmConcurrentExecutions. A new
 * account may start far below the 1,000 the template assumes (some have reported 10): then that
 * alarm can never fire, and Lambda throttles the API (500s) long before the stage throttle does.
 * A quota it cannot read is said in one line and refuses nothing: the deploy may still be right.
 */
export async function concurrencyFinding(
  config: StageConfig,
  aws: string,
  capture: Capture,
): Promise<{ readonly refuse: string } | { readonly note: string } | undefined> {
  const threshold = Number(config.parameters.AlarmConcurrentExecutions);
  const { code, stdout, stderr } = await capture(aws, [
    "lambda",
    "get-account-settings",
    "--region",
    config.region,
    "--query",
    "AccountLimit.ConcurrentExecutions",
    "--output",
    "text",
  ]);
  const quota = Number(stdout.trim());
  if (code !== 0 || !Number.isSafeInteger(quota)) {
    const why = code !== 0 ? lastWords(stderr, code) : `it answered "${stdout.trim()}"`;
    return { note: `could not read the account's Lambda concurrency quota (${why})` };
  }
  if (!(quota < threshold)) return undefined;
  return {
    refuse:
      `the account allows ${quota} concurrent Lambda executions, under ${config.stage}'s ` +
      `AlarmConcurrentExecutions (${threshold}): that alarm could never fire, and Lambda would ` +
      `throttle the API first. Ask for a higher quota (Service Quotas: AWS Lambda, Concurrent ` +
      `executions), or lower the threshold in infra/samconfig.toml`,
  };
}
