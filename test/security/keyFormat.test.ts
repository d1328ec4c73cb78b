/**
 * A key of the contract's format whose checksum fails, or that names another stage, is refused
 * with 401 and no store read: counted through the store proxy (local/storeProxy.ts) between the
 * function's real DynamoDB client and the embedded store (dynalite, or DynamoDB Local with
 * PETSTORE_STORE=dynamodb-local). So is a token not of the format at all on a stage that does not
 * allow keys from before it (every deployed stage unless ALLOW_LEGACY_KEYS). And a valid key of
 * either kind costs a list what it did.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { scopeOf } from "../support/handlers.ts";
import { listCategoriesHandler } from "../../functions/listCategories/handler.ts";
import type { HttpEvent } from "../../lib/http/message.ts";
import { generateKey } from "../../lib/keyFormat.ts";
import { ApiKeyStore } from "../../lib/repositories/apiKeys.ts";
import { lambdaContext } from "../../local/apiGateway.ts";
import { localFunctionEnv } from "../../local/functionEnv.ts";
import { loadEvent } from "../functions/harness.ts";
import { soon, useEmbeddedDynamo } from "../support/dynamo.ts";
import { divertEmfLines } from "../support/emf.ts";
import type { RecordingProxy } from "../support/recordingDynamoProxy.ts";
import { startRecordingProxy } from "../support/recordingDynamoProxy.ts";
import { listCategoriesDeps } from "../../functions/listCategories/deps.ts";

const store = useEmbeddedDynamo();
divertEmfLines();
let proxy: RecordingProxy;
let tableName: string;
let validKey: string;
const legacyKey = "petstore_issued-before-the-format-0123456789";
/** Of staging's format, checksum right, never stored. */
const neverIssued = generateKey("staging");

beforeAll(async () => {
  proxy = await startRecordingProxy(store.endpoint);
});
afterAll(async () => {
  await proxy.close();
});
beforeEach(async () => {
  tableName = await store.newTable();
  const keys = new ApiKeyStore(store.db, tableName);
  validKey = (await keys.issue("format", soon())).apiKey;
  await keys.issue("legacy", soon(), { apiKey: legacyKey });
});

/** Lists with `key` through a fresh container of the given stage; the store calls it made. */
async function listWith(
  key: string,
  stage = "local",
  env: Record<string, string> = {},
): Promise<{ status: number; calls: string[]; keyReads: number }> {
  const label = `request-${Math.random()}`;
  const deps = listCategoriesDeps({
    operation: "listCategories",
    env: { ...localFunctionEnv(proxy.endpoint, tableName), STAGE: stage, ...env },
    sink: () => undefined,
  });
  const event: HttpEvent = loadEvent("list-ok.json");
  event.headers.authorization = `Bearer ${key}`;
  proxy.label = label;
  const response = await listCategoriesHandler(deps, scopeOf("listCategories"))(
    event,
    lambdaContext("listCategories", 10),
  );
  proxy.label = "setup";
  const mine = proxy.calls.filter((call) => call.label === label);
  const calls = mine.map((c) => c.operation);
  const keyReads = mine.filter((c) => JSON.stringify(c.input).includes('"APIKEY"')).length;
  return { status: response.statusCode, calls, keyReads };
}

function mangled(key: string, at: number): string {
  const c = key[at] === "x" ? "y" : "x";
  return `${key.slice(0, at)}${c}${key.slice(at + 1)}`;
}

describe("a key of the format that cannot be right gets 401 with no store read", () => {
  it("refuses a mangled checksum with zero store calls", async () => {
    const result = await listWith(mangled(validKey, validKey.length - 2));
    expect(result).toMatchObject({ status: 401, calls: [] });
  });

  it("refuses a mangled random part with zero store calls", async () => {
    const result = await listWith(mangled(validKey, 20));
    expect(result).toMatchObject({ status: 401, calls: [] });
  });

  it("refuses a key that names another stage with zero store calls", async () => {
    // The key is stored, and right for local: a staging container never looks it up.
    const result = await listWith(validKey, "staging");
    expect(result).toMatchObject({ status: 401, calls: [] });
  });
});

describe("valid keys of either kind work, and cost a list what it cost before", () => {
  it("a key of the format and a key from before it make the same store calls", async () => {
    const formatted = await listWith(validKey);
    const legacy = await listWith(legacyKey);
    expect(formatted.status).toBe(200);
    expect(legacy.status).toBe(200);
    // One read of the key record (scopes come with it), then the rate limit's and the list's own.
    expect(formatted.calls[0]).toBe("GetItem");
    expect(formatted.keyReads).toBe(1);
    expect(legacy.calls).toEqual(formatted.calls);
  });

  it("on the local stage, an unknown key not of the format is looked up (one read, then 401)", async () => {
    const result = await listWith("petstore_never-issued-key");
    expect(result).toMatchObject({ status: 401, calls: ["GetItem"] });
  });
});

describe("strangers cost no store read: a token not of the stage's format is refused unread", () => {
  it("on a deployed stage, a stored key from before the format gets 401 with zero store calls", async () => {
    const result = await listWith(legacyKey, "staging");
    expect(result).toMatchObject({ status: 401, calls: [] });
  });

  it("ALLOW_LEGACY_KEYS=true: a deployed stage still holding such keys looks them up", async () => {
    const result = await listWith(legacyKey, "staging", { ALLOW_LEGACY_KEYS: "true" });
    expect(result.status).toBe(200);
    expect(result.keyReads).toBe(1);
  });
});

/** `tokens` sent one after another to one container of `stage`: the key reads they cost. */
async function keyReadsOf(tokens: readonly string[], stage: string): Promise<number> {
  const label = `junk-${Math.random()}`;
  const deps = listCategoriesDeps({
    operation: "listCategories",
    env: { ...localFunctionEnv(proxy.endpoint, tableName), STAGE: stage },
    sink: () => undefined,
  });
  const handler = listCategoriesHandler(deps, scopeOf("listCategories"));
  proxy.label = label;
  for (const token of tokens) {
    const event: HttpEvent = loadEvent("list-ok.json");
    event.headers.authorization = `Bearer ${token}`;
    const response = await handler(event, lambdaContext("listCategories", 10));
    expect(response.statusCode).toBe(401);
  }
  proxy.label = "setup";
  return proxy.calls.filter((call) => call.label === label).length;
}

describe("store reads per 1,000 junk requests to one container (docs/security.md)", () => {
  const junk = (n: number) =>
    Array.from({ length: n }, () => randomBytes(24).toString("base64url"));

  it("1,000 distinct tokens not of the format, on a deployed stage: no read", async () => {
    expect(await keyReadsOf(junk(1000), "staging")).toBe(0);
  });

  it("one token of the format (checksum right, never issued) 1,000 times in 5 s: one read", async () => {
    expect(
      await keyReadsOf(
        Array.from({ length: 1000 }, () => neverIssued),
        "staging",
      ),
    ).toBe(1);
  });

  it("1,000 distinct tokens of the format with a wrong checksum: no read", async () => {
    const wrong = junk(1000).map(
      (random) => `petstore_staging_${random.replace(/[-_]/g, "x")}_000000`,
    );
    expect(await keyReadsOf(wrong, "staging")).toBe(0);
  });
});
