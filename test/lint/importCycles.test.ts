/**
 * `npm run cycles` (part of `npm run lint`): dpdm over the project's TypeScript fails on any import
 * cycle. Type-only imports count: a cycle of types still ties two modules into one, and the
 * project's rule is that imports point down. Shown here on a scratch project of its own.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "../../local/template.ts";
import { scratchDir } from "../support/scratchDir.ts";

const scratch = scratchDir("petstore-cycles-");

/** A scratch tree of `files` (path → source), checked by the project's own `cycles` script. */
function cyclesIn(name: string, files: Record<string, string>): { status: number; out: string } {
  const root = join(scratch, name);
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), source);
  }
  const run = spawnSync("npm", ["run", "--silent", "cycles", "--", "--cwd", root], {
    cwd: projectRoot,
    encoding: "utf8",
  });
  return { status: run.status ?? -1, out: run.stdout };
}

/** Each reported cycle's files, sorted (dpdm starts a cycle at any of its files). */
const cycles = (out: string): string[][] =>
  [...out.matchAll(/^\s*\d+\) (.+)$/gm)].map((line) => (line[1] ?? "").split(" -> ").sort());

describe("npm run cycles fails on an import cycle, type-only imports included", () => {
  it("names a cycle made by an `import type` with an explicit .ts extension", () => {
    const { status, out } = cyclesIn("typeCycle", {
      "lib/http/reply.ts": 'import type { Tag } from "../list/tag.ts";\nexport type Reply = Tag;\n',
      "lib/list/tag.ts": 'import { header } from "../http/header.ts";\nexport type Tag = string;\n',
      "lib/http/header.ts":
        'import type { Reply } from "./reply.ts";\nexport const header = (r: Reply) => r;\n',
    });
    expect(status).toBe(1);
    expect(cycles(out)).toEqual([["lib/http/header.ts", "lib/http/reply.ts", "lib/list/tag.ts"]]);
  });

  it("finds a cycle across the checked folders (scripts → local → scripts)", () => {
    const { status, out } = cyclesIn("folders", {
      "scripts/start.ts": 'import { serve } from "../local/server.ts";\nserve();\n',
      "local/server.ts": 'import "../scripts/start.ts";\nexport function serve(): void {}\n',
    });
    expect(status).toBe(1);
    expect(cycles(out)).toEqual([["local/server.ts", "scripts/start.ts"]]);
  });

  it("passes imports that point one way", () => {
    const { status, out } = cyclesIn("acyclic", {
      "lib/http/reply.ts": 'import type { Tag } from "../list/tag.ts";\nexport type Reply = Tag;\n',
      "lib/list/tag.ts": "export type Tag = string;\n",
      "functions/list/handler.ts": 'import type { Reply } from "../../lib/http/reply.ts";\n',
    });
    expect(cycles(out)).toEqual([]);
    expect(status).toBe(0);
  });
});
