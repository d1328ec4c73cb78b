/**
 * The operator's keys command (scripts/keys.ts) against a running local server (the embedded
 * store: dynalite, or DynamoDB Local with PETSTORE_STORE=dynamodb-local): keys are shown once,
 * stored as hashes, and revoked or expired keys stop working within the cache time (here 1 s; 30 s
 * deployed, always under the contract's 60 s); scopes given at create and changed by update,
 * rotation with both keys working during the grace, and the history of who did what. Every
 * answer is checked against openapi.yaml.
 */
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CommandRun } from "../support/keysCli.ts";
import { KeyEventStore } from "../../lib/repositories/keyEvents.ts";
import { localClient } from "../../local/embeddedDynamo.ts";
import { endpointFile, localTableName } from "../../local/localKeys.ts";
import { issueKey, keysCommand, keysCommandFed } from "../support/keysCli.ts";
import { createCategory, send } from "../support/client.ts";
import { localServer } from "../support/localServer.ts";
import { scratchDir } from "../support/scratchDir.ts";

const dataDir = join(scratchDir("petstore-keys-"), "dynamodb");
const server = await localServer({ dataDir, env: { API_KEY_CACHE_SECONDS: "1" } });

const keys = (...args: string[]): CommandRun => keysCommand(dataDir, ...args);
const issue = (...extra: string[]): { key: string; keyId: string } => issueKey(dataDir, ...extra);

const status = async (key: string): Promise<number> =>
  (await send(server.baseUrl, { path: "/v1/categories", key })).status;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
/** A create the client may send again (Idempotency-Key): a kept-alive socket may close meanwhile. */
const create = (key: string, name: string) =>
  createCategory(server.baseUrl, key, { name }, { "idempotency-key": randomUUID() });
const challenge = (scope: string) =>
  `Bearer realm="petstore", error="insufficient_scope", scope="${scope}"`;

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
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^keys: no key key_000000000000/);
  });
});

