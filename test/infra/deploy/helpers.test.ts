/**
 * What deploy's command line rests on: absolute paths for sam (the working directory does not
 * matter), POSIX shell quoting for the printed command, and finding executables on PATH.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "../../../local/template.ts";
import { samDeployArgs } from "../../../scripts/deploy.ts";
import { configurationParameter, configurationSha256 } from "../../../scripts/lib/deploy/plan.ts";
import { parseParameterOverrides, stageConfig } from "../../../scripts/stages.ts";
import { shellQuote, which } from "../../../scripts/process.ts";
import { binDir } from "../../support/deployStandIns.ts";
import { scratchDir } from "../../support/scratchDir.ts";

const scratch = scratchDir("petstore-deploy-");

describe("deploy helpers", () => {
  it("hands sam absolute paths, so neither depends on the working directory", () => {
    const args = samDeployArgs("staging", { yes: false });
    const after = (flag: string): string => args[args.indexOf(flag) + 1] ?? "";
    expect(after("--config-file")).toBe(resolve(projectRoot, "infra/samconfig.toml"));
    expect(after("--template-file")).toBe(resolve(projectRoot, "infra/template.yaml"));
    expect(existsSync(after("--config-file"))).toBe(true);
    expect(existsSync(after("--template-file"))).toBe(true);
    // The template's CodeUri (../dist/...) is relative to the template's folder.
    expect(readFileSync(after("--template-file"), "utf8")).toContain("CodeUri: ../dist/");
  });

  it("gives sam the stage's parameters again, with the hash of the ones the functions read", () => {
    const args = samDeployArgs("staging", { yes: false });
    const given = parseParameterOverrides(args[args.indexOf("--parameter-overrides") + 1] ?? "");
    const { parameters } = stageConfig("staging");
    expect(given).toEqual({
      ...parameters,
      [configurationParameter]: configurationSha256(parameters),
    });
    // A value the functions read changes the hash; one they do not (an alarm's) leaves it.
    const hash = (changes: Record<string, string>) =>
      configurationSha256({ ...parameters, ...changes });
    expect(hash({ AllowLegacyCredentials: "false" })).not.toBe(hash({}));
    expect(hash({ PetsSunsetAt: "2027-01-01T00:00:00Z" })).not.toBe(hash({}));
    expect(hash({ AlarmThrottles: "11", DeploymentType: "AllAtOnce" })).toBe(hash({}));
  });

  it("quotes for a POSIX shell only what needs it", () => {
    expect(shellQuote("/work/main/infra/template.yaml")).toBe("/work/main/infra/template.yaml");
    expect(shellQuote("/a b/c")).toBe("'/a b/c'");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });

  it.skipIf(process.platform === "win32")("finds executables on PATH like command -v", () => {
    const { dir } = binDir(scratch, { sam: true });
    expect(which("sam", { PATH: `${join(scratch, "nowhere")}:${dir}` })).toBe(join(dir, "sam"));
    expect(which("sam", { PATH: join(scratch, "nowhere") })).toBeUndefined();
    writeFileSync(join(dir, "not-executable"), "");
    expect(which("not-executable", { PATH: dir })).toBeUndefined();
  });
});
