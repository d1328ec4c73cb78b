/**
 * The operator's keys command against a running local server: keys are shown once, stored as
 * hashes, and revoked or expired keys stop working within the cache time (here 1 s; 30 s
 * deployed, always under the contract's 60 s).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CommandRun } from "../support/keysCli.ts";
import { issueKey, keysCommand } from "../support/keysCli.ts";
import { send } from "../support/client.ts";
import { localServer } from "../support/localServer.ts";
import { scratchDir } from "../support/scratchDir.ts";

const dataDir = join(scratchDir("petstore-keys-"), "dynamodb");
const server = await localServer({ dataDir, env: { API_KEY_CACHE_SECONDS: "1" } });

const keys = (...args: string[]): CommandRun => keysCommand(dataDir, ...args);
const issue = (...extra: string[]): { key: string; keyId: string } => issueKey(dataDir, ...extra);

const status = async (key: string): Promise<number> =>
  (await send(server.baseUrl, { path: "/v1/categories", key })).status;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe("an issued key works at once and is shown only once", () => {
  it("create prints the key; list never shows it", async () => {
    const { key, keyId } = issue();
    expect(await status(key)).toBe(200);
    const listed = keys("list");
    expect(listed.stdout).toContain(keyId);
    expect(listed.stdout).not.toContain(key);
  });
});

describe("a revoked key is refused within the cache time, with no restart", () => {
  it("refuses the key after revoke", async () => {
    const { key, keyId } = issue();
    expect(await status(key)).toBe(200);
    expect(keys("revoke", keyId).status).toBe(0);
    await sleep(1100);
    expect(await status(key)).toBe(401);
    expect(keys("list").stdout).toMatch(new RegExp(`${keyId}.*revoked`));
  });

  it("says so when the key id is unknown", () => {
    const run = keys("revoke", "key_000000000000");
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/no key key_000000000000/);
  });
});

describe("an expired key is refused", () => {
  it("works until its expiry and not after", async () => {
    // Far enough ahead that issuing (a child process, slow on a loaded machine) ends before it:
    // three times what one run of the command takes now, and a second for the request.
    const started = Date.now();
    expect(keys("list").status).toBe(0);
    const expiresAt = Date.now() + 3 * (Date.now() - started) + 1000;
    const { key } = issue("--expires", new Date(expiresAt).toISOString());
    expect(await status(key)).toBe(200);
    await sleep(expiresAt + 100 - Date.now());
    expect(await status(key)).toBe(401);
  });
});

describe("the store keeps hashes, never keys", () => {
  it("no file of the persisted store contains an issued key", async () => {
    const { key } = issue();
    await server.stop();
    const files = readdirSync(dataDir, { recursive: true, encoding: "utf8" }).map((f) =>
      join(dataDir, f),
    );
    const contents = files
      .filter((f) => statSync(f).isFile())
      .map((f) => readFileSync(f).toString("latin1"));
    expect(contents.length).toBeGreaterThan(0);
    expect(contents.some((text) => text.includes(key))).toBe(false);
    await server.start();
  });
});

describe("the command refuses what it does not know", () => {
  it.each([
    [["--stage", "qa", "list"], /unknown stage "qa"/],
    [
      ["renew"],
      /^keys: unknown command "renew": use create, list, update, rotate, revoke or history/,
    ],
    [["rotate"], /^keys: rotate needs a keyId/],
    [["update", "key_0123abcd4567"], /^keys: update needs what to change: --scope/],
    [["create", "--scope", "categories:admin"], /^keys: unknown scope "categories:admin"/],
    [["rotate", "key_0123abcd4567", "--grace", "8d"], /^keys: --grace 8d is over the limit/],
    [["rotate", "key_0123abcd4567", "--grace", "soon"], /^keys: --grace must be a duration/],
    [["create", "--expires", "tomorrow"], /--expires must be an ISO 8601 date/],
    [["create", "--expires", "2020-01-01"], /--expires 2020-01-01 is in the past/],
    [["create", "--labl", "x"], /^keys: unknown option --labl/],
    [["create", "--label"], /^keys: --label needs a value/],
    [["revoke"], /^keys: revoke needs a keyId/],
    [[], /^keys: no command given/],
  ])("%j: one line, exit 2", (args, message) => {
    const run = keys(...args);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("--help prints the usage and exits 0", () => {
    const run = keys("--help");
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^usage: npm run keys/);
  });

  it("revoking a revoked key says it already was", () => {
    const { keyId } = issue();
    expect(keys("revoke", keyId).status).toBe(0);
    const again = keys("revoke", keyId);
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`^${keyId} was already revoked on \\d{4}-`));
  });
});
