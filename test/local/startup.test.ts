/**
 * `npm start`'s mistakes end in one line that says what to do (never a stack trace), each data
 * folder has its own endpoint file, and the server never writes the global process.env.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { generateKey } from "../../lib/keyFormat.ts";
import { endpointFile } from "../../local/localKeys.ts";
import { startLocalServer } from "../../local/server.ts";
import { functionsOf, projectRoot } from "../../local/template.ts";
import { listCategories } from "../support/client.ts";
import { issueKey, keysCommand } from "../support/keysCli.ts";
import { startServer } from "../support/localServer.ts";
import { scratchDir } from "../support/scratchDir.ts";
import { scaled } from "../support/speed.ts";
import type { Exit } from "./processes.ts";
import { closedPort, listening, runScript } from "./processes.ts";

const root = scratchDir("petstore-startup-");

/** `npm start` (scripts/start.ts) that is expected to stop by itself. */
const start = (env: Record<string, string>): Promise<Exit> =>
  runScript("scripts/start.ts", [], { ...process.env, PORT: "0", ...env }, 20_000);

function expectOneLine(exit: Exit, message: RegExp): void {
  expect(exit.status).toBe(2);
  expect(exit.stderr).toMatch(message);
  expect(exit.stderr.trim().split("\n")).toHaveLength(1);
  expect(exit.stderr).not.toMatch(/^\s+at /m);
}

describe("npm start reads its command line before it builds", () => {
  /** `npm start -- <args>` as package.json runs it, and whether any bundle was written meanwhile. */
  function npmStart(...args: string[]): { status: number | null; stderr: string; built: boolean } {
    const bundles = functionsOf().map((spec) => resolve(spec.codeDir, spec.handlerFile));
    const mtimes = (): number[] => bundles.map((file) => statSync(file).mtimeMs);
    const before = mtimes();
    const run = spawnSync("npm", ["start", "--silent", "--", ...args], {
      cwd: projectRoot,
      env: { ...process.env, PORT: "0" },
      encoding: "utf8",
      timeout: 60_000,
    });
    const built = mtimes().some((mtime, i) => mtime !== before[i]);
    return { status: run.status, stderr: run.stderr, built };
  }

  // What each answers: test/docs/readme.test.ts, for every command the README lists.
  it.each([
    ["--help", 0],
    ["--bogus", 2],
  ])("%s answers (exit %i) before anything is built", (option, status) => {
    const run = npmStart(option);
    expect(run.status, run.stderr).toBe(status);
    expect(run.built).toBe(false);
  });
});

describe("PETSTORE_API_KEY of another stage: refused in one line that never shows it", () => {
  it.each([
    ["a production key", generateKey("prod")],
    ["a local key whose checksum is wrong", `${generateKey("local").slice(0, -6)}AAAAAA`],
  ])("%s", async (_, key) => {
    const exit = await start({ PETSTORE_API_KEY: key, DATA_DIR: join(root, "stage-key") });
    expectOneLine(exit, /PETSTORE_API_KEY holds a key of another stage .*unset it/);
    expect(exit.stderr + exit.stdout).not.toContain(key.slice(15));
  });
});

describe("a function whose init refuses a setting: its message, and no advice to build", () => {
  it("names the function and the setting; a build would not mend it", async () => {
    const exit = await start({ STORE_ATTEMPT_TIMEOUT_MS: "1", DATA_DIR: join(root, "init-error") });
    expect(exit.status).toBe(2);
    // Before it, the container's own error line, as Lambda logs a failed init.
    const last = exit.stderr.trim().split("\n").at(-1);
    expect(last).toMatch(
      /^npm start: \w+ failed to start: STORE_ATTEMPT_TIMEOUT_MS must be an integer from 50 to 29000, got "1"$/,
    );
  });
});

describe("more warm containers than a function may run: refused, as Lambda refuses it", () => {
  it("names the function and its concurrency", async () => {
    const exit = await runScript(
      "scripts/start.ts",
      ["--memory", "--concurrency", "3", "--warm", "4"],
      { ...process.env, PORT: "0" },
      20_000,
    );
    expectOneLine(
      exit,
      /^npm start: --warm 4 is more than the concurrency of \w+ \(3\): warm at most 3$/m,
    );
  });
});

