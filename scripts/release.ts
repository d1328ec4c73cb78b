/**
 * What a deploy ships and how it is labelled: the git commit and the package version (stack
 * tags, which CloudFormation copies onto the functions), whether the work tree is clean, and
 * what to do when a deployed release turns out bad.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { projectRoot, servedFunctions } from "../local/template.ts";
import type { Capture } from "./process.ts";
import { lastWords } from "./process.ts";
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

/** The stack's `commit` tag for a release: a dirty tree's is not the commit's code. */
export function commitTag(release: Release): string {
  return release.dirty ? `${release.commit}-dirty` : release.commit;
}

/** The stage's tags from samconfig.toml plus commit and version, in SAM's --tags format. */
export function stackTags(config: StageConfig, release: Release): string {
  const tags = {
    ...parseParameterOverrides(String(config.deploy.tags ?? "")),
    commit: commitTag(release),
    version: release.version,
  };
  return Object.entries(tags)
    .map(([name, value]) => `${name}="${value}"`)
    .join(" ");
}

/** One fact read before a deploy: its value, not there (why), or not readable (why, one line). */
export type Reading =
  { readonly value: string } | { readonly absent: string } | { readonly failed: string };

/**
 * What ran in the stage before a deploy, read before `sam deploy` changes it: the version each
 * function's `live` alias pointed to and the stack's `commit` tag. Only these say what to roll
 * back to: Lambda keeps no alias history, publishes no version for a function a release left
 * unchanged (so the one before the newest can be older than what ran), and keeps the versions
 * of deploys the pre-traffic hook or an alarm rolled back (SAM retains every version), so the
 * newest can be one that never took traffic.
 */
export interface LiveBefore {
  /** The stack's commit tag as written (`<sha>` or `<sha>-dirty`); absent: nothing was live. */
  readonly commit: Reading;
  /** Per function behind a route, its `live` alias's version. */
  readonly versions: Readonly<Record<string, Reading>>;
}

/** Statuses of a stack whose create never completed: nothing of it runs. */
const neverCreated = /^(ROLLBACK_|CREATE_(?!COMPLETE)|REVIEW_IN_PROGRESS)/;
/** The AWS CLI's words for a stack or function (or alias) that does not exist. */
const notFound = /ResourceNotFoundException|Stack with id \S+ does not exist/;

/**
 * What the stack runs, as CloudFormation says it (one describe-stacks): the commit tag, and the
 * parameters it was deployed with (the release's hash among them: plan.ts). `absent` when there
 * is no stack, or its create never completed (nothing of it runs); `failed` with the CLI's last
 * words, never an exception.
 */
export type StackRelease =
  | {
      readonly commit: Reading;
      readonly parameters: Readonly<Record<string, string>>;
    }
  | { readonly absent: string }
  | { readonly failed: string };

export async function readStackRelease(
  config: StageConfig,
  aws: string,
  run: Capture,
): Promise<StackRelease> {
  // JSON, and no JMESPath pipe or spaces: on Windows the arguments pass through cmd.exe
  // (process.ts), where `|` is a pipe, and `--output text` prints a missing tag as "None".
  const stack = await run(aws, [
    "cloudformation",
    "describe-stacks",
    "--stack-name",
    config.stackName,
    "--region",
    config.region,
    "--query",
    "Stacks[0].[StackStatus,Tags,Parameters]",
    "--output",
    "json",
  ]);
  return readingOf(stack, `no stack ${config.stackName} yet`, (stdout) => {
    const [status, tags, parameters] = JSON.parse(stdout) as [
      string,
      { Key: string; Value: string }[] | null,
      { ParameterKey: string; ParameterValue: string }[] | null,
    ];
    if (neverCreated.test(status)) return { absent: `${config.stackName} is in ${status}` };
    const tag = tags?.find((each) => each.Key === "commit")?.Value;
    return {
      commit: tag ? { value: tag } : { failed: `${config.stackName} has no commit tag` },
      parameters: Object.fromEntries(
        (parameters ?? []).map((each) => [each.ParameterKey, each.ParameterValue]),
      ),
    };
  });
}

/**
 * Reads what is live in the stage now, with the AWS CLI and the operator's credentials: the
 * stack (readStackRelease), then one get-alias per function. A stack or alias that does not
 * exist is `absent`; any other failure is `failed` with the CLI's last words, never an exception.
 */
