/**
 * `npm run deploy` run as a command, over the committed infra/samconfig.toml (placeholders and
 * all): refuses unknown stages and options, a dirty tree for production and a missing smoke key;
 * names the SAM CLI or git when missing; --dry-run prints the exact `sam deploy` with the commit
 * and version tags, then what the pre-flight would refuse. The PATH holds only stand-in `git`,
 * `sam` and `aws` executables that answer or record: nothing reaches AWS.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { templatePath } from "../../../local/template.ts";
import { samDeployArgs } from "../../../scripts/deploy.ts";
import { shellQuote } from "../../../scripts/process.ts";
import { samconfigPath } from "../../../scripts/stages.ts";
import { binDir, runDeploy, sha, version } from "../../support/deployStandIns.ts";
import { scratchDir } from "../../support/scratchDir.ts";

const scratch = scratchDir("petstore-deploy-");

describe.skipIf(process.platform === "win32")("npm run deploy (as a command)", () => {
  it("--dry-run prints the exact sam command, with the commit and version tags", () => {
    const bin = binDir(scratch, { sam: true, aws: true }).dir;
    const { code, out } = runDeploy(["staging", "--dry-run", "--no-smoke"], bin);
    expect(code).toBe(2); // the committed placeholders: see preflight.test.ts
    const args = samDeployArgs("staging", { yes: false });
    const overrides = args[args.indexOf("--parameter-overrides") + 1] ?? "";
    // Known once dist/ is built, which a dry run does not do.
    expect(overrides).toMatch(/ FunctionConfigurationSha256="<the SHA-256 of the build .*>"$/);
    const command = [
      "sam deploy",
      `--config-file ${samconfigPath}`,
      "--config-env staging",
      `--template-file ${templatePath}`,
      // What the overrides hold: helpers.test.ts.
      `--parameter-overrides ${shellQuote(overrides)}`,
      `--tags 'project="petstore" stage="staging" commit="${sha}" version="${version}"'`,
    ].join(" ");
    expect(out).toContain(`would run: ${command}\n`);
    expect(out).toContain("would run: npm run build");
    expect(out).toContain("stack petstore-staging in eu-west-1");
  });

  it("--dry-run for production says it would ask, and --yes skips SAM's change set prompt", () => {
    const bin = binDir(scratch).dir;
    const asking = runDeploy(["production", "--dry-run", "--no-smoke"], bin);
    expect(asking.code).toBe(2);
    expect(asking.out).toContain("would ask for confirmation");
    expect(asking.out).not.toContain("--no-confirm-changeset");
    const yes = runDeploy(["production", "--dry-run", "--yes", "--no-smoke"], bin);
    expect(yes.out).not.toContain("would ask");
    expect(yes.out).toMatch(/--config-env production .*--no-confirm-changeset\n/);
  });

  it.each([
    [["dev", "--dry-run"], /unknown stage "dev"/],
    [["Staging", "--dry-run"], /unknown stage "Staging"/],
    [["prod", "--dry-run"], /unknown stage "prod"/],
    [["", "--dry-run"], /unknown stage ""|usage/],
    [[], /usage|stage/],
    [["staging", "production"], /one stage at a time/],
    [["staging", "--force"], /--force/],
  ])("refuses %j", (args, says) => {
    const { code, err } = runDeploy(args, binDir(scratch).dir);
    expect(code).toBe(2);
    expect(err).toMatch(says);
  });

  it("refuses production from a dirty work tree, before anything runs", () => {
    const { dir, log } = binDir(scratch, { sam: true, dirty: true });
    const { code, err } = runDeploy(["production", "--yes", "--no-smoke"], dir);
    expect(code).toBe(2);
    expect(err).toContain("uncommitted changes");
    expect(existsSync(log)).toBe(false);
  });

  it("refuses to deploy without the smoke test's key, unless --no-smoke", () => {
    const { dir, log } = binDir(scratch, { sam: true });
    const { code, err } = runDeploy(["staging"], dir);
    expect(code).toBe(2);
    expect(err).toContain("PETSTORE_API_KEY");
    expect(err).toContain("--no-smoke");
    expect(existsSync(log)).toBe(false);
  });

  it("names the missing prerequisites when sam and aws are not on PATH", () => {
    const { code, err } = runDeploy(["staging", "--no-smoke"], binDir(scratch).dir);
    expect(code).toBe(2);
    expect(err).toMatch(
      /^deploy: refused: the AWS SAM CLI \(`sam`\) is not on PATH: .*install-sam-cli/m,
    );
    expect(err).toMatch(/^deploy: refused: the AWS CLI \(`aws`, version 2\) is not on PATH/m);
  });

  it("says so in one line when it cannot tell the commit (no git)", () => {
    const { code, err } = runDeploy(["staging", "--no-smoke"], join(scratch, "no-bin"));
    expect(code).toBe(1);
    expect(err.trim().split("\n")).toHaveLength(1);
    expect(err).toContain("git");
  });
});
