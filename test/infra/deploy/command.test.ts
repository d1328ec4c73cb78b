/**
 * `npm run deploy` run as a command: refuses unknown stages and options, a dirty tree for
 * production, a missing smoke key and production without a terminal; names the SAM CLI or git
 * when missing; --dry-run prints the exact `sam deploy` with the commit and version tags. The
 * PATH holds only stand-in `git` and `sam` executables that answer or record: nothing reaches
 * AWS.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { templatePath } from "../../../local/template.ts";
import { samconfigPath } from "../../../scripts/stages.ts";
import { binDir, runDeploy, sha, version } from "../../support/deployStandIns.ts";
import { scratchDir } from "../../support/scratchDir.ts";

const scratch = scratchDir("petstore-deploy-");

describe.skipIf(process.platform === "win32")("npm run deploy (as a command)", () => {
  it("--dry-run prints the exact sam command, with the commit and version tags", () => {
    const { code, out } = runDeploy(["staging", "--dry-run", "--no-smoke"], binDir(scratch).dir);
    expect(code).toBe(0);
    const command = [
      "sam deploy",
      `--config-file ${samconfigPath}`,
      "--config-env staging",
      `--template-file ${templatePath}`,
      `--tags 'project="petstore" stage="staging" commit="${sha}" version="${version}"'`,
    ].join(" ");
    expect(out).toContain(`would run: ${command}\n`);
    expect(out).toContain("would run: npm run build");
    expect(out).toContain("stack petstore-staging in eu-west-1");
  });

  it("--dry-run for production says it would ask, and --yes skips SAM's change set prompt", () => {
    const bin = binDir(scratch).dir;
    const asking = runDeploy(["production", "--dry-run", "--no-smoke"], bin);
    expect(asking.code).toBe(0);
    expect(asking.out).toContain("would ask for confirmation");
    expect(asking.out).not.toContain("--no-confirm-changeset");
    const yes = runDeploy(["production", "--dry-run", "--yes", "--no-smoke"], bin);
    expect(yes.out).not.toContain("would ask");
    expect(yes.out).toMatch(/--config-env production .*--no-confirm-changeset\n/);
  });

  it.each([["dev"], ["Staging"], ["prod"], [""]])("refuses the unknown stage %j", (stage) => {
    const { code, err } = runDeploy([stage, "--dry-run"], binDir(scratch).dir);
    expect(code).toBe(2);
    expect(err).toMatch(/unknown stage|usage/);
  });

  it("refuses no stage, two stages and unknown options", () => {
    const bin = binDir(scratch).dir;
    expect(runDeploy([], bin).code).toBe(2);
    expect(runDeploy(["staging", "production"], bin).code).toBe(2);
    expect(runDeploy(["staging", "--force"], bin).code).toBe(2);
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

  it("names the missing prerequisite when sam is not on PATH", () => {
    const { code, err } = runDeploy(["staging", "--no-smoke"], binDir(scratch).dir);
    expect(code).toBe(1);
    expect(err).toContain("AWS SAM CLI");
    expect(err).toContain("install-sam-cli");
  });

  it("says so in one line when it cannot tell the commit (no git)", () => {
    const { code, err } = runDeploy(["staging", "--no-smoke"], join(scratch, "no-bin"));
    expect(code).toBe(1);
    expect(err.trim().split("\n")).toHaveLength(1);
    expect(err).toContain("git");
  });

  it("refuses production without a terminal unless --yes, before building or calling sam", () => {
    const { dir, log } = binDir(scratch, { sam: true });
    const { code, err } = runDeploy(["production", "--no-smoke"], dir);
    expect(code).toBe(2);
    expect(err).toContain("refusing to deploy production without confirmation");
    expect(existsSync(log)).toBe(false);
  });
});
