/**
 * `npm run smoke` against the local server, as an operator runs it against a stage: the key
 * comes from PETSTORE_API_KEY or standard input and never from the command line or into the
 * output; every check passes on a healthy deployment; read-only (the default) leaves nothing
 * behind, `--write` exactly one category named `smoke-test <ISO time>`; failures are reported
 * per check with a non-zero exit.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Category } from "../../lib/category.ts";
import { projectRoot } from "../../local/template.ts";
import type { RunningServer } from "../support/localServer.ts";
import { startServer } from "../support/localServer.ts";

const script = resolve(projectRoot, "scripts/smoke.ts");

function runSmoke(
  args: string[],
  key: { env?: string; stdin?: string } = {},
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: projectRoot,
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, PETSTORE_API_KEY: key.env ?? "" },
    });
    child.stdin.end(key.stdin ?? "");
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

const readOnlyChecks = [
  "GET /categories answers 200",
  "without a key answers 401 with WWW-Authenticate",
  "a key the stage does not know answers 401",
  "invalid body answers 400 invalid_body",
  "unknown route answers 404",
  "DELETE /categories answers 405 with Allow",
  "answers 501 with the Deprecation header",
];

function checksOf(out: string): string[] {
  return out.split("\n").filter((line) => /^(PASS|FAIL) /.test(line));
}

describe("read-only, the default", () => {
  it("passes every check against a healthy deployment and creates nothing", async () => {
    const before = await categories();
    const { code, out } = await runSmoke([server.baseUrl], { env: server.apiKey });
    expect(code, out).toBe(0);
    const checks = checksOf(out);
    expect(checks.filter((line) => line.startsWith("FAIL"))).toEqual([]);
    for (const what of readOnlyChecks)
      expect(
        checks.some((line) => line.includes(what)),
        what,
      ).toBe(true);
    expect(out).toContain("read-only");
    expect(out).toContain(`smoke: ${checks.length} passed, 0 failed`);
    expect(await categories()).toEqual(before);
  });
});

describe("--write, only where asked", () => {
  it("adds one create and finds it in the list, leaving one named category", async () => {
    const before = await categories();
    const { code, out } = await runSmoke([server.baseUrl, "--write"], { env: server.apiKey });
    expect(code, out).toBe(0);
    expect(checksOf(out).some((line) => line.includes("creates a category (201)"))).toBe(true);
    expect(checksOf(out).some((line) => line.includes("lists the new category"))).toBe(true);
    const added = (await categories()).filter((c) => !before.some((b) => b.id === c.id));
    expect(added).toHaveLength(1);
    expect(added[0]?.name).toMatch(/^smoke-test \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});

describe("the key: from the environment or standard input, never argv, never printed", () => {
  it("reads the first line of standard input when PETSTORE_API_KEY is unset", async () => {
    const { code, out, err } = await runSmoke([server.baseUrl], { stdin: `${server.apiKey}\n` });
    expect(code, out + err).toBe(0);
    expect(out + err).not.toContain(server.apiKey);
  });

  it("refuses a key given as an argument, without echoing it", async () => {
    const { code, out, err } = await runSmoke([server.baseUrl, server.apiKey]);
    expect(code).toBe(2);
    expect(err).toContain("PETSTORE_API_KEY");
    expect(out + err).not.toContain(server.apiKey);
  });

  it("says where the key comes from when there is none", async () => {
    const { code, err } = await runSmoke([server.baseUrl]);
    expect(code).toBe(2);
    expect(err).toMatch(/no API key: set PETSTORE_API_KEY, or pipe the key on standard input/);
  });
});

describe("npm run smoke", () => {
  it("fails, check by check, with a key the deployment does not accept", async () => {
    const before = await categories();
    const { code, out } = await runSmoke([server.baseUrl, "--write"], {
      env: "petstore_not-a-key-of-this-stage",
    });
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
    const { code, out } = await runSmoke([`http://127.0.0.1:${port}/v1`], { env: "petstore_x" });
    expect(code).toBe(1);
    expect(out).toMatch(/^FAIL .*request failed/m);
    expect(out).not.toMatch(/^PASS/m);
  });

  it.each([
    [[]],
    [["not a url"]],
    [["ftp://x/v1"]],
    [["http://127.0.0.1:1/v1", "--stage", "staging"]],
    [["--stage", "dev"]],
    [["http://127.0.0.1:1/v1", "--write", "--read-only"]],
  ])("refuses usage %j", async (args) => {
    const { code, err } = await runSmoke(args, { env: "petstore_x" });
    expect(code).toBe(2);
    expect(err).toContain("usage: npm run smoke");
  });
});
