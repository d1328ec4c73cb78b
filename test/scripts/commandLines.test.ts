/**
 * The bench's own command-line rules, as package.json runs it. That every command answers
 * `--help` and refuses an unknown flag in one line is test/docs/readme.test.ts's, over the
 * commands the README lists.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "../../local/template.ts";
import type { Finished } from "../support/command.ts";
import { runCommand } from "../support/command.ts";

const scripts = (
  JSON.parse(readFileSync(resolve(projectRoot, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  }
).scripts;

/** `npm run <name> -- <args>` without npm: the script's node command, as package.json has it. */
function run(name: string, args: string[]): Promise<Finished> {
  const command = scripts[name] ?? "";
  const [node, ...rest] = command.split(" ");
  expect(node, command).toBe("node");
  return runCommand(process.execPath, [...rest, ...args], {
    env: { ...process.env, PETSTORE_API_KEY: "" },
  });
}

describe("the bench records its figures only when asked", () => {
  it("refuses --record on a quick run, in one line", async () => {
    const { code, err } = await run("bench", ["--quick", "--record"]);
    expect(code).toBe(2);
    expect(err).toBe(
      "bench: --record keeps a full run's figures only: drop --quick or --record (npm run bench -- --help)\n",
    );
  });

  it("refuses --record on a one-size run, and a size the full run does not measure", async () => {
    const recorded = await run("bench", ["--size", "1024", "--record"]);
    expect(recorded.code).toBe(2);
    expect(recorded.err).toBe(
      "bench: --record keeps a full run's figures only: drop --size or --record (npm run bench -- --help)\n",
    );
    const odd = await run("bench", ["--size", "100"]);
    expect(odd.code).toBe(2);
    expect(odd.err).toBe(
      'bench: --size is one of 128, 256, 512, 1024, 1769, not "100" (npm run bench -- --help)\n',
    );
  });
});
