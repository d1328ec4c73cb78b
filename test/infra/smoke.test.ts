/**
 * `npm run smoke` against the local server, as an operator runs it against a stage: every check
 * passes on a healthy deployment, failures are reported per check with a non-zero exit, and the
 * only thing it leaves behind is one category named `smoke-test <ISO time>`.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Category } from "../../lib/repositories/categories.ts";
import { projectRoot } from "../../local/template.ts";
import type { RunningServer } from "../support/localServer.ts";
import { startServer } from "../support/localServer.ts";

const script = resolve(projectRoot, "scripts/smoke.ts");

function runSmoke(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: projectRoot,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
    child.once("error", fail);
    child.once("exit", (code) => {
      done({ code: code ?? -1, out, err });
    });
  });
}

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.stop();
});

async function categories(): Promise<Category[]> {
  const response = await fetch(`${server.baseUrl}/categories`, {
    headers: { authorization: `Bearer ${server.apiKey}` },
  });
  return (await response.json()) as Category[];
}

describe("npm run smoke", () => {
  it("passes every check against a healthy deployment and leaves one named category", async () => {
    const before = await categories();
    const { code, out } = await runSmoke([server.baseUrl, server.apiKey]);
    expect(code, out).toBe(0);
    const lines = out.split("\n");
    const checks = lines.filter((line) => /^(PASS|FAIL) /.test(line));
    expect(checks.length).toBeGreaterThanOrEqual(7);
    expect(checks.filter((line) => line.startsWith("FAIL"))).toEqual([]);
    for (const what of [
      "GET /categories answers 200",
      "without a key answers 401 with WWW-Authenticate",
      "creates a category (201)",
      "lists the new category",
      "invalid body answers 400 invalid_body",
      "unknown route answers 404",
      "DELETE /categories answers 405 with Allow",
    ]) {
      expect(
        checks.some((line) => line.includes(what)),
        what,
      ).toBe(true);
    }
    expect(lines).toContain(`smoke: ${checks.length} passed, 0 failed`);
    expect(out).not.toContain(server.apiKey);

    const added = (await categories()).filter((c) => !before.some((b) => b.id === c.id));
    expect(added).toHaveLength(1);
    expect(added[0]?.name).toMatch(/^smoke-test \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("fails, check by check, with a key the deployment does not accept", async () => {
    const before = await categories();
    const { code, out } = await runSmoke([server.baseUrl, "petstore_not-a-key-of-this-stage"]);
    expect(code).toBe(1);
    expect(out).toMatch(/^FAIL {2}GET \/categories answers 200 .*401/m);
    expect(out).toMatch(/^FAIL {2}POST \/categories creates a category/m);
    // Route checks come first in the contract, so they still pass without a valid key.
    expect(out).toMatch(/^PASS {2}an unknown route answers 404/m);
    expect(out).toMatch(/^smoke: \d+ passed, [1-9]\d* failed$/m);
    expect(await categories()).toEqual(before);
  });

  it("fails when nothing answers at the address", async () => {
    const port = await new Promise<number>((done) => {
      const probe = createServer();
      probe.listen(0, "127.0.0.1", () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => {
          done(free);
        });
      });
    });
    const { code, out } = await runSmoke([`http://127.0.0.1:${port}/v1`, "petstore_x"]);
    expect(code).toBe(1);
    expect(out).toMatch(/^FAIL .*request failed/m);
    expect(out).not.toMatch(/^PASS/m);
  });

  it.each([[[]], [["not a url", "key"]], [["http://127.0.0.1:1/v1"]], [["ftp://x/v1", "k"]]])(
    "refuses usage %j",
    async (args) => {
      const { code, err } = await runSmoke(args);
      expect(code).toBe(2);
      expect(err).toContain("usage: npm run smoke");
    },
  );
});
