/**
 * `npm run deploy`: refuses unknown stages, a dirty tree for production and a missing smoke key;
 * asks before production; names the SAM CLI when it is missing; builds before it deploys; hands
 * `sam deploy` absolute paths and the commit/version tags; smoke-tests the stage afterwards
 * (read-only in production) and says how to roll back when that fails. Nothing here reaches
 * AWS: the command runs with --dry-run, with stand-in `git` and `sam` executables that only
 * answer or record, or in-process with the build, the spawns and the smoke test replaced.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { projectRoot, templatePath } from "../../local/template.ts";
import type { DeployIo } from "../../scripts/deploy.ts";
import { deploy, samDeployArgs } from "../../scripts/deploy.ts";
import { shellQuote, which } from "../../scripts/process.ts";
import { samconfigPath } from "../../scripts/stages.ts";

const script = resolve(projectRoot, "scripts/deploy.ts");
const scratch = mkdtempSync(join(tmpdir(), "petstore-deploy-"));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});
const sha = "0123456789abcdef0123456789abcdef01234567";
const { version } = JSON.parse(readFileSync(resolve(projectRoot, "package.json"), "utf8")) as {
  version: string;
};
const key = "petstore_deploy-test-key-0123456789abcdefghijklmnopq";

/** A PATH directory with a stand-in `git` (a clean tree at `sha`) and optionally `sam`. */
function binDir(options: { sam?: boolean; dirty?: boolean } = {}): { dir: string; log: string } {
  const dir = mkdtempSync(join(scratch, "bin-"));
  const log = join(dir, "sam-args.txt");
  const status = options.dirty ? "printf ' M lib/x.ts\\n'" : "true";
  const git = `#!/bin/sh\ncase "$1" in rev-parse) echo ${sha};; status) ${status};; esac\n`;
  writeFileSync(join(dir, "git"), git);
  chmodSync(join(dir, "git"), 0o755);
  if (options.sam) {
    writeFileSync(join(dir, "sam"), `#!/bin/sh\nprintf '%s\\n' "$@" > '${log}'\nexit 0\n`);
    chmodSync(join(dir, "sam"), 0o755);
  }
  return { dir, log };
}

function runDeploy(args: string[], path: string): { code: number; out: string; err: string } {
  const child = spawnSync(process.execPath, [script, ...args], {
    cwd: projectRoot,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 30_000,
    env: { ...process.env, PATH: path, PETSTORE_API_KEY: "" },
  });
  return { code: child.status ?? -1, out: child.stdout, err: child.stderr };
}

describe.skipIf(process.platform === "win32")("npm run deploy (as a command)", () => {
  it("--dry-run prints the exact sam command, with the commit and version tags", () => {
    const { code, out } = runDeploy(["staging", "--dry-run", "--no-smoke"], binDir().dir);
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
    const bin = binDir().dir;
    const asking = runDeploy(["production", "--dry-run", "--no-smoke"], bin);
    expect(asking.code).toBe(0);
    expect(asking.out).toContain("would ask for confirmation");
    expect(asking.out).not.toContain("--no-confirm-changeset");
    const yes = runDeploy(["production", "--dry-run", "--yes", "--no-smoke"], bin);
    expect(yes.out).not.toContain("would ask");
    expect(yes.out).toMatch(/--config-env production .*--no-confirm-changeset\n/);
  });

  it.each([["dev"], ["Staging"], ["prod"], [""]])("refuses the unknown stage %j", (stage) => {
    const { code, err } = runDeploy([stage, "--dry-run"], binDir().dir);
    expect(code).toBe(2);
    expect(err).toMatch(/unknown stage|usage/);
  });

  it("refuses no stage, two stages and unknown options", () => {
    const bin = binDir().dir;
    expect(runDeploy([], bin).code).toBe(2);
    expect(runDeploy(["staging", "production"], bin).code).toBe(2);
    expect(runDeploy(["staging", "--force"], bin).code).toBe(2);
  });

  it("refuses production from a dirty work tree, before anything runs", () => {
    const { dir, log } = binDir({ sam: true, dirty: true });
    const { code, err } = runDeploy(["production", "--yes", "--no-smoke"], dir);
    expect(code).toBe(2);
    expect(err).toContain("uncommitted changes");
    expect(existsSync(log)).toBe(false);
  });

  it("refuses to deploy without the smoke test's key, unless --no-smoke", () => {
    const { dir, log } = binDir({ sam: true });
    const { code, err } = runDeploy(["staging"], dir);
    expect(code).toBe(2);
    expect(err).toContain("PETSTORE_API_KEY");
    expect(err).toContain("--no-smoke");
    expect(existsSync(log)).toBe(false);
  });

  it("names the missing prerequisite when sam is not on PATH", () => {
    const { code, err } = runDeploy(["staging", "--no-smoke"], binDir().dir);
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
    const { dir, log } = binDir({ sam: true });
    const { code, err } = runDeploy(["production", "--no-smoke"], dir);
    expect(code).toBe(2);
    expect(err).toContain("refusing to deploy production without confirmation");
    expect(existsSync(log)).toBe(false);
  });
});

