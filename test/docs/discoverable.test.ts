/**
 * What a newcomer finds without looking for it: the README's opening names the API reference at
 * /docs and the typed client, and how to pass options to vitest; the client's README says how to
 * run it on the project's own Node 24 (a system Node 20 refuses its `.ts` imports).
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "../../local/template.ts";

const read = (path: string): string => readFileSync(resolve(projectRoot, path), "utf8");

describe("the README's opening section", () => {
  const opening = read("README.md").split("\n## ", 1)[0] ?? "";

  it("names the API reference at /docs, npm run docs and the typed client", () => {
    expect(opening).toContain("http://127.0.0.1:3000/docs");
    expect(opening).toContain("`npm run docs`");
    expect(opening).toContain("[clients/typescript](clients/typescript/README.md)");
  });

  it("says how to pass vitest options to npm test", () => {
    expect(opening).toMatch(/`npm test -- test\/http --reporter=verbose`/);
  });
});

describe("the client's README", () => {
  it("says to run it with the project's Node 24 (npx node), and why", () => {
    const client = read("clients/typescript/README.md");
    expect(client).toContain("npx node scratch/try.ts");
    expect(client).toContain("Node 24");
    expect(client).toContain("ERR_UNKNOWN_FILE_EXTENSION");
  });

  it("has the reader's script in a folder git, lint, format and the type-check ignore", () => {
    const client = read("clients/typescript/README.md");
    expect(client).toContain('from "../clients/typescript/index.ts"');
    // A file there neither dirties the tree (the deploy's tag) nor is linted or type-checked.
    const ignored = spawnSync("git", ["check-ignore", "--no-index", "scratch/try.ts"], {
      cwd: projectRoot,
    });
    expect(ignored.status).toBe(0);
    expect(read(".prettierignore").split("\n")).toContain("scratch");
    expect(read("eslint.config.js")).toContain('"scratch/"');
    const include = (JSON.parse(read("tsconfig.json")) as { include: string[] }).include;
    // Folders by name and the root's own *.ts: none reaches scratch/.
    expect(include.filter((entry) => entry.startsWith("scratch") || entry.includes("**"))).toEqual(
      [],
    );
  });
});
