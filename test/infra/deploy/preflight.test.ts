/**
 * The deploy's pre-flight: placeholder settings in infra/samconfig.toml (the committed ones are
 * placeholders), a workflow role of another account, a missing or old SAM CLI or AWS CLI and
 * credentials for another account are each refused in one line, before anything runs; a dry run
 * needs no key and prints the same findings; --print-role gives the workflow its role.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { deploy } from "../../../scripts/deploy.ts";
import {
  binDir,
  fakeDeployIo,
  operatorAccounts,
  operatorEmail,
  operatorSamconfig,
  runDeploy,
  workflowPath,
} from "../../support/deployStandIns.ts";
import { scratchDir } from "../../support/scratchDir.ts";

const scratch = scratchDir("petstore-preflight-");
const lines = (text: string): string[] => text.split("\n").filter((line) => line !== "");
const said = (log: readonly string[]): string => log.join("\n");

describe.skipIf(process.platform === "win32")("the pre-flight on the committed config", () => {
  it("a dry run of staging needs no key, prints the plan and the placeholder account, exit 2", () => {
    const bin = binDir(scratch, { sam: true, aws: true }).dir;
    const { code, out, err } = runDeploy(["staging", "--dry-run"], bin);
    expect(code).toBe(2);
    expect(out).toContain("would run: sam deploy");
    expect(out).toContain("key: PETSTORE_API_KEY, not set now");
    expect(lines(err)).toEqual([
      expect.stringMatching(
        /^deploy: would refuse: AccountId 111111111111 in \[staging\.deploy\.parameters\] in infra\/samconfig\.toml is a placeholder: put in the staging account's id/,
      ),
    ]);
  });

  it("a dry run of production names its placeholder account and alarm e-mail, one line each", () => {
    const bin = binDir(scratch, { sam: true, aws: true }).dir;
    const { code, err } = runDeploy(["production", "--dry-run", "--yes"], bin);
    expect(code).toBe(2);
    expect(lines(err)).toEqual([
      expect.stringMatching(/^deploy: would refuse: AccountId 222222222222 .* is a placeholder/),
      expect.stringMatching(
        /^deploy: would refuse: AlarmEmail oncall@example\.com .* is a placeholder .*: put in the on-call address$/,
      ),
    ]);
  });

  it("a real deploy refuses the placeholders before building or calling sam", () => {
    const { dir, log } = binDir(scratch, { sam: true, aws: true });
    const { code, out, err } = runDeploy(["staging", "--no-smoke"], dir);
    expect(code).toBe(2);
    expect(lines(err)).toEqual([expect.stringMatching(/^deploy: refused: AccountId 111111111111/)]);
    expect(out).not.toContain("building");
    expect(existsSync(log)).toBe(false);
  });

  it("--print-role refuses the placeholder account in one line", () => {
    const { code, out, err } = runDeploy(["staging", "--print-role"], binDir(scratch).dir);
    expect(code).toBe(2);
    expect(out).toBe("");
    expect(lines(err)).toHaveLength(1);
  });
});

describe("the pre-flight on an operator's config (in-process)", () => {
  it("a dry run with real settings and no key passes, running nothing", async () => {
    const fake = fakeDeployIo({ env: {} });
    expect(await deploy(["staging", "--dry-run"], fake)).toBe(0);
    expect(said(fake.log)).toContain("out: pre-flight: passed");
    expect(said(fake.log)).toContain(`account ${operatorAccounts.staging}`);
    expect(fake.runs).toEqual([]);
    expect(fake.log).not.toContain("build");
  });

  it.each([
    [
      "s3_bucket",
      "petstore-staging-artifacts-470001112223",
      "petstore-staging-artifacts-470009990000",
    ],
    ["role_arn", "arn:aws:iam::470001112223:role/", "arn:aws:iam::470009990000:role/"],
  ])("refuses a %s of another account than AccountId", async (key, from, to) => {
    const samconfig = operatorSamconfig((text) => text.replace(from, to));
    const fake = fakeDeployIo({ samconfig });
    expect(await deploy(["staging", "--no-smoke"], fake)).toBe(2);
    expect(fake.log).toEqual([
      `err: deploy: refused: ${key} in [staging.deploy.parameters] in infra/samconfig.toml names account 470009990000, AccountId 470001112223: make them the same account`,
    ]);
  });

  it.each(["oncall@example.org", "pager@team.example.net", "oncall@petstore.test", "a@b.invalid"])(
    "refuses the placeholder alarm e-mail %s",
    async (address) => {
      const samconfig = operatorSamconfig((text) => text.replace(operatorEmail, address));
      const fake = fakeDeployIo({ samconfig }, false, operatorAccounts.production);
      expect(await deploy(["production", "--yes", "--no-smoke"], fake)).toBe(2);
      expect(fake.log).toEqual([
        expect.stringMatching(new RegExp(`^err: deploy: refused: AlarmEmail ${address} in `)),
      ]);
    },
  );

  it("refuses a production that would page nobody (no AlarmEmail)", async () => {
    const samconfig = operatorSamconfig((text) =>
      text.replace(`AlarmEmail="${operatorEmail}"`, 'AlarmEmail=""'),
    );
    const fake = fakeDeployIo({ samconfig }, false, operatorAccounts.production);
    expect(await deploy(["production", "--yes", "--no-smoke"], fake)).toBe(2);
    expect(said(fake.log)).toContain("production's alarms would page nobody");
  });

  it("refuses a workflow whose role ARN names another account than samconfig.toml", async () => {
    const workflow = join(mkdtempSync(join(scratch, "workflow-")), "deploy.yml");
    writeFileSync(
      workflow,
      readFileSync(workflowPath, "utf8").replace(
        "${{ steps.aws.outputs.role }}",
        "arn:aws:iam::111111111111:role/petstore-staging-github-deploy",
      ),
    );
    const fake = fakeDeployIo({ workflow });
    expect(await deploy(["staging", "--no-smoke"], fake)).toBe(2);
    expect(fake.log).toEqual([
      `err: deploy: refused: .github/workflows/deploy.yml assumes petstore-staging-github-deploy in account 111111111111, but AccountId is ${operatorAccounts.staging}: let it read the role with npm run deploy -- staging --print-role (docs/deploying.md "Pipeline")`,
    ]);
  });

  it("refuses credentials for another account, naming both, before sam runs", async () => {
    const fake = fakeDeployIo({}, false, operatorAccounts.production);
    expect(await deploy(["staging", "--no-smoke"], fake)).toBe(2);
    expect(fake.log).toEqual([
      `err: deploy: refused: your AWS credentials are for account ${operatorAccounts.production}, but staging lives in ${operatorAccounts.staging} (AccountId): set AWS_PROFILE to your staging profile`,
    ]);
    expect(fake.runs).toEqual([]);
  });

  it("refuses an old SAM CLI and a missing AWS CLI, one line each, naming the versions", async () => {
    const fake = fakeDeployIo({
      which: (name) => (name === "sam" ? "/opt/sam/bin/sam" : undefined),
      capture: (_command, args) =>
        Promise.resolve(
          args[0] === "--version"
            ? { code: 0, stdout: "SAM CLI, version 1.99.1\n", stderr: "" }
            : { code: 0, stdout: "", stderr: "" },
        ),
    });
    expect(await deploy(["staging", "--no-smoke"], fake)).toBe(2);
    expect(fake.log).toEqual([
      expect.stringMatching(
        /^err: deploy: refused: the AWS SAM CLI \(`sam`\) is 1\.99\.1, older than 1\.120\.0, the oldest this deploy supports: upgrade it \(https:/,
      ),
      expect.stringMatching(
        /^err: deploy: refused: the AWS CLI \(`aws`, version 2\) is not on PATH: install 2\.15\.0 or later \(https:.*\), check `aws --version`$/,
      ),
    ]);
  });

  it("--print-role gives the workflow the stage's role and region from samconfig.toml", async () => {
    for (const stage of ["staging", "production"] as const) {
      const fake = fakeDeployIo();
      expect(await deploy([stage, "--print-role"], fake)).toBe(0);
      expect(fake.log).toEqual([
        `out: role=arn:aws:iam::${operatorAccounts[stage]}:role/petstore-${stage}-github-deploy`,
        "out: region=eu-west-1",
      ]);
    }
  });
});

describe("the account's Lambda concurrency quota is at least the stage's concurrency alarm", () => {
  /** The operator's io, with the account's quota answered as `stdout` (or a failure). */
  const withQuota = (answer: { code: number; stdout: string; stderr: string }) => {
    const fake = fakeDeployIo({}, false, operatorAccounts.production);
    const capture: typeof fake.capture = (command, args) =>
      args[1] === "get-account-settings" ? Promise.resolve(answer) : fake.capture(command, args);
    return { fake, io: { ...fake, capture } };
  };

  it("refuses, before anything runs, an account allowing fewer than AlarmConcurrentExecutions", async () => {
    const { fake, io } = withQuota({ code: 0, stdout: "10\n", stderr: "" });
    expect(await deploy(["production", "--yes", "--no-smoke"], io)).toBe(2);
    expect(fake.log).toEqual([
      expect.stringMatching(
        /^err: deploy: refused: the account allows 10 concurrent Lambda executions, under production's AlarmConcurrentExecutions \(800\)/,
      ),
    ]);
    expect(fake.runs).toEqual([]);
  });

  it("deploys at the threshold itself", async () => {
    const { fake, io } = withQuota({ code: 0, stdout: "800\n", stderr: "" });
    expect(await deploy(["production", "--yes", "--no-smoke"], io)).toBe(0);
    expect(fake.runs).toHaveLength(1);
  });

  it("says in one line when it cannot read the quota, and deploys", async () => {
    const denied =
      "\nAn error occurred (AccessDeniedException) when calling the GetAccountSettings operation: not authorized\n";
    const { fake, io } = withQuota({ code: 254, stdout: "", stderr: denied });
    expect(await deploy(["production", "--yes", "--no-smoke"], io)).toBe(0);
    expect(fake.log.filter((line) => line.includes("concurrency quota"))).toEqual([
      expect.stringMatching(
        /^err: deploy: could not read the account's Lambda concurrency quota \(.*AccessDeniedException.*\); deploying anyway$/,
      ),
    ]);
    expect(fake.runs).toHaveLength(1);
  });
});