describe("a HOST that is no address of this machine: named, and what to set", () => {
  it("refuses in one line naming HOST", async () => {
    const exit = await start({ HOST: "256.1.1.1", DATA_DIR: join(root, "bad-host") });
    expectOneLine(
      exit,
      /^npm start: HOST=256\.1\.1\.1 is not an address of this machine \(\w+\): set HOST/,
    );
  });
});

describe("a busy port: which port, and to set PORT", () => {
  it("refuses in one line and leaves no endpoint file behind", async () => {
    const { port, close } = await listening();
    const dataDir = join(root, "busy-port");
    const exit = await start({ PORT: String(port), DATA_DIR: dataDir });
    await close();
    expectOneLine(exit, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use.*set PORT`));
    expect(existsSync(endpointFile(dataDir))).toBe(false);
  });
});

describe("one data folder, one server", () => {
  it("a second server over the same folder says another server holds the store", async () => {
    const dataDir = join(root, "shared");
    const first = await startServer({ dataDir });
    try {
      const exit = await start({ DATA_DIR: dataDir });
      expectOneLine(
        exit,
        /another server \(or keys command\) holds the store in .*shared: stop that server, or set DATA_DIR/,
      );
      expect(readFileSync(endpointFile(dataDir), "utf8")).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await listCategories(first.baseUrl, first.apiKey)).toEqual([]);
    } finally {
      await first.stop();
    }
    expect(existsSync(endpointFile(dataDir))).toBe(false);
  });

  it("the keys command over a folder a server holds without its endpoint file: one line, no stack", async () => {
    const dataDir = join(root, "held");
    const first = await startServer({ dataDir });
    try {
      rmSync(endpointFile(dataDir));
      const run = keysCommand(dataDir, "list");
      expect(run.status).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr.trim().split("\n")).toEqual([
        expect.stringMatching(
          /^keys: another server \(or keys command\) holds the store in .*held but left no endpoint file: stop it and retry$/,
        ),
      ]);
    } finally {
      await first.stop();
    }
  });

  it("two servers over two folders keep separate endpoint files; keys go to the folder's own store", async () => {
    const [a, b] = [join(root, "a"), join(root, "b")];
    const serverA = await startServer({ dataDir: a });
    const serverB = await startServer({ dataDir: b });
    try {
      expect(readFileSync(endpointFile(a), "utf8")).not.toBe(readFileSync(endpointFile(b), "utf8"));
      const { key } = issueKey(a);
      expect(await listCategories(serverA.baseUrl, key)).toEqual([]);
      await expect(listCategories(serverB.baseUrl, key)).rejects.toThrow(/401/);
    } finally {
      await serverA.stop();
      await serverB.stop();
    }
  });
});

describe("an unreachable DYNAMODB_ENDPOINT ends in one line naming the variable, within seconds", () => {
  it("refuses a closed port", async () => {
    const exit = await start({ DYNAMODB_ENDPOINT: `http://127.0.0.1:${await closedPort()}` });
    expectOneLine(
      exit,
      /no DynamoDB answer from http:\/\/127\.0\.0\.1:\d+ .*unset DYNAMODB_ENDPOINT/,
    );
    expect(exit.ms).toBeLessThan(scaled(8000));
  });

  it("refuses a value that is no URL", async () => {
    expectOneLine(
      await start({ DYNAMODB_ENDPOINT: "localhost 8000" }),
      /DYNAMODB_ENDPOINT must be an http\(s\) URL/,
    );
  });
});

describe("the server passes the functions their environment and never writes process.env", () => {
  it("serves requests and leaves process.env as it was", async () => {
    const before = { ...process.env };
    const server = await startLocalServer({ port: 0, env: { API_KEY_CACHE_SECONDS: "1" } });
    try {
      expect(await listCategories(server.baseUrl, server.apiKey)).toEqual([]);
      expect({ ...process.env }).toEqual(before);
    } finally {
      await server.close();
    }
  });
});
