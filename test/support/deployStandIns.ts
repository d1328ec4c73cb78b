/**
 * Stand-ins for what `npm run deploy` (scripts/deploy.ts) reaches: a PATH folder with `git`
 * (a clean or dirty tree at `sha`) and `sam` (records its arguments), for the command run as a
 * process; and a DeployIo whose build, spawns and smoke test only record, for deploy() run
 * in-process. Nothing reaches AWS.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect } from "vitest";
import { projectRoot } from "../../local/template.ts";
import type { DeployIo } from "../../scripts/deploy.ts";

const script = resolve(projectRoot, "scripts/deploy.ts");
export const sha = "0123456789abcdef0123456789abcdef01234567";
export const { version } = JSON.parse(
  readFileSync(resolve(projectRoot, "package.json"), "utf8"),
) as {
  version: string;
};
export const key = "petstore_deploy-test-key-0123456789abcdefghijklmnopq";

/** A PATH folder under `scratch`: a stand-in `git` (a tree at `sha`) and optionally `sam`. */
export function binDir(
  scratch: string,
  options: { sam?: boolean; dirty?: boolean } = {},
): { dir: string; log: string } {
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

/** What deploy() did: log lines in order, the commands run, the smoke tests (URL, write). */
export type FakeDeployIo = DeployIo & {
  log: string[];
  runs: string[][];
  smokes: [string, boolean][];
};

/** A DeployIo at a clean (or dirty) tree at `sha`, with `sam` found and answering. */
export function fakeDeployIo(overrides: Partial<DeployIo> = {}, dirty = false): FakeDeployIo {
  const log: string[] = [];
  const runs: string[][] = [];
  const smokes: [string, boolean][] = [];
  const outputs = JSON.stringify([{ OutputKey: "BaseUrl", OutputValue: "https://api.example/v1" }]);
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
/** The tags a deploy of the stage carries from a clean tree at `sha`. */
export const deployTags = (stage: string): string =>
  `project="petstore" stage="${stage}" commit="${sha}" version="${version}"`;
