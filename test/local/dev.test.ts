/**
 * `npm run dev` serves a change to the code without a restart: same port, same store, same key.
 * It runs in a copy of the project (functions, lib, local, scripts, infra; node_modules linked),
 * so editing a source file never touches the bundles other tests are running.
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { projectRoot } from "../../local/template.ts";
import { createCategory, listCategories } from "../support/client.ts";

/** A copy of the project for one test's `npm run dev` (node_modules linked). */
function projectCopy(): string {
  const copy = mkdtempSync(join(tmpdir(), "petstore-dev-"));
  copies.push(copy);
  for (const entry of ["functions", "lib", "local", "scripts", "infra", "package.json"])
    cpSync(join(projectRoot, entry), join(copy, entry), { recursive: true });
  symlinkSync(join(projectRoot, "node_modules"), join(copy, "node_modules"));
  return copy;
}

const copies: string[] = [];
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children.filter((running) => running.exitCode === null)) {
    const exited = new Promise((done) => child.once("exit", done));
    child.kill("SIGTERM");
    await exited;
  }
  for (const copy of copies) rmSync(copy, { recursive: true, force: true });
});

function startDev(
  copy: string,
): Promise<{ baseUrl: string; apiKey: string; stderr: () => string }> {
  const dev = spawn(process.execPath, [join(copy, "scripts/dev.ts"), "--memory"], {
    cwd: copy,
    env: { ...process.env, PORT: "0" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  children.push(dev);
  let stderr = "";
  return new Promise((resolve, reject) => {
    dev.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      const baseUrl = /at (http:\/\/\S+\/v1)/.exec(stderr)?.[1];
      const apiKey = /API key: (\S+)/.exec(stderr)?.[1];
      if (baseUrl && apiKey && stderr.includes("[dev] watching"))
        resolve({ baseUrl, apiKey, stderr: () => stderr });
    });
    dev.once("exit", (code) => {
      reject(new Error(`npm run dev exited (${String(code)}): ${stderr}`));
    });
  });
}

async function ordersMessage(baseUrl: string, apiKey: string): Promise<string> {
  const response = await fetch(`${baseUrl}/store/orders`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  return ((await response.json()) as { message: string }).message;
}

describe("npm run dev rebuilds on change and serves the new code without a restart", () => {
  it("a changed message is served by the same server, over the same store, with the same key", async () => {
    const copy = projectCopy();
    const { baseUrl, apiKey, stderr } = await startDev(copy);
    expect(await ordersMessage(baseUrl, apiKey)).toMatch(
      /^the store orders API is not implemented/,
    );
    expect((await createCategory(baseUrl, apiKey, { name: "dog" })).status).toBe(201);

    const handler = join(copy, "functions/routeFallback/handler.ts");
    writeFileSync(
      handler,
      readFileSync(handler, "utf8").replace("the store orders API", "the orders API (edited)"),
    );

    const deadline = Date.now() + 20_000;
    let message = "";
    while (Date.now() < deadline) {
      message = await ordersMessage(baseUrl, apiKey);
      if (message.startsWith("the orders API (edited)") && stderr().includes("rebuilt")) break;
      await new Promise((done) => setTimeout(done, 200));
    }
    expect(message).toMatch(/^the orders API \(edited\) is not implemented/);
    expect(stderr()).toMatch(/\[dev\] .* rebuilt; serving the new code/);
    expect((await listCategories(baseUrl, apiKey)).map((c) => c.name)).toEqual(["dog"]);
  });
});

describe("a failed rebuild under npm run dev leaves the last good code serving, and says so", () => {
  it("prints a [dev] line naming the failed bundles; the old code still answers", async () => {
    const copy = projectCopy();
    const { baseUrl, apiKey, stderr } = await startDev(copy);
    const before = await ordersMessage(baseUrl, apiKey);
    const handler = join(copy, "functions/routeFallback/handler.ts");
    writeFileSync(handler, `${readFileSync(handler, "utf8")}\nexport const broken = ;\n`);

    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && !stderr().includes("rebuild failed")) {
      await new Promise((done) => setTimeout(done, 200));
    }
    expect(stderr()).toMatch(
      /^\[dev\] .* rebuild failed \(routeFallback; esbuild's errors above\): the last good code is still serving\. Fix the error and save again\.$/m,
    );
    expect(await ordersMessage(baseUrl, apiKey)).toBe(before);
  });
});