describe("deploy() (in-process, build, spawns and smoke test replaced)", () => {
  type Fake = DeployIo & { log: string[]; runs: string[][]; smokes: [string, boolean][] };
  function io(overrides: Partial<DeployIo> = {}, dirty = false): Fake {
    const log: string[] = [];
    const runs: string[][] = [];
    const smokes: [string, boolean][] = [];
    const outputs = JSON.stringify([
      { OutputKey: "BaseUrl", OutputValue: "https://api.example/v1" },
    ]);
    return {
      log,
      runs,
      smokes,
      build: () => {
        log.push("build");
        return Promise.resolve();
      },
      run: (command, args) => {
        log.push("run");
        runs.push([command, ...args]);
        return Promise.resolve(0);
      },
      capture: (command, args) => {
        const answer = (stdout: string) => Promise.resolve({ code: 0, stdout, stderr: "" });
        if (command === "git")
          return answer(args[0] === "rev-parse" ? `${sha}\n` : dirty ? " M x\n" : "");
        if (command === "sam" && args[0] === "list") return answer(outputs);
        return Promise.resolve({ code: 127, stdout: "", stderr: "" });
      },
      smoke: (baseUrl, apiKey, write) => {
        log.push("smoke");
        expect(apiKey).toBe(key);
        smokes.push([baseUrl, write]);
        return Promise.resolve(true);
      },
      env: { PETSTORE_API_KEY: key },
      which: (name) => (name === "sam" ? "/opt/sam/bin/sam" : undefined),
      confirm: () => Promise.resolve(false),
      interactive: false,
      out: (line) => log.push(`out: ${line}`),
      err: (line) => log.push(`err: ${line}`),
      ...overrides,
    };
  }
  const tags = (stage: string): string =>
    `project="petstore" stage="${stage}" commit="${sha}" version="${version}"`;

  it("staging: builds, deploys with the tags, then smoke-tests BaseUrl with one write", async () => {
    const fake = io();
    expect(await deploy(["staging"], fake)).toBe(0);
    expect(fake.log.filter((line) => ["build", "run", "smoke"].includes(line))).toEqual([
      "build",
      "run",
      "smoke",
    ]);
    expect(fake.runs).toEqual([
      ["/opt/sam/bin/sam", ...samDeployArgs("staging", { yes: false, tags: tags("staging") })],
    ]);
    expect(fake.smokes).toEqual([["https://api.example/v1", true]]);
    expect(fake.log.join("\n")).not.toContain(key);
  });

  it("production: the smoke test is read-only", async () => {
    const fake = io();
    expect(await deploy(["production", "--yes"], fake)).toBe(0);
    expect(fake.smokes).toEqual([["https://api.example/v1", false]]);
  });

  it("a failed smoke test fails the deploy and says how to roll back", async () => {
    const fake = io({ smoke: () => Promise.resolve(false) });
    expect(await deploy(["production", "--yes"], fake)).toBe(1);
    const said = fake.log.join("\n");
    expect(said).toContain("smoke test failed");
    expect(said).toContain(
      "aws lambda update-alias --region eu-west-1 --function-name petstore-production-listCategories --name live",
    );
    expect(said).toContain(
      "git checkout <previous tag or commit> && npm ci && npm run deploy -- production",
    );
  });

  it("--no-build deploys the dist/ that is there; --no-smoke skips the smoke test", async () => {
    const fake = io();
    expect(await deploy(["staging", "--no-build", "--no-smoke"], fake)).toBe(0);
    expect(fake.log).not.toContain("build");
    expect(fake.log).not.toContain("smoke");
    expect(fake.runs).toHaveLength(1);
  });

  it("tags a staging deploy from a dirty tree as such; production refuses one", async () => {
    const staging = io({}, true);
    expect(await deploy(["staging"], staging)).toBe(0);
    expect(staging.runs[0]).toContain(tags("staging").replace(sha, `${sha}-dirty`));
    const production = io({}, true);
    expect(await deploy(["production", "--yes"], production)).toBe(2);
    expect(production.runs).toEqual([]);
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

  it("production with --yes: no question, no change set prompt; staging never asks", async () => {
    let asked = false;
    const confirm = (): Promise<boolean> => {
      asked = true;
      return Promise.resolve(true);
    };
    const fake = io({ confirm });
    expect(await deploy(["production", "--yes"], fake)).toBe(0);
    expect(fake.runs[0]?.slice(-1)).toEqual(["--no-confirm-changeset"]);
    expect(await deploy(["staging"], io({ confirm }))).toBe(0);
    expect(asked).toBe(false);
  });

  it("passes sam's failure on, and runs no smoke test", async () => {
    const fake = io({ run: () => Promise.resolve(3) });
    expect(await deploy(["staging"], fake)).toBe(3);
    expect(fake.log).not.toContain("smoke");
    expect(fake.log.join("\n")).toContain("sam deploy failed");
  });

  it("does not deploy when the build fails", async () => {
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
    const { dir } = binDir({ sam: true });
    expect(which("sam", { PATH: `${join(scratch, "nowhere")}:${dir}` })).toBe(join(dir, "sam"));
    expect(which("sam", { PATH: join(scratch, "nowhere") })).toBeUndefined();
    writeFileSync(join(dir, "not-executable"), "");
    expect(which("not-executable", { PATH: dir })).toBeUndefined();
  });
});
