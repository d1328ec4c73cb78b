/**
 * `npm run dev` serves a change to the code without a restart: same port, same store, same key.
 * It runs in a copy of the project (functions, lib, local, scripts, infra, openapi.yaml;
 * node_modules linked), so editing a source file never touches the bundles other tests run.
 */
import { cpSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { functionsOf, projectRoot } from "../../local/template.ts";
import { createCategory, listCategories } from "../support/client.ts";
import { scratchDir } from "../support/scratchDir.ts";
import { serverScripts, until as within } from "./processes.ts";

const scratch = scratchDir("petstore-dev-");
let copies = 0;

/** A copy of the project for one test's `npm run dev` (node_modules linked). */
function projectCopy(): string {
  copies += 1;
  const copy = join(scratch, String(copies));
  for (const entry of [
    "functions",
    "lib",
    "local",
    "scripts",
    "infra",
    "openapi.yaml",
    "package.json",
  ])
    cpSync(join(projectRoot, entry), join(copy, entry), { recursive: true });
  symlinkSync(join(projectRoot, "node_modules"), join(copy, "node_modules"));
  return copy;
}

const serve = serverScripts();
const startDev = (copy: string) =>
  serve("scripts/dev.ts", {
    cwd: copy,
    args: ["--memory"],
    ready: (stderr) => stderr.includes("[dev] watching"),
  });

async function ordersMessage(baseUrl: string, apiKey: string): Promise<string> {
  const response = await fetch(`${baseUrl}/store/orders`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  return ((await response.json()) as { message: string }).message;
}

/** Waits up to 20 s until `done` holds; then says whether it did. */
const until = (done: () => boolean | Promise<boolean>): Promise<boolean> => within(done, 20_000);

const count = (text: string, pattern: RegExp): number => text.match(pattern)?.length ?? 0;
const rebuiltLine = /^\[dev\] \d\d:\d\d:\d\d rebuilt; serving the new code$/gm;
const failedLine =
  /^\[dev\] .* rebuild failed \(.*; esbuild's errors above\): the last good code is still serving\. Fix the error and save again\.$/gm;

describe("npm run dev rebuilds on change and serves the new code without a restart", () => {
  it("a changed message is served by the same server, over the same store, with the same key; one line per save", async () => {
    const copy = projectCopy();
    const { baseUrl, apiKey, stderr } = await startDev(copy);
    expect(await ordersMessage(baseUrl, apiKey)).toMatch(
      /^the store orders API is not implemented/,
    );
    expect((await createCategory(baseUrl, apiKey, { name: "dog" })).status).toBe(201);

    const handler = join(copy, "functions/routeFallback/handler.ts");
    const original = readFileSync(handler, "utf8");
    writeFileSync(handler, original.replace("the store orders API", "the orders API (edited)"));
    let message = "";
    expect(
      await until(async () => {
        message = await ordersMessage(baseUrl, apiKey);
        return message.startsWith("the orders API (edited)") && count(stderr(), rebuiltLine) > 0;
      }),
    ).toBe(true);
    expect(message).toMatch(/^the orders API \(edited\) is not implemented/);
    expect((await listCategories(baseUrl, apiKey)).map((c) => c.name)).toEqual(["dog"]);

    // A save in lib/, which every bundle includes, then a third save: its line comes after any
    // line the second still had to print, so three lines now means one per save.
    const shared = join(copy, "lib/errors.ts");
    writeFileSync(shared, `${readFileSync(shared, "utf8")}\n// saved once\n`);
    expect(await until(() => count(stderr(), rebuiltLine) >= 2)).toBe(true);
    writeFileSync(handler, original.replace("the store orders API", "the orders API (again)"));
    expect(await until(() => count(stderr(), rebuiltLine) >= 3)).toBe(true);
    expect(await ordersMessage(baseUrl, apiKey)).toMatch(/^the orders API \(again\)/);
    expect(count(stderr(), rebuiltLine)).toBe(3);
    expect(stderr()).not.toMatch(/rebuild failed/);
  });
});

describe("a failed rebuild under npm run dev leaves the last good code serving, and says so once", () => {
  it("esbuild's error once and one [dev] line naming the failed bundles; the old code still answers", async () => {
    const copy = projectCopy();
    const { baseUrl, apiKey, stderr } = await startDev(copy);
    const before = await ordersMessage(baseUrl, apiKey);
    // lib/errors.ts is in every bundle: each of them fails on the one error.
    const shared = join(copy, "lib/errors.ts");
    const original = readFileSync(shared, "utf8");
    writeFileSync(shared, `${original}\nexport const broken = ;\n`);

    expect(await until(() => count(stderr(), failedLine) > 0)).toBe(true);
    const bundles = functionsOf().map((fn) => fn.name);
    expect(stderr()).toContain(`rebuild failed (${bundles.join(", ")}; esbuild's errors above)`);
    expect(await ordersMessage(baseUrl, apiKey)).toBe(before);

    // Fixed and saved again: served, and everything the broken save printed is now on screen.
    writeFileSync(shared, original);
    expect(await until(() => count(stderr(), rebuiltLine) > 0)).toBe(true);
    const log = stderr();
    expect(count(log, failedLine)).toBe(1);
    expect(count(log, /Unexpected ";"/g)).toBe(1);
    expect(count(log, rebuiltLine)).toBe(1);
  });
});

describe("npm run dev still notices saves to a file an editor replaced by a rename", () => {
  it("a rename over the file (sed -i, atomic saves), then a save in place: both served", async () => {
    const copy = projectCopy();
    const { baseUrl, apiKey, stderr } = await startDev(copy);
    const handler = join(copy, "functions/routeFallback/handler.ts");
    const original = readFileSync(handler, "utf8");
    const served = (text: string) =>
      until(async () => (await ordersMessage(baseUrl, apiKey)).startsWith(text));

    // A new file renamed over the old one: the path now names another file (inode).
    writeFileSync(`${handler}.new`, original.replace("the store orders API", "renamed over"));
    renameSync(`${handler}.new`, handler);
    expect(await served("renamed over")).toBe(true);
    const rebuilt = count(stderr(), rebuiltLine);
    // Then saved in place, as a plain write does.
    writeFileSync(handler, original.replace("the store orders API", "saved in place"));
    expect(await served("saved in place")).toBe(true);
    expect(await until(() => count(stderr(), rebuiltLine) > rebuilt)).toBe(true);
  });
});

describe("npm run dev still notices saves in a folder removed and made again (a branch switch)", () => {
  it("the folder moved away and copied back, then a save in it: served", async () => {
    const copy = projectCopy();
    const { baseUrl, apiKey, stderr } = await startDev(copy);
    const folder = join(copy, "functions/routeFallback");
    const handler = join(folder, "handler.ts");
    const original = readFileSync(handler, "utf8");
    const rebuilt = count(stderr(), rebuiltLine);
    renameSync(folder, `${folder}.old`);
    cpSync(`${folder}.old`, folder, { recursive: true });
    rmSync(`${folder}.old`, { recursive: true });
    // The change is heard (a rebuild of the same code) before the folder's new save.
    expect(await until(() => count(stderr(), rebuiltLine) > rebuilt)).toBe(true);
    writeFileSync(handler, original.replace("the store orders API", "in a new folder"));
    expect(
      await until(async () => (await ordersMessage(baseUrl, apiKey)).startsWith("in a new folder")),
    ).toBe(true);
  });
});
