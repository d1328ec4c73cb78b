/**
 * What deploy's command line rests on: absolute paths for sam (the working directory does not
 * matter), POSIX shell quoting for the printed command, and finding executables on PATH.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "../../../local/template.ts";
import { samDeployArgs } from "../../../scripts/deploy.ts";
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
