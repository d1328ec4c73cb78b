/**
 * Per-key rate limits over HTTP, on the local server (the same bundles and limiter as deployed):
 * the headers on every answer to a valid key (parsed as RFC 9651 Structured Fields by the
 * `structured-headers` library), 429 in the contract's order of checks, and the operator's
 * `keys create|update --rate … --burst …` and `keys list`, effective within the key cache time
 * (here 1 s; 30 s deployed, always under the contract's 60 s). The printed key has the server's
 * default (RATE_LIMIT / RATE_LIMIT_BURST, here 1/min with a burst of 3).
 */
import { join } from "node:path";
import { parseList } from "structured-headers";
import { describe, expect, it } from "vitest";
import type { Answer } from "../support/client.ts";
import { send } from "../support/client.ts";
import type { CommandRun } from "../support/keysCli.ts";
import { issueKey, keysCommand } from "../support/keysCli.ts";
import { localServer } from "../support/localServer.ts";
import { scratchDir } from "../support/scratchDir.ts";

const dataDir = join(scratchDir("petstore-ratelimit-"), "dynamodb");
const server = await localServer({
  dataDir,
  env: { API_KEY_CACHE_SECONDS: "1", RATE_LIMIT: "1/min", RATE_LIMIT_BURST: "3" },
});

const keys = (...args: string[]): CommandRun => keysCommand(dataDir, ...args);
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** A request, its answer checked against openapi.yaml (as every answer of the test client). */
function call(key: string | null, method = "GET", path = "/v1/categories", body?: string) {
  const headers = { "content-type": "application/json" };
  return send(server.baseUrl, { method, path, key, ...(body !== undefined && { body, headers }) });
}

/** Both fields, parsed by the library: one member, the String "default", Integer parameters. */
function rateLimitFields(answer: Answer) {
  const policy = parseList(answer.headers["ratelimit-policy"] ?? "");
  const state = parseList(answer.headers.ratelimit ?? "");
  expect(policy).toHaveLength(1);
  expect(state).toHaveLength(1);
  const [[policyName, policyParams]] = policy as [[unknown, Map<string, unknown>]];
  const [[stateName, stateParams]] = state as [[unknown, Map<string, unknown>]];
  expect(policyName).toBe("default");
  expect(stateName).toBe("default");
  for (const value of [...policyParams.values(), ...stateParams.values()]) {
    expect(Number.isInteger(value)).toBe(true);
    expect(value as number).toBeGreaterThanOrEqual(0);
  }
  return {
    q: policyParams.get("q") as number,
    w: policyParams.get("w") as number,
    r: stateParams.get("r") as number,
    t: stateParams.get("t") as number,
  };
}

describe("every answer to a request with a valid key carries RateLimit-Policy and RateLimit", () => {
  it("on a 200, a 400, a 501 and a 429 alike; never on a 401", async () => {
    const { key } = issueKey(dataDir, "--rate", "6/min", "--burst", "4");
    const ok = await call(key);
    expect(ok.status).toBe(200);
    expect(rateLimitFields(ok)).toEqual({ q: 6, w: 60, r: 3, t: 10 });
    const invalid = await call(key, "POST", "/v1/categories", "{}");
    expect(invalid.status).toBe(400);
    expect(rateLimitFields(invalid).r).toBe(2);
    const pets = await call(key, "GET", "/v1/pets/1");
    expect(pets.status).toBe(501);
    expect(rateLimitFields(pets).q).toBe(6);
    await call(key);
    const limited = await call(key);
    expect(limited.status).toBe(429);
    expect(rateLimitFields(limited)).toMatchObject({ q: 6, r: 0 });
    const unauthorized = await call(null);
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers["ratelimit-policy"]).toBeUndefined();
    expect(unauthorized.headers.ratelimit).toBeUndefined();
  });
});

describe("over the limit: 429 rate_limited with Retry-After, after authentication and before the body", () => {
  it("the printed key has the server's default; a bad body over the limit is 429, no key is 401", async () => {
    const key = server.apiKey;
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push((await call(key)).status);
    expect(answers).toEqual([200, 200, 200]);
    const limited = await call(key, "POST", "/v1/categories", "{not json");
    expect(limited).toBeApiError(429, "rate_limited");
    const retryAfter = Number(limited.headers["retry-after"]);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(rateLimitFields(limited)).toMatchObject({ q: 1, w: 60 });
    expect((await call(null, "POST", "/v1/categories", "{not json")).status).toBe(401);
    expect((await call("petstore_unknown-key", "GET")).status).toBe(401);
  });
});

describe("an operator sets a key's limit without a redeploy", () => {
  it("create --rate/--burst, list shows it, update raises it within the cache time", async () => {
    const { key, keyId } = issueKey(dataDir, "--rate", "1/min", "--burst", "1");
    expect(keys("list").stdout).toMatch(new RegExp(`${keyId}.*rate limit: 1/min, burst 1`));
    expect((await call(key)).status).toBe(200);
    expect((await call(key)).status).toBe(429);
    const updated = keys("update", keyId, "--rate", "100/s", "--burst", "50");
    expect(updated.status).toBe(0);
    expect(keys("list").stdout).toMatch(new RegExp(`${keyId}.*rate limit: 100/s, burst 50`));
    await sleep(1100);
    // The container waits out the wait it computed for the old limit at most once more.
    let status = 429;
    for (let i = 0; i < 40 && status === 429; i++) {
      status = (await call(key)).status;
      if (status === 429) await sleep(100);
    }
    expect(status).toBe(200);
  });

  it("refuses a half limit or a malformed one with one line", () => {
    for (const args of [
      ["create", "--rate", "50/s"],
      ["create", "--burst", "5"],
      ["create", "--rate", "50/hour", "--burst", "5"],
      ["update", "key_000000000000"],
      ["create", "--rate", "50/s", "--burst", "0"],
    ]) {
      const run = keys(...args);
      expect(run.status).toBe(2);
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
    }
  });

  it("keys list shows the stage default for keys without a limit of their own", () => {
    const { keyId } = issueKey(dataDir);
    expect(keys("list").stdout).toMatch(new RegExp(`${keyId}.*rate limit: stage default`));
  });
});

describe("a rotated pair shares one bucket: the grace window does not double the quota", () => {
  it("the old and the new key spend the same burst of 3", async () => {
    const { key: old, keyId } = issueKey(dataDir);
    expect((await call(old)).status).toBe(200);
    expect((await call(old)).status).toBe(200);
    const rotated = keys("rotate", keyId, "--grace", "1h");
    expect(rotated.status).toBe(0);
    const fresh = /^(petstore_\S+)$/m.exec(rotated.stdout)?.[1] ?? "";
    expect((await call(fresh)).status).toBe(200);
    expect((await call(fresh)).status).toBe(429);
    expect((await call(old)).status).toBe(429);
  });
});
