/**
 * Stand-ins for what `npm run deploy` (scripts/deploy.ts) reaches: a PATH folder with `git`
 * (a clean or dirty tree at `sha`) and `sam` (records its arguments), for the command run as a
 * process; and a DeployIo whose build, spawns and smoke test only record, for deploy() run
 * in-process. Nothing reaches AWS.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expect } from "vitest";
import { projectRoot, servedFunctions } from "../../local/template.ts";
import type { DeployIo } from "../../scripts/deploy.ts";
import type { Captured } from "../../scripts/process.ts";
import { samconfigPath } from "../../scripts/stages.ts";

const script = resolve(projectRoot, "scripts/deploy.ts");
export const sha = "0123456789abcdef0123456789abcdef01234567";
export const { version } = JSON.parse(
  readFileSync(resolve(projectRoot, "package.json"), "utf8"),
) as {
  version: string;
};
export const key = "petstore_deploy-test-key-0123456789abcdefghijklmnopq";

/** The accounts and address an operator puts into infra/samconfig.toml (docs/deploying.md "First deploy"). */
export const operatorAccounts = { staging: "470001112223", production: "470004445556" };
export const operatorEmail = "oncall@ops.petstore.dev";
/** The versions the stand-in tools report. */
export const toolVersions = {
  sam: "SAM CLI, version 1.150.0\n",
  aws: "aws-cli/2.31.0 Python/3.13.7 Linux/6.8.0 exe/x86_64.ubuntu.24\n",
};

export const workflowPath = resolve(projectRoot, ".github/workflows/deploy.yml");

/**
 * infra/samconfig.toml as an operator leaves it: the placeholders replaced by real-looking
 * account ids and an on-call address (`edit` changes the text further). Written once per call
 * into a folder of its own; returns its path.
 */
export function operatorSamconfig(edit: (text: string) => string = (text) => text): string {
  const text = readFileSync(samconfigPath, "utf8")
    .replaceAll("111111111111", operatorAccounts.staging)
    .replaceAll("222222222222", operatorAccounts.production)
    .replace("oncall@example.com", operatorEmail);
  const path = join(mkdtempSync(join(samconfigDir(), "op-")), "samconfig.toml");
  writeFileSync(path, edit(text));
  return path;
}

let samconfigs: string | undefined;
/** One folder per test process for the operators' samconfig files, removed when it exits. */
function samconfigDir(): string {
  if (samconfigs === undefined) {
    const dir = mkdtempSync(join(tmpdir(), "petstore-samconfig-"));
    process.once("exit", () => {
      rmSync(dir, { recursive: true, force: true });
    });
    samconfigs = dir;
  }
  return samconfigs;
}

/**
 * A PATH folder under `scratch`: a stand-in `git` (a tree at `sha`) and optionally `sam` (answers
 * --version, records any other call's arguments in `log`) and `aws` (answers --version, and
 * `sts get-caller-identity` with `caller`).
 */
export function binDir(
  scratch: string,
  options: { sam?: boolean; aws?: boolean; dirty?: boolean; caller?: string } = {},
): { dir: string; log: string } {
  const dir = mkdtempSync(join(scratch, "bin-"));
  const log = join(dir, "sam-args.txt");
  const status = options.dirty ? "printf ' M lib/x.ts\\n'" : "true";
  const tool = (name: string, body: string): void => {
    writeFileSync(join(dir, name), `#!/bin/sh\n${body}`);
    chmodSync(join(dir, name), 0o755);
  };
  tool("git", `case "$1" in rev-parse) echo ${sha};; status) ${status};; esac\n`);
  if (options.sam) {
    const version = `[ "$1" = --version ] && { printf '${toolVersions.sam}'; exit 0; }`;
    tool("sam", `${version}\nprintf '%s\\n' "$@" > '${log}'\nexit 0\n`);
  }
  if (options.aws) {
    const caller = options.caller ?? operatorAccounts.staging;
    tool(
      "aws",
      `case "$1" in --version) printf '${toolVersions.aws}';; sts) echo ${caller};; *) exit 1;; esac\n`,
    );
  }
  return { dir, log };
}

/** `node scripts/deploy.ts <args>` with only `path` on PATH and no smoke-test key. */
export function runDeploy(
  args: string[],
  path: string,
): { code: number; out: string; err: string } {
  const child = spawnSync(process.execPath, [script, ...args], {
    cwd: projectRoot,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 30_000,
    env: { ...process.env, PATH: path, PETSTORE_API_KEY: "" },
  });
  return { code: child.status ?? -1, out: child.stdout, err: child.stderr };
}

