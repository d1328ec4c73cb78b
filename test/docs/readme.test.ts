/**
 * The README as a newcomer meets it: short enough to read in five minutes, two commands first,
 * links that lead somewhere inside the repository, and every command it lists answering as it
 * says: `--help` prints the usage (exit 0) and an unknown option is refused in one line naming
 * the command (exit 2), run through npm exactly as the README writes them. The commands that
 * hand their options to the tool they run are the ones the README names as such.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { generateKey } from "../../lib/keyFormat.ts";
import { projectRoot } from "../../local/template.ts";
import type { Finished } from "../support/command.ts";
import { runCommand } from "../support/command.ts";

const readme = readFileSync(resolve(projectRoot, "README.md"), "utf8");
const lines = readme.split("\n");
const scripts = Object.keys(
  (
    JSON.parse(readFileSync(resolve(projectRoot, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    }
  ).scripts,
);

/** The "## Commands" section: its list items, each starting with the command in backticks. */
const commandsSection = readme.split("\n## Commands\n")[1]?.split("\n## ")[0] ?? "";
const listed = [...commandsSection.matchAll(/`(npm (?:start|test|run [\w:-]+))\b/g)].map(
  (match) => match[1] ?? "",
);
/** `npm run x` → `x`; `npm start`, `npm test` → `start`, `test`. */
const scriptOf = (command: string): string => command.replace(/^npm (run )?/, "");
/** The commands the README says pass their options to the tool they run. */
const toolsOwn = ["npm test", "npm run test:dynamodb-local", "npm run typecheck", "npm run cycles"];

/** `npm --silent <args>`, as a reader types it. */
const npm = (args: string[]): Promise<Finished> =>
  runCommand("npm", ["--silent", ...args], { env: { ...process.env, PETSTORE_API_KEY: "" } });

const runArgs = (command: string, option: string): string[] => {
  const script = scriptOf(command);
  return ["start", "test"].includes(script)
    ? [script, "--", option]
    : ["run", script, "--", option];
};

describe("the README reads in five minutes", () => {
  it("has at most 250 lines, none over 120 characters", () => {
    expect(lines.length).toBeLessThanOrEqual(250);
    expect(lines.filter((line) => line.length > 120)).toEqual([]);
  });

  it("opens with the two commands a newcomer runs: start the service, run the tests", () => {
    const first = /^# .*\n\n```sh\n([^]*?)```/.exec(readme)?.[1] ?? "";
    const commands = first
      .trim()
      .split("\n")
      .map((line) => line.replace(/\s+#.*$/, ""));
    expect(commands).toEqual(["npm ci && npm start", "npm test"]);
    // How long the tests take, and a quicker part to run first, said where the command is.
    expect(first).toMatch(/about \d+ minutes on 2 cores/);
    expect(first).toContain("npx vitest run test/lib");
  });

  it("names what the skippable suites need, and what skipping means", () => {
    expect(readme).toContain("Java 17");
    expect(readme).toContain("Chromium");
    expect(readme).toMatch(/skipped, not passed/);
  });

  it("links only to files of the repository that exist, never outside it", () => {
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] ?? "");
    const local = targets.filter((target) => !/^https?:/.test(target));
    expect(local.length).toBeGreaterThan(5);
    for (const target of local) {
      const path = resolve(projectRoot, target.split("#")[0] ?? "");
      expect(path.startsWith(`${projectRoot}/`), target).toBe(true);
      expect(existsSync(path), target).toBe(true);
    }
  });

  it("no page of docs/ links outside the repository", () => {
    for (const page of readdirSync(resolve(projectRoot, "docs"))) {
      const path = resolve(projectRoot, "docs", page);
      const text = readFileSync(path, "utf8");
      for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1] ?? "";
        if (/^https?:|^#/.test(target)) continue;
        const file = resolve(dirname(path), target.split("#")[0] ?? "");
        expect(file.startsWith(`${projectRoot}/`), `${page}: ${target}`).toBe(true);
        expect(existsSync(file), `${page}: ${target}`).toBe(true);
      }
    }
  });
});

describe("the README and docs/ state each fact once, and right", () => {
  const pages = [
    ["README.md", readme],
    ...readdirSync(resolve(projectRoot, "docs")).map((page) => [
      `docs/${page}`,
      readFileSync(resolve(projectRoot, "docs", page), "utf8"),
    ]),
  ] as const;

  it("gives the key format as lib/keyFormat.ts makes it: 43 base62 characters and a checksum", () => {
    const key = generateKey("prod");
    expect(key).toMatch(/^petstore_prod_[0-9A-Za-z]{43}_[0-9A-Za-z]{6}$/);
    for (const [page, text] of pages) {
      for (const [said] of text.matchAll(/43 base\w+/g)) expect(said, page).toBe("43 base62");
    }
  });

  it("keeps every shell command of a code block on lines of its own (none collapsed into one)", () => {
    for (const [page, text] of pages) {
      for (const [, block = ""] of text.matchAll(/```sh\n([^]*?)```/g)) {
        for (const line of block.split("\n")) {
          // A continuation ("\\") that lost its line break leaves a gap before the next option.
          expect(/\S {5,}--?[a-z]/.test(line.replace(/ +#.*$/, "")), `${page}: ${line}`).toBe(
            false,
          );
        }
      }
    }
  });
});

describe("the README's commands are every npm script, and each answers as the README says", () => {
  it("lists every script of package.json", () => {
    expect(new Set(listed.map(scriptOf))).toEqual(new Set(scripts));
  });

  it("names the commands whose options are their tool's own", () => {
    const section = commandsSection.replace(/\s+/g, " ");
    for (const command of toolsOwn) expect(section).toContain(`\`${command}\``);
    expect(section).toMatch(/pass their options to the tool/);
  });

  const own = [...new Set(listed)].filter((command) => !toolsOwn.includes(command));

  it.each(own)("%s -- --help: the usage, exit 0", async (command) => {
    const { code, out, err } = await npm(runArgs(command, "--help"));
    expect(code, err).toBe(0);
    expect(out).toMatch(new RegExp(`^usage: ${command.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`));
  });

  it.each(own)("%s -- --bogus: one line naming it, exit 2, nothing run", async (command) => {
    const results = resolve(projectRoot, "bench/results.json");
    const before = statSync(results).mtimeMs;
    const { code, out, err } = await npm(runArgs(command, "--bogus"));
    expect(statSync(results).mtimeMs).toBe(before);
    expect(code).toBe(2);
    expect(out).toBe("");
    // A script names itself as npm runs it: "build", and "npm start" for the start script.
    const name = command === "npm start" ? command : scriptOf(command);
    expect(err).toBe(`${name}: unknown option --bogus (${command} -- --help)\n`);
  });

  it.each(toolsOwn)(
    "%s: --help is its tool's help, an unknown option its tool's refusal",
    async (command) => {
      const help = await npm(runArgs(command, "--help"));
      expect(help.code, help.err).toBe(0);
      expect(help.out.length).toBeGreaterThan(0);
      const bogus = await npm(runArgs(command, "--bogus"));
      expect(bogus.code).not.toBe(0);
      expect(`${bogus.out}${bogus.err}`).toMatch(/bogus/);
    },
  );
});