export async function readLiveBefore(
  config: StageConfig,
  aws: string,
  run: Capture,
): Promise<LiveBefore> {
  const stack = await readStackRelease(config, aws, run);
  const commit = "commit" in stack ? stack.commit : stack;
  if ("absent" in commit) {
    const none = { absent: commit.absent };
    return { commit, versions: Object.fromEntries(routedFunctions().map((name) => [name, none])) };
  }
  const versions = await Promise.all(
    routedFunctions().map(async (name): Promise<[string, Reading]> => {
      const alias = await run(aws, [
        "lambda",
        "get-alias",
        "--function-name",
        `${config.stackName}-${name}`,
        "--name",
        "live",
        "--region",
        config.region,
        "--query",
        "FunctionVersion",
        "--output",
        "text",
      ]);
      return [name, readingOf(alias, "no live alias", (stdout) => ({ value: stdout.trim() }))];
    }),
  );
  return { commit, versions: Object.fromEntries(versions) };
}

/** One read's answer: `absent` (saying `missing`) when the CLI found no such thing. */
function readingOf<T extends object>(
  answer: { code: number; stdout: string; stderr: string },
  missing: string,
  read: (stdout: string) => T,
): T | { readonly absent: string } | { readonly failed: string } {
  if (answer.code !== 0) {
    if (notFound.test(answer.stderr)) return { absent: missing };
    return { failed: lastWords(answer.stderr, answer.code) };
  }
  try {
    return read(answer.stdout);
  } catch {
    return { failed: `an answer it could not read: ${answer.stdout.trim().slice(0, 80)}` };
  }
}

/** What was live before, in one line: "listCategories 7, createCategory 5, …; commit <sha>". */
export function describeLiveBefore(before: LiveBefore): string {
  if ("absent" in before.commit) return `nothing (${before.commit.absent})`;
  const versions = Object.entries(before.versions).map(
    ([name, reading]) =>
      `${name} ${"value" in reading ? reading.value : "absent" in reading ? "none" : "unknown"}`,
  );
  const commit = "value" in before.commit ? before.commit.value : "unknown";
  return `${versions.join(", ")}; commit ${commit}`;
}

/** Why the first read that failed did; undefined when everything was read. */
export function unreadLiveBefore(before: LiveBefore): string | undefined {
  return firstFailure([before.commit, ...Object.values(before.versions)]);
}

function firstFailure(readings: readonly Reading[]): string | undefined {
  for (const reading of readings) if ("failed" in reading) return reading.failed;
  return undefined;
}

/** What to do when the new release is live and misbehaves: go back to what ran before it. */
export function rollbackAdvice(config: StageConfig, before: LiveBefore): string[] {
  const runbook = `docs/operating.md "Rolling back"`;
  if ("absent" in before.commit) {
    return [
      `Nothing ran in ${config.stackName} before this deploy (${before.commit.absent}): there is ` +
        `nothing to roll back to. Fix the release and deploy again (${runbook}).`,
    ];
  }
  const where = `--region ${config.region}`;
  const aliases = routedFunctions().map((name) => {
    const reading = before.versions[name] ?? { failed: "not read" };
    const functionName = `${config.stackName}-${name}`;
    if ("absent" in reading) {
      return `    (${functionName} had no live alias before: it is new, only the complete rollback removes it)`;
    }
    const version = "value" in reading ? reading.value : "<its version before>";
    return `    aws lambda update-alias ${where} --function-name ${functionName} --name live --function-version ${version}`;
  });
  const unknownVersion = firstFailure(Object.values(before.versions));
  const commit = "value" in before.commit ? before.commit.value : undefined;
  const sha = commit?.replace(/-dirty$/, "") ?? "<the commit of the release before>";
  return [
    `To roll back ${config.stackName} to what ran before this deploy (${runbook}):`,
    `  quickest, the code only: point each alias back at the version it had,`,
    ...aliases,
    ...(unknownVersion !== undefined
      ? [
          `    (not read before the deploy: ${unknownVersion}. Lambda keeps no alias history: ` +
            `a function's version before is the CurrentVersion in the AppSpec of the CodeDeploy ` +
            `deployment this deploy made for it, and one with no such deployment did not move: ${runbook})`,
        ]
      : []),
    `  complete, code and template: deploy that release again,`,
    `    git checkout ${sha} && npm ci && npm run deploy -- ${config.stage}`,
    ...("failed" in before.commit
      ? [
          `    (the stack's commit tag was not read before the deploy: ${before.commit.failed}. The ` +
            `deploy before this one printed it: "Deployed stack ${config.stackName} in ${config.region} (commit …")`,
        ]
      : commit !== sha
        ? [
            `    (that release was deployed from a work tree with uncommitted changes: ${sha} is ` +
              `its commit without them)`,
          ]
        : []),
  ];
}

/** The functions behind the routes, as infra/template.yaml names them (<stack>-<name>). */
function routedFunctions(): string[] {
  return servedFunctions().map((spec) => spec.name);
}