/**
 * What deploy() did: log lines in order, the commands run, the smoke tests (URL, write), the
 * stage's BaseUrl each time it asked whether the stage accepts the key.
 */
export type FakeDeployIo = DeployIo & {
  log: string[];
  runs: string[][];
  smokes: [string, boolean][];
  keyChecks: string[];
  /** Every captured command's arguments, with how many `runs` there were before it. */
  captures: { args: string[]; runsBefore: number }[];
};

/**
 * What runs in the stage before the deploy, as the stand-in `aws` answers the deploy's reads:
 * the stack's status, commit tag and release hash (FunctionConfigurationSha256), and the version
 * of each function's `live` alias (a function left out has no alias). "no stack": none at all (a
 * first deploy); `{ error }`: every read fails with that on stderr, until a `sam deploy` succeeds.
 */
export type LiveNow =
  | { status: string; commit: string; release: string; versions: Record<string, string> }
  | { error: string }
  | "no stack";

/** The functions behind the routes, as the template declares them (the deploy reads their aliases). */
export const servedNames: readonly string[] = servedFunctions().map(({ name }) => name);

/** A release before the one deployed: a different version for each function. */
export const previousRelease = {
  status: "UPDATE_COMPLETE",
  commit: "fedcba9876543210fedcba9876543210fedcba98",
  release: "9".repeat(64),
  versions: Object.fromEntries(
    servedNames.map((name, index) => [name, String(7 + 5 * index)]),
  ) as Record<string, string>,
};

/**
 * What the stage runs once `sam deploy` with `args` has completed: the stack is updated (or
 * created) with its commit tag and release hash, and each function's `live` alias is on a new
 * version.
 */
export function deployedBy(args: readonly string[], before: LiveNow): LiveNow {
  const value = (option: string, name: string): string => {
    const text = args[args.indexOf(option) + 1] ?? "";
    return new RegExp(`\\b${name}="([^"]*)"`).exec(text)?.[1] ?? "";
  };
  const old = typeof before === "object" && "versions" in before ? before.versions : {};
  const versions = Object.fromEntries(
    servedNames.map((name) => [name, String(Number(old[name] ?? "0") + 1)]),
  );
  return {
    status: before === "no stack" ? "CREATE_COMPLETE" : "UPDATE_COMPLETE",
    commit: value("--tags", "commit"),
    release: value("--parameter-overrides", "FunctionConfigurationSha256"),
    versions,
  };
}

/** The AWS CLI v2 answer to describe-stacks and get-alias for `live` in `stage` (eu-west-1). */
function awsRead(args: readonly string[], live: LiveNow): Captured | undefined {
  const failed = (stderr: string): Captured => ({ code: 254, stdout: "", stderr: `\n${stderr}\n` });
  const [service, operation, , name = ""] = args;
  const region = ["--region", "eu-west-1"];
  const account = name.includes("production")
    ? operatorAccounts.production
    : operatorAccounts.staging;
  const notFound = `An error occurred (ResourceNotFoundException) when calling the GetAlias operation: Function not found: arn:aws:lambda:eu-west-1:${account}:function:${name}:live`;
  if (service === "cloudformation" && operation === "describe-stacks") {
    const expected = ["cloudformation", "describe-stacks", "--stack-name", name, ...region];
    expect(args).toEqual([
      ...expected,
      "--query",
      "Stacks[0].[StackStatus,Tags,Parameters]",
      "--output",
      "json",
    ]);
    if (live === "no stack") {
      return failed(
        `An error occurred (ValidationError) when calling the DescribeStacks operation: Stack with id ${name} does not exist`,
      );
    }
    if ("error" in live) return failed(live.error);
    const tags = [
      { Key: "project", Value: "petstore" },
      { Key: "commit", Value: live.commit },
    ];
    const parameters = [
      { ParameterKey: "Stage", ParameterValue: name.replace(/^petstore-/, "") },
      { ParameterKey: "FunctionConfigurationSha256", ParameterValue: live.release },
    ];
    return {
      code: 0,
      stdout: JSON.stringify([live.status, tags, parameters], null, 4),
      stderr: "",
    };
  }
  if (service === "lambda" && operation === "get-account-settings") {
    const query = ["--query", "AccountLimit.ConcurrentExecutions", "--output", "text"];
    expect(args).toEqual(["lambda", "get-account-settings", ...region, ...query]);
    // The quota of an account that never asked for more (the tests refuse lower ones).
    return { code: 0, stdout: "1000\n", stderr: "" };
  }
  if (service === "lambda" && operation === "get-alias") {
    expect(args).toEqual([
      ...["lambda", "get-alias", "--function-name", name, "--name", "live", ...region],
      ...["--query", "FunctionVersion", "--output", "text"],
    ]);
    if (live === "no stack") return failed(notFound);
    if ("error" in live) return failed(live.error);
    const version = live.versions[name.replace(/^petstore-\w+-/, "")];
    return version === undefined
      ? failed(notFound)
      : { code: 0, stdout: `${version}\n`, stderr: "" };
  }
  return undefined;
}