describe("a leaked key is revoked by the key itself, never by naming it in argv", () => {
  it("revoke - reads the key on standard input, finds it by its hash, and never shows it", async () => {
    const { key, keyId } = issue();
    const run = keysCommandFed(dataDir, `${key}\n`, "revoke", "-");
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^revoked ${keyId} in `));
    expect(run.stdout + run.stderr).not.toContain(key);
    await sleep(1100);
    expect(await status(key)).toBe(401);
  });

  it("nothing piped: one line saying to pipe the key in, exit 2", () => {
    const run = keysCommandFed(dataDir, "", "revoke", "-");
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split("\n")).toEqual([
      "keys: revoke - got no key on standard input: pipe the key in, e.g. pass show leaked-key | npm run keys -- revoke -",
    ]);
  });

  it("a key the store does not hold: one line, exit 1, not shown", () => {
    const stranger = `${issue().key.slice(0, -10)}zzzzzzzzzz`;
    const run = keysCommandFed(dataDir, `${stranger}\n`, "revoke", "-");
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^keys: no key in .* is the one given on standard input$/),
    ]);
    expect(run.stdout + run.stderr).not.toContain(stranger);
  });

  it("the key given where a keyId goes: refused in one line that does not repeat it", async () => {
    const { key } = issue();
    for (const args of [
      ["revoke", key],
      ["rotate", key],
      ["history", key],
      ["list", key],
    ]) {
      const run = keys(...args);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/^keys: an argument is an API key, not a keyId .*revoke -/);
      expect(run.stdout + run.stderr).not.toContain(key);
    }
    expect(await status(key)).toBe(200);
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
    [["create", "--expires", "2027-02-30"], /--expires must be an ISO 8601 date/],
    [["create", "--expires", "June 30 2027"], /--expires must be an ISO 8601 date/],
    [["create", "--expires", "3000"], /--expires must be an ISO 8601 date/],
    [["create", "--expires", "2027-06-30T25:00Z"], /--expires must be an ISO 8601 date/],
    [["create", "--label", ""], /^keys: --label must be 1 to 100 characters/],
    [["create", "--label", "a\nb"], /^keys: --label must be 1 to 100 characters/],
    [["create", "--label", "a\u2028b"], /^keys: --label must be 1 to 100 characters/],
    [["create", "--label", "a\u202eb"], /^keys: --label must be 1 to 100 characters/],
    [["create", "--label", "x".repeat(101)], /^keys: --label must be 1 to 100 characters/],
    [["create", "--expires", "2020-01-01"], /--expires 2020-01-01 is in the past/],
    [["create", "--labl", "x"], /^keys: unknown option --labl/],
    [["create", "--label"], /^keys: --label needs a value/],
    [["create", "--rate", "5/s", "--burst", "-1"], /^keys: --burst's value starts with a dash/],
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

describe("keys create --scope issues a key of the format with those scopes only", () => {
  it("a read-only key lists and gets 403 with the challenge on create", async () => {
    const { key } = issue("--scope", "categories:read");
    expect(key).toMatch(/^petstore_local_[0-9A-Za-z]{43}_[0-9A-Za-z]{6}$/);
    expect(await status(key)).toBe(200);
    const refused = await create(key, "not allowed");
    expect(refused.status).toBe(403);
    expect(refused.json()).toMatchObject({ code: "insufficient_scope", status: 403 });
    expect(refused.headers["www-authenticate"]).toBe(challenge("categories:write"));
  });

  it("a write-only key creates and gets 403 with the challenge on list", async () => {
    const { key } = issue("--scope", "categories:write");
    expect((await create(key, "write-only")).status).toBe(201);
    const refused = await send(server.baseUrl, { path: "/v1/categories", key });
    expect(refused.status).toBe(403);
    expect(refused.headers["www-authenticate"]).toBe(challenge("categories:read"));
  });

  it("list shows each key's scopes", () => {
    const { keyId } = issue("--scope", "categories:read");
    expect(keys("list").stdout).toMatch(new RegExp(`${keyId} .*scopes categories:read  `));
  });
});

describe("keys update --scope changes a key in place, without a restart", () => {
  it("a read-only key may create once updated (here within the 1 s cache)", async () => {
    const { key, keyId } = issue("--scope", "categories:read");
    expect((await create(key, "before")).status).toBe(403);
    const run = keys("update", keyId, "--scope", "categories:read,categories:write");
    expect(run.status).toBe(0);
    await sleep(1100);
    expect((await create(key, "after")).status).toBe(201);
  });

  it("will not change a revoked key: one line, exit 1, the key as it was", () => {
    const { keyId } = issue("--scope", "categories:read");
    expect(keys("revoke", keyId).status).toBe(0);
    const run = keys("update", keyId, "--scope", "categories:write");
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(
        new RegExp(`^keys: ${keyId} was revoked on .*: issue a new key with create$`),
      ),
    ]);
    expect(keys("list").stdout).toMatch(new RegExp(`${keyId} .*scopes categories:read `));
  });
});

describe("keys rotate gives a new key; both work during the grace", () => {
  it("prints a new key with the same label and scopes, and both are accepted", async () => {
    const old = issue("--scope", "categories:read");
    const run = keys("rotate", old.keyId, "--grace", "1h");
    expect(run.status).toBe(0);
    const fresh = /^(petstore_local_\S+)$/m.exec(run.stdout)?.[1] ?? "";
    expect(run.stdout).toMatch(/test-client {2}created .* {2}scopes categories:read {2}no expiry/);
    expect(run.stdout).toContain(`${old.keyId} keeps working until`);
    await sleep(1100);
    expect(await status(old.key)).toBe(200);
    expect(await status(fresh)).toBe(200);
    expect(keys("list").stdout).toMatch(new RegExp(`${old.keyId} .* expires `));
  });

  it("will not bring a revoked key back by rotating it", () => {
    const { keyId } = issue();
    expect(keys("revoke", keyId).status).toBe(0);
    const run = keys("rotate", keyId);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(`^keys: ${keyId} was revoked on .*: issue a new key with create`),
    );
    expect(run.stdout + run.stderr).not.toMatch(/petstore_/);
  });
});

describe("keys history lists every change with who made it and when", () => {
  it("names the OS user locally, for all keys or one", () => {
    const { keyId } = issue();
    expect(keys("update", keyId, "--scope", "categories:read").status).toBe(0);
    expect(keys("revoke", keyId).status).toBe(0);
    const run = keys("history", keyId);
    expect(run.status).toBe(0);
    const [heading, ...lines] = run.stdout.trim().split("\n");
    expect(heading).toMatch(new RegExp(`^key events for ${keyId} in the store of .*:$`));
    expect(lines.map((line) => line.split(/ {2}/)[1]?.trim())).toEqual([
      "create",
      "update",
      "revoke",
    ]);
    for (const line of lines) {
      expect(line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z {2}/);
      expect(line).toContain(`by local:${userInfo().username}`);
    }
    expect(keys("history").stdout).toContain(keyId);
  });

  it("shows text the table holds escaped: a stored line break or terminal escape cannot fake a line", async () => {
    // As anything with a write grant but this command could store it (the deploy hook's role).
    const db = localClient(readFileSync(endpointFile(dataDir), "utf8").trim());
    const forged = "op\u001b[2K\rrevoke  key_0  by admin\nsecond line\u202e";
    await new KeyEventStore(db, localTableName).record(
      { event: "update", keyId: "key_0123abcd4567", who: forged },
      Date.now() + 5000,
    );
    db.close();
    const run = keys("history", "key_0123abcd4567");
    expect(run.status).toBe(0);
    const lines = run.stdout.trim().split("\n");
    expect(lines).toHaveLength(2); // the heading and one event
    expect(lines[1]).toContain(
      "by op\\u001b[2K\\u000drevoke  key_0  by admin\\u000asecond line\\u202e",
    );
  });
});

describe("every answer of the command names the store it used", () => {
  it("create, list, update, rotate, revoke and history alike", () => {
    const { keyId } = issue();
    const runs = [
      keys("list"),
      keys("update", keyId, "--scope", "categories:read"),
      keys("history", keyId),
      keys("rotate", keyId, "--grace", "1h"),
      keys("revoke", keyId),
      keys("revoke", keyId),
      keys("rotate", keyId),
      keys("history", "key_000000000000"),
    ];
    // Refusals on stderr (a revoked key's rotate), answers on stdout: each names the store.
    for (const run of runs) expect(run.stdout + run.stderr).toMatch(/table petstore-local/);
    expect(keys("create").stdout).toMatch(/issued in .*table petstore-local/);
  });
});

describe("history holds every key, the one npm start made included", () => {
  it("the server's own key has its create event, made by npm start", () => {
    const listed = keys("list").stdout;
    const serverKey = /^(key_[0-9a-f]+) {2}local-server /m.exec(listed)?.[1];
    expect(serverKey).toBeDefined();
    const history = keys("history", serverKey ?? "").stdout;
    expect(history).toMatch(
      new RegExp(`create {2}${serverKey ?? ""} {2}by local:${userInfo().username} \\(npm start\\)`),
    );
  });
});
