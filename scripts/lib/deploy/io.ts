/**
 * What `npm run deploy` needs from the world (builds, processes, the smoke test, the terminal),
 * as one interface: the tests hand it a recording stand-in, the command the terminal's own.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { functionsOf, projectRoot, servedFunctions } from "../../../local/template.ts";
import { buildFunctions, bundleIsStale } from "../../build.ts";
import type { Capture } from "../../process.ts";
import { capture, runAttached, which } from "../../process.ts";
import { samconfigPath } from "../../stages.ts";
import type { KeyAnswers } from "./key.ts";
import { askKey } from "./key.ts";
import { printCheck, runChecks } from "../smoke/checks.ts";
import { unreachable } from "../smoke/reach.ts";

export type SmokeOutcome = "passed" | "failed" | { readonly unreachable: string };

export interface DeployIo {
  /** The stages' settings (infra/samconfig.toml), handed to `sam deploy` as they are. */
  readonly samconfig: string;
  /** The release workflow (.github/workflows/deploy.yml), whose roles the pre-flight checks. */
  readonly workflow: string;
  /** Builds dist/ (scripts/build.ts). */
  readonly build: () => Promise<unknown>;
  /** Per function behind a route, the SHA-256 of its dist/ folder as built (what SAM zips). */
  readonly bundleHashes: () => Record<string, string>;
  /** The functions whose dist/ bundle is missing or older than the code it is built from. */
  readonly staleBundles: () => string[];
  /** Runs a command with the terminal attached; resolves to its exit code. */
  readonly run: (command: string, args: readonly string[]) => Promise<number>;
  /** Runs a command with its output captured (git, `sam list stack-outputs`). */
  readonly capture: Capture;
  /** Runs the smoke test's checks, reporting each; or says why nothing answered at all. */
  readonly smoke: (baseUrl: string, apiKey: string, write: boolean) => Promise<SmokeOutcome>;
  /** How the stage answers the smoke test's key (key.ts): requests that write nothing. */
  readonly keyAnswers: (baseUrl: string, apiKey: string, writes: boolean) => Promise<KeyAnswers>;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The absolute path of an executable on PATH, or undefined. */
  readonly which: (name: string) => string | undefined;
  /** Asks a yes/no question on the terminal. */
  readonly confirm: (question: string) => Promise<boolean>;
  readonly interactive: boolean;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

export const terminalIo: DeployIo = {
  samconfig: samconfigPath,
  workflow: resolve(projectRoot, ".github/workflows/deploy.yml"),
  build: buildFunctions,
  bundleHashes,
  staleBundles: () =>
    functionsOf()
      .filter(bundleIsStale)
      .map((spec) => spec.name),
  run: runAttached,
  capture,
  smoke: async (baseUrl, apiKey, write) => {
    // Only an address nothing listens at, or a name that does not resolve: a slow answer may be
    // the new release's own (a hanging init), which the checks then fail as such.
    const down = await unreachable(baseUrl, 10_000);
    if (down === "connection refused" || down === "no such host") return { unreachable: down };
    const results = await runChecks(baseUrl, apiKey, { write, report: printCheck });
    return results.every((result) => result.ok) ? "passed" : "failed";
  },
  keyAnswers: askKey,
  env: process.env,
  which: (name) => which(name),
  confirm: async (question) => {
    const readline = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return /^y(es)?$/i.test((await readline.question(question)).trim());
    } finally {
      readline.close();
    }
  },
  interactive: process.stdin.isTTY,
  out: (line) => {
    process.stdout.write(`${line}\n`);
  },
  err: (line) => {
    process.stderr.write(`${line}\n`);
  },
};

/** terminalIo.bundleHashes: each served function's dist/ folder, file names and contents. */
function bundleHashes(): Record<string, string> {
  return Object.fromEntries(
    servedFunctions().map(({ name, codeDir }) => {
      const hash = createHash("sha256");
      for (const file of readdirSync(codeDir, { recursive: true, encoding: "utf8" }).sort()) {
        const path = join(codeDir, file);
        if (statSync(path).isFile()) hash.update(`${file}\0`).update(readFileSync(path));
      }
      return [name, hash.digest("hex")];
    }),
  );
}
