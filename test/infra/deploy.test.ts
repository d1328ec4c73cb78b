/**
 * `npm run deploy`: refuses unknown stages, asks before production, names the SAM CLI when it
 * is missing, builds before it deploys, and hands `sam deploy` absolute paths to this
 * repository's samconfig.toml and template. Nothing here reaches AWS: the command runs with
 * --dry-run, with a PATH without `sam`, with a stand-in `sam` that only records its arguments,
 * or in-process with the build and the spawn replaced.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { projectRoot, templatePath } from "../../local/template.ts";
import type { DeployIo } from "../../scripts/deploy.ts";
import { deploy, samDeployArgs, shellQuote, which } from "../../scripts/deploy.ts";
import { samconfigPath } from "../../scripts/stages.ts";

const script = resolve(projectRoot, "scripts/deploy.ts");
const scratch = mkdtempSync(join(tmpdir(), "petstore-deploy-"));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** A directory holding a stand-in `sam` that records its arguments and does nothing else. */
function fakeSamDir(): { dir: string; log: string } {
  const dir = mkdtempSync(join(scratch, "bin-"));
  const log = join(dir, "sam-args.txt");
  writeFileSync(join(dir, "sam"), `#!/bin/sh\nprintf '%s\\n' "$@" > '${log}'\nexit 0\n`);
  chmodSync(join(dir, "sam"), 0o755);
  return { dir, log };
}

function runDeploy(args: string[], path: string): { code: number; out: string; err: string } {
  const child = spawnSync(process.execPath, [script, ...args], {
    cwd: projectRoot,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 30_000,
    env: { ...process.env, PATH: path },
  });
  return { code: child.status ?? -1, out: child.stdout, err: child.stderr };
}

describe("npm run deploy (as a command)", () => {
  it("--dry-run prints the exact sam command and runs nothing", () => {
    const { code, out } = runDeploy(["staging", "--dry-run"], "");
    expect(code).toBe(0);
    const command = [
      "sam deploy",
      `--config-file ${samconfigPath}`,
      "--config-env staging",
      `--template-file ${templatePath}`,
    ].join(" ");
    expect(out).toContain(`would run: ${command}\n`);
    expect(out).toContain("would run: npm run build");
    expect(out).toContain("stack petstore-staging in eu-west-1");
  });

  it("--dry-run for production says it would ask, and --yes skips SAM's change set prompt", () => {
    const asking = runDeploy(["production", "--dry-run"], "");
    expect(asking.code).toBe(0);
    expect(asking.out).toContain("would ask for confirmation");
    expect(asking.out).not.toContain("--no-confirm-changeset");
    const yes = runDeploy(["production", "--dry-run", "--yes"], "");
    expect(yes.out).not.toContain("would ask");
    expect(yes.out).toMatch(/--config-env production .*--no-confirm-changeset\n/);
  });

  it.each([["dev"], ["Staging"], ["prod"], [""]])("refuses the unknown stage %j", (stage) => {
    const { code, err } = runDeploy([stage, "--dry-run"], "");
    expect(code).toBe(2);
    expect(err).toMatch(/unknown stage|usage/);
  });

  it("refuses no stage, two stages and unknown options", () => {
    expect(runDeploy([], "").code).toBe(2);
    expect(runDeploy(["staging", "production"], "").code).toBe(2);
    expect(runDeploy(["staging", "--force"], "").code).toBe(2);
  });

  it("names the missing prerequisite when sam is not on PATH", () => {
    const { code, err } = runDeploy(["staging"], join(scratch, "empty-bin"));
    expect(code).toBe(1);
    expect(err).toContain("AWS SAM CLI");
    expect(err).toContain("install-sam-cli");
  });

  it.skipIf(process.platform === "win32")(
    "refuses production without a terminal unless --yes, before building or calling sam",
    () => {
      const { dir, log } = fakeSamDir();
      const { code, err } = runDeploy(["production"], dir);
      expect(code).toBe(2);
      expect(err).toContain("refusing to deploy production without confirmation");
      expect(existsSync(log)).toBe(false);
    },
  );
});

