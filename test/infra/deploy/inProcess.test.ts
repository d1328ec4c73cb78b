/**
 * deploy() in-process, with the build, the spawns and the smoke test replaced by recorders:
 * builds before it deploys, hands `sam deploy` the commit/version tags, asks before production
 * (and only on a terminal), smoke-tests the stage afterwards (read-only in production), says how
 * to roll back when that fails, and passes sam's or the build's failure on.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generateKey } from "../../../lib/keyFormat.ts";
import { BuildError } from "../../../scripts/build.ts";
import { deploy, samDeployArgs } from "../../../scripts/deploy.ts";
import { releaseSha256 } from "../../../scripts/lib/deploy/plan.ts";
import { stageConfig } from "../../../scripts/stages.ts";
import { scratchDir } from "../../support/scratchDir.ts";
import {
  deployTags,
  fakeDeployIo,
  key,
  operatorAccounts,
  previousRelease,
  sha,
  version,
} from "../../support/deployStandIns.ts";

const scratch = scratchDir("petstore-deploy-");

const asProduction = (overrides: Parameters<typeof fakeDeployIo>[0] = {}, dirty = false) =>
  fakeDeployIo(overrides, dirty, operatorAccounts.production);

describe("deploy() (in-process, build, spawns and smoke test replaced)", () => {
  it("staging: builds, deploys with the tags, then smoke-tests BaseUrl with one write", async () => {
    const fake = fakeDeployIo();
    expect(await deploy(["staging"], fake)).toBe(0);
    expect(fake.log.filter((line) => ["build", "run", "smoke"].includes(line))).toEqual([
      "build",
      "run",
      "smoke",
    ]);
    expect(fake.runs).toEqual([
      [
        "/opt/sam/bin/sam",
        ...samDeployArgs("staging", {
          yes: false,
          tags: deployTags("staging"),
          samconfig: fake.samconfig,
          // The release's hash of the bundles as built (here the stand-in's) and the settings.
          release: releaseSha256(
            stageConfig("staging", fake.samconfig).parameters,
            fake.bundleHashes(),
          ),
        }),
      ],
    ]);
    expect(fake.smokes).toEqual([["https://api.example/v1", true]]);
    expect(fake.log.join("\n")).not.toContain(key);
  });

  it("production: the smoke test is read-only", async () => {
    const fake = asProduction();
    expect(await deploy(["production", "--yes"], fake)).toBe(0);
    expect(fake.smokes).toEqual([["https://api.example/v1", false]]);
  });

  it("a failed smoke test fails the deploy and says how to roll back", async () => {
    const fake = asProduction({ smoke: () => Promise.resolve("failed" as const) });
    expect(await deploy(["production", "--yes"], fake)).toBe(1);
    const said = fake.log.join("\n");
    expect(said).toContain("smoke test failed");
    expect(said).toContain(
      "aws lambda update-alias --region eu-west-1 --function-name petstore-production-listCategories --name live",
    );
    // Back to exactly what ran before: rollback.test.ts.
    expect(said).toContain(
      "git checkout fedcba9876543210fedcba9876543210fedcba98 && npm ci && npm run deploy -- production",
    );
  });

  it("nothing answering after the deploy is said as such, with no rollback advice", async () => {
    const fake = asProduction({
      smoke: () => Promise.resolve({ unreachable: "connection refused" }),
    });
    expect(await deploy(["production", "--yes"], fake)).toBe(1);
    const said = fake.log.join("\n");
    expect(said).toMatch(/nothing answers at https:\/\/api\.example\/v1 \(connection refused\)/);
    expect(said).not.toContain("update-alias");
  });

  it("--no-build deploys the dist/ that is there; --no-smoke skips the smoke test", async () => {
    const fake = fakeDeployIo();
    expect(await deploy(["staging", "--no-build", "--no-smoke"], fake)).toBe(0);
    expect(fake.log).not.toContain("build");
    expect(fake.log).not.toContain("smoke");
    expect(fake.runs).toHaveLength(1);
  });

  it("tags a staging deploy from a dirty tree as such; production refuses one", async () => {
    const staging = fakeDeployIo({}, true);
    expect(await deploy(["staging"], staging)).toBe(0);
    expect(staging.runs[0]).toContain(deployTags("staging").replace(sha, `${sha}-dirty`));
    expect(staging.log.join("\n")).toContain(`(commit ${sha}-dirty, version `);
    const production = asProduction({}, true);
    expect(await deploy(["production", "--yes"], production)).toBe(2);
    expect(production.runs).toEqual([]);
  });

  it("production on a terminal: asks, and deploys only on yes", async () => {
    const questions: string[] = [];
    const declined = asProduction({
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

    const accepted = asProduction({ interactive: true, confirm: () => Promise.resolve(true) });
    expect(await deploy(["production"], accepted)).toBe(0);
    // SAM's own change set review stays on (confirm_changeset = true in samconfig.toml).
    expect(accepted.runs[0]).not.toContain("--no-confirm-changeset");
  });

  it("production without a terminal: refused unless --yes, before building or calling sam", async () => {
    const fake = asProduction();
    expect(await deploy(["production", "--no-smoke"], fake)).toBe(2);
    expect(fake.log.join("\n")).toContain("refusing to deploy production without confirmation");
    expect(fake.log).not.toContain("build");
    expect(fake.runs).toEqual([]);
  });

  it("production with --yes: no question, no change set prompt; staging never asks", async () => {
    let asked = false;
    const confirm = (): Promise<boolean> => {
      asked = true;
      return Promise.resolve(true);
    };
    const fake = asProduction({ confirm });
    expect(await deploy(["production", "--yes"], fake)).toBe(0);
    expect(fake.runs[0]?.slice(-1)).toEqual(["--no-confirm-changeset"]);
    expect(await deploy(["staging"], fakeDeployIo({ confirm }))).toBe(0);
    expect(asked).toBe(false);
  });

  it("passes sam's failure on, and runs no smoke test", async () => {
    const fake = fakeDeployIo({ run: () => Promise.resolve(3) });
    expect(await deploy(["staging"], fake)).toBe(3);
    expect(fake.log).not.toContain("smoke");
    expect(fake.log.join("\n")).toContain("sam deploy failed");
    // A hot fix during an incident: the alarms still firing roll it back (docs/operating.md).
    expect(fake.log.join("\n")).toContain(
      `an alarm already firing stops any deploy: docs/operating.md "Rolling back"`,
    );
  });

  it("does not deploy when the build fails, and says so in one line", async () => {
    const failure = new BuildError("dist/createCategory did not build (esbuild's errors above)");
    const fake = fakeDeployIo({ build: () => Promise.reject(failure) });
    expect(await deploy(["staging"], fake)).toBe(1);
    expect(fake.runs).toEqual([]);
    expect(fake.log.filter((line) => line.startsWith("err: "))).toEqual([
      `err: deploy: ${failure.message}; nothing was deployed`,
    ]);
  });

  it("--no-build refuses a dist/ missing or older than the code, before calling sam", async () => {
    const fake = fakeDeployIo({ staleBundles: () => ["createCategory"] });
    expect(await deploy(["staging", "--no-build", "--no-smoke"], fake)).toBe(2);
    expect(fake.runs).toEqual([]);
    expect(fake.log.join("\n")).toMatch(
      /--no-build, but dist\/ is missing or older than the code for createCategory/,
    );
    // Built in the same run, the bundles are fresh: no refusal.
    expect(await deploy(["staging", "--no-smoke"], fake)).toBe(0);
  });

  it("a smoke key the stage would refuse unread is refused before anything runs, unshown", async () => {
    const production = generateKey("prod");
    const fake = fakeDeployIo({ env: { PETSTORE_API_KEY: production } });
    expect(await deploy(["staging"], fake)).toBe(2);
    expect(fake.runs).toEqual([]);
    expect(fake.log.join("\n")).toMatch(/PETSTORE_API_KEY is not a key of staging/);
    expect(fake.log.join("\n")).not.toContain(production.slice(14));
    // A key of the stage's format passes (one of no format, issued before it: the other tests).
    const staging = fakeDeployIo({ env: { PETSTORE_API_KEY: generateKey("staging") } });
    expect(await deploy(["staging", "--dry-run"], staging)).toBe(0);
    expect(staging.log.join("\n")).not.toMatch(/not a key of/);
  });

  it("a samconfig.toml it cannot read is one line naming the file, exit 2", async () => {
    const broken = join(scratch, "samconfig.toml");
    writeFileSync(broken, 'version = 0.1\n[staging.deploy.parameters\nstack_name = "x"\n');
    const fake = fakeDeployIo({ samconfig: broken });
    expect(await deploy(["staging"], fake)).toBe(2);
    const said = fake.log.filter((line) => line.startsWith("err: "));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^err: deploy: .*samconfig\.toml: /);
    expect(fake.runs).toEqual([]);
  });
});

describe("a deploy is reported done only once the stack runs the release", () => {
  // sam deploy exits 0 when the operator answers N to "Deploy this changeset?", the stack as it
  // was: a `run` that exits 0 and changes nothing.
  const declined = { run: () => Promise.resolve(0) };
  const errors = (log: readonly string[]) => log.filter((line) => line.startsWith("err: "));

  it("a declined change set: not deployed, no smoke test, no rollback advice, exit 1", async () => {
    const fake = asProduction({
      ...declined,
      interactive: true,
      confirm: () => Promise.resolve(true),
    });
    expect(await deploy(["production"], fake)).toBe(1);
    expect(errors(fake.log)).toEqual([
      `err: not deployed: the change set was not executed (petstore-production still runs commit ${previousRelease.commit}).`,
    ]);
    expect(fake.log.join("\n")).not.toMatch(/Deployed|update-alias/);
    expect(fake.log).not.toContain("smoke");
  });

  it("a declined first create: not deployed", async () => {
    const fake = fakeDeployIo(declined, false, operatorAccounts.production, "no stack");
    expect(await deploy(["production", "--yes"], fake)).toBe(1);
    expect(errors(fake.log)).toEqual([
      "err: not deployed: the change set was not executed (no stack petstore-production yet).",
    ]);
  });

  it("the same commit tag is not enough: the stack must run this build (a dirty tree's)", async () => {
    const live = { ...previousRelease, commit: `${sha}-dirty` };
    const fake = fakeDeployIo(declined, true, operatorAccounts.staging, live);
    expect(await deploy(["staging"], fake)).toBe(1);
    expect(errors(fake.log)).toEqual([
      `err: not deployed: the change set was not executed (petstore-staging still runs another build of commit ${sha}-dirty).`,
    ]);
    expect(fake.log.join("\n")).not.toContain("Deployed");
  });

  it("says Deployed, with the stack's commit, once the stack runs it", async () => {
    const fake = fakeDeployIo({}, true);
    expect(await deploy(["staging", "--no-smoke"], fake)).toBe(0);
    expect(fake.log).toContain(
      `out: Deployed stack petstore-staging in eu-west-1 (commit ${sha}-dirty, version ${version}).`,
    );
  });

  it("a stack it cannot read after sam: one line saying how to check, no smoke test, exit 1", async () => {
    let ran = false;
    const { capture } = fakeDeployIo();
    const fake = fakeDeployIo({
      run: () => {
        ran = true;
        return Promise.resolve(0);
      },
      capture: (command, args) =>
        ran && args[1] === "describe-stacks"
          ? Promise.resolve({
              code: 255,
              stdout: "",
              stderr: "\nCould not connect to the endpoint URL\n",
            })
          : capture(command, args),
    });
    expect(await deploy(["staging"], fake)).toBe(1);
    expect(errors(fake.log)).toEqual([
      expect.stringMatching(
        /^err: sam deploy finished, but what petstore-staging runs now could not be read \(Could not connect to the endpoint URL\): check its commit tag \(aws cloudformation describe-stacks .*\) before taking it as deployed, then npm run smoke -- --stage staging$/,
      ),
    ]);
    expect(fake.log).not.toContain("smoke");
    expect(fake.log.join("\n")).not.toContain("Deployed");
  });
});