/**
 * A DeployIo at a clean (or dirty) tree at `sha`, with `sam` and `aws` found and answering (the
 * credentials are for `caller`, staging's account unless given; `live` runs in the stage now,
 * and `sam deploy` changes it: deployedBy), over an operator's samconfig.toml (no placeholders).
 * A `run` override that resolves to 0 leaves the stage as it was: an operator who declined SAM's
 * change set.
 */
export function fakeDeployIo(
  overrides: Partial<DeployIo> = {},
  dirty = false,
  caller: string = operatorAccounts.staging,
  live: LiveNow = previousRelease,
): FakeDeployIo {
  const log: string[] = [];
  const runs: string[][] = [];
  const smokes: [string, boolean][] = [];
  const keyChecks: string[] = [];
  const captures: FakeDeployIo["captures"] = [];
  const outputs = JSON.stringify([{ OutputKey: "BaseUrl", OutputValue: "https://api.example/v1" }]);
  const samconfig = overrides.samconfig ?? operatorSamconfig();
  let stage = live;
  return {
    log,
    runs,
    smokes,
    keyChecks,
    captures,
    samconfig,
    workflow: workflowPath,
    build: () => {
      log.push("build");
      return Promise.resolve();
    },
    staleBundles: () => [],
    bundleHashes: () => ({ listCategories: "a", createCategory: "b", routeFallback: "c" }),
    run: (command, args) => {
      log.push("run");
      runs.push([command, ...args]);
      if (command.endsWith("sam") && args[0] === "deploy") stage = deployedBy(args, stage);
      return Promise.resolve(0);
    },
    capture: (command, args) => {
      captures.push({ args: [command, ...args], runsBefore: runs.length });
      const answer = (stdout: string) => Promise.resolve({ code: 0, stdout, stderr: "" });
      if (command === "git")
        return answer(args[0] === "rev-parse" ? `${sha}\n` : dirty ? " M x\n" : "");
      if (command.endsWith("sam") && args[0] === "list") {
        if (stage !== "no stack") return answer(outputs);
        const stderr = `Error: Stack with id ${args[3] ?? ""} does not exist\n`;
        return Promise.resolve({ code: 1, stdout: "", stderr });
      }
      if (command.endsWith("sam") && args[0] === "--version") return answer(toolVersions.sam);
      if (command.endsWith("aws") && args[0] === "--version") return answer(toolVersions.aws);
      // The account of the operator's credentials (`caller`).
      if (command.endsWith("aws") && args[0] === "sts") return answer(`${caller}\n`);
      const read = command.endsWith("aws") ? awsRead(args, stage) : undefined;
      if (read !== undefined) return Promise.resolve(read);
      return Promise.resolve({ code: 127, stdout: "", stderr: "" });
    },
    smoke: (baseUrl, apiKey, write) => {
      log.push("smoke");
      expect(apiKey).toBe(key);
      smokes.push([baseUrl, write]);
      return Promise.resolve("passed" as const);
    },
    // A key the stage takes: 401 without it, 200 on the read, 400 on the write's empty body.
    keyAnswers: (baseUrl, apiKey, writes) => {
      log.push("key");
      expect(apiKey).toBe(key);
      keyChecks.push(baseUrl);
      return Promise.resolve({ keyless: 401, read: 200, ...(writes && { write: 400 }) });
    },
    env: { PETSTORE_API_KEY: key },
    which: (name) => (["sam", "aws"].includes(name) ? `/opt/${name}/bin/${name}` : undefined),
    confirm: () => Promise.resolve(false),
    interactive: false,
    out: (line) => log.push(`out: ${line}`),
    err: (line) => log.push(`err: ${line}`),
    ...overrides,
  };
}
/** The tags a deploy of the stage carries from a clean tree at `sha`. */
export const deployTags = (stage: string): string =>
  `project="petstore" stage="${stage}" commit="${sha}" version="${version}"`;