describe("deploy() (in-process, build and spawn replaced)", () => {
  function io(overrides: Partial<DeployIo> = {}): DeployIo & { log: string[]; runs: string[][] } {
    const log: string[] = [];
    const runs: string[][] = [];
    return {
      log,
      runs,
      build: () => {
        log.push("build");
        return Promise.resolve();
      },
      run: (command, args) => {
        log.push("run");
        runs.push([command, ...args]);
        return Promise.resolve(0);
      },
      which: (name) => (name === "sam" ? "/opt/sam/bin/sam" : undefined),
      confirm: () => Promise.resolve(false),
      interactive: false,
      out: (line) => log.push(`out: ${line}`),
      err: (line) => log.push(`err: ${line}`),
      ...overrides,
    };
  }

  it("staging: builds, then runs sam deploy, then says how to read BaseUrl", async () => {
    const fake = io();
    expect(await deploy(["staging"], fake)).toBe(0);
    expect(fake.log.filter((line) => line === "build" || line === "run")).toEqual(["build", "run"]);
    expect(fake.runs).toEqual([["/opt/sam/bin/sam", ...samDeployArgs("staging", { yes: false })]]);
    const said = fake.log.join("\n");
    expect(said).toContain(
      "sam list stack-outputs --stack-name petstore-staging --region eu-west-1",
    );
    expect(said).toContain("aws cloudformation describe-stacks --stack-name petstore-staging");
    expect(said).toContain("OutputKey=='BaseUrl'");
    expect(said).toContain("npm run smoke -- <BaseUrl> <apiKey>");
  });

  it("production on a terminal: asks, and deploys only on yes", async () => {
    const questions: string[] = [];
    const declined = io({
      interactive: true,
      confirm: (question) => {
        questions.push(question);
        return Promise.resolve(false);
      },
    });
    expect(await deploy(["production"], declined)).toBe(1);
    expect(declined.log).not.toContain("build");
    expect(declined.runs).toEqual([]);
    expect(questions[0]).toContain("petstore-production");

    const accepted = io({ interactive: true, confirm: () => Promise.resolve(true) });
    expect(await deploy(["production"], accepted)).toBe(0);
    // SAM's own change set review stays on (confirm_changeset = true in samconfig.toml).
    expect(accepted.runs[0]).not.toContain("--no-confirm-changeset");
  });

  it("production with --yes: no question, no change set prompt", async () => {
    let asked = false;
    const fake = io({
      confirm: () => {
        asked = true;
        return Promise.resolve(true);
      },
    });
    expect(await deploy(["production", "--yes"], fake)).toBe(0);
    expect(asked).toBe(false);
    expect(fake.runs[0]?.slice(-1)).toEqual(["--no-confirm-changeset"]);
  });

  it("staging never asks", async () => {
    let asked = false;
    const fake = io({
      confirm: () => {
        asked = true;
        return Promise.resolve(false);
      },
    });
    expect(await deploy(["staging"], fake)).toBe(0);
    expect(asked).toBe(false);
  });

  it("passes sam's failure on and prints no BaseUrl instructions", async () => {
    const fake = io({ run: () => Promise.resolve(3) });
    expect(await deploy(["staging"], fake)).toBe(3);
    expect(fake.log.join("\n")).not.toContain("list stack-outputs");
    expect(fake.log.join("\n")).toContain("sam deploy failed");
  });

  it("does not build or deploy when the build fails", async () => {
    const fake = io({ build: () => Promise.reject(new Error("esbuild failed")) });
    await expect(deploy(["staging"], fake)).rejects.toThrow("esbuild failed");
    expect(fake.runs).toEqual([]);
  });
});

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
    const { dir } = fakeSamDir();
    expect(which("sam", { PATH: `${join(scratch, "nowhere")}:${dir}` })).toBe(join(dir, "sam"));
    expect(which("sam", { PATH: join(scratch, "nowhere") })).toBeUndefined();
    writeFileSync(join(dir, "not-executable"), "");
    expect(which("not-executable", { PATH: dir })).toBeUndefined();
  });
});
