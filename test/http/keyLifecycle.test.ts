/**
 * Keys over HTTP with the operator's command (scripts/keys.ts) against a running local server
 * (the embedded store: dynalite, or DynamoDB Local with PETSTORE_STORE=dynamodb-local): scopes
 * given at create and changed by update, rotation with both keys working during the grace, and
 * the history of who did what. Every answer is checked against openapi.yaml.
 */
import { randomUUID } from "node:crypto";
import { userInfo } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createCategory, send } from "../support/client.ts";
import type { CommandRun } from "../support/keysCli.ts";
import { issueKey, keysCommand } from "../support/keysCli.ts";
import { localServer } from "../support/localServer.ts";
import { scratchDir } from "../support/scratchDir.ts";

const dataDir = join(scratchDir("petstore-key-lifecycle-"), "dynamodb");
const server = await localServer({ dataDir, env: { API_KEY_CACHE_SECONDS: "1" } });

const keys = (...args: string[]): CommandRun => keysCommand(dataDir, ...args);
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const listStatus = async (key: string) =>
  (await send(server.baseUrl, { path: "/v1/categories", key })).status;
/** A create the client may send again (Idempotency-Key): a kept-alive socket may close meanwhile. */
const create = (key: string, name: string) =>
  createCategory(server.baseUrl, key, { name }, { "idempotency-key": randomUUID() });
const challenge = (scope: string) =>
  `Bearer realm="petstore", error="insufficient_scope", scope="${scope}"`;

describe("keys create --scope issues a key of the format with those scopes only", () => {
  it("a read-only key lists and gets 403 with the challenge on create", async () => {
    const { key } = issueKey(dataDir, "--scope", "categories:read");
    expect(key).toMatch(/^petstore_local_[0-9A-Za-z]{43}_[0-9A-Za-z]{6}$/);
    expect(await listStatus(key)).toBe(200);
    const refused = await create(key, "not allowed");
    expect(refused.status).toBe(403);
    expect(refused.json()).toMatchObject({ code: "insufficient_scope", status: 403 });
    expect(refused.headers["www-authenticate"]).toBe(challenge("categories:write"));
  });

  it("a write-only key creates and gets 403 with the challenge on list", async () => {
    const { key } = issueKey(dataDir, "--scope", "categories:write");
    expect((await create(key, "write-only")).status).toBe(201);
    const refused = await send(server.baseUrl, { path: "/v1/categories", key });
    expect(refused.status).toBe(403);
    expect(refused.headers["www-authenticate"]).toBe(challenge("categories:read"));
  });

  it("list shows each key's scopes", () => {
    const { keyId } = issueKey(dataDir, "--scope", "categories:read");
    expect(keys("list").stdout).toMatch(new RegExp(`${keyId} .*scopes categories:read  `));
  });
});

describe("keys update --scope changes a key in place, without a restart", () => {
  it("a read-only key may create once updated (here within the 1 s cache)", async () => {
    const { key, keyId } = issueKey(dataDir, "--scope", "categories:read");
    expect((await create(key, "before")).status).toBe(403);
    const run = keys("update", keyId, "--scope", "categories:read,categories:write");
    expect(run.status).toBe(0);
    await sleep(1100);
    expect((await create(key, "after")).status).toBe(201);
  });
});

describe("keys rotate gives a new key; both work during the grace", () => {
  it("prints a new key with the same label and scopes, and both are accepted", async () => {
    const old = issueKey(dataDir, "--scope", "categories:read");
    const run = keys("rotate", old.keyId, "--grace", "1h");
    expect(run.status).toBe(0);
    const fresh = /^(petstore_local_\S+)$/m.exec(run.stdout)?.[1] ?? "";
    expect(run.stdout).toMatch(/test-client {2}created .* {2}scopes categories:read {2}no expiry/);
    expect(run.stdout).toContain(`${old.keyId} keeps working until`);
    await sleep(1100);
    expect(await listStatus(old.key)).toBe(200);
    expect(await listStatus(fresh)).toBe(200);
    expect(keys("list").stdout).toMatch(new RegExp(`${old.keyId} .* expires `));
  });

  it("will not bring a revoked key back by rotating it", () => {
    const { keyId } = issueKey(dataDir);
    expect(keys("revoke", keyId).status).toBe(0);
    const run = keys("rotate", keyId);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(
      new RegExp(`^${keyId} was revoked on .*: issue a new key with create`),
    );
    expect(run.stdout).not.toMatch(/petstore_/);
  });
});

describe("keys history lists every change with who made it and when", () => {
  it("names the OS user locally, for all keys or one", () => {
    const { keyId } = issueKey(dataDir);
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
});

describe("every answer of the command names the store it used", () => {
  it("create, list, update, rotate, revoke and history alike", () => {
    const { keyId } = issueKey(dataDir);
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
    for (const run of runs) expect(run.stdout).toMatch(/table petstore-local/);
    expect(keysCommand(dataDir, "create").stdout).toMatch(/issued in .*table petstore-local/);
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
