/**
 * What deploy's command line rests on: absolute paths for sam (the working directory does not
 * matter), POSIX shell quoting for the printed command, and finding executables on PATH.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadTemplate, projectRoot } from "../../../local/template.ts";
import { samDeployArgs } from "../../../scripts/deploy.ts";
import { configurationParameter, releaseSha256 } from "../../../scripts/lib/deploy/plan.ts";
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

  it("gives sam the stage's parameters again, with the release's hash", () => {
    const release = "0".repeat(64);
    const args = samDeployArgs("staging", { yes: false, release });
    const given = parseParameterOverrides(args[args.indexOf("--parameter-overrides") + 1] ?? "");
    const { parameters } = stageConfig("staging");
    expect(given).toEqual({ ...parameters, [configurationParameter]: release });
  });

  it("the release's hash moves with the code, a value the functions read, or how the template writes them; never with an alarm's", () => {
    const { parameters } = stageConfig("staging");
    const bundles = { listCategories: "a", createCategory: "b", routeFallback: "c" };
    const hash = (changes: Record<string, string>, code = bundles, template = loadTemplate()) =>
      releaseSha256({ ...parameters, ...changes }, code, template);
    expect(hash({ AllowLegacyCredentials: "false" })).not.toBe(hash({}));
    expect(hash({ PetsSunsetAt: "2027-01-01T00:00:00Z" })).not.toBe(hash({}));
    expect(hash({}, { ...bundles, createCategory: "b2" })).not.toBe(hash({}));
    const template = loadTemplate();
    const list = template.Resources.ListCategoriesFunction?.Properties ?? {};
    const resized = {
      ...template,
      Resources: {
        ...template.Resources,
        ListCategoriesFunction: {
          Type: "AWS::Serverless::Function",
          Properties: { ...list, MemorySize: 2048 },
        },
      },
    };
    expect(hash({}, bundles, resized)).not.toBe(hash({}));
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
