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
import { listCategoriesDeps } from "../../functions/listCategories/deps.ts";
import { listCategoriesHandler } from "../../functions/listCategories/handler.ts";
import { generateKey } from "../../lib/keyFormat.ts";
import { ApiKeyStore } from "../../lib/repositories/apiKeys.ts";
import { lambdaContext } from "../../local/apiGateway.ts";
import { localFunctionEnv } from "../../local/functionEnv.ts";
import { withKey } from "../support/hostile/handlerRig.ts";
import { soon, useEmbeddedDynamo } from "../support/dynamo.ts";
import { divertEmfLines } from "../support/emf.ts";
import type { RecordingProxy } from "../support/recordingDynamoProxy.ts";
import { startRecordingProxy } from "../support/recordingDynamoProxy.ts";

const store = useEmbeddedDynamo();
divertEmfLines();
let proxy: RecordingProxy;
let tableName: string;
let validKey: string;
const legacyKey = "petstore_issued-before-the-format-0123456789";

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

/**
 * Lists with each of `keys` in turn through one fresh container of `stage`: the statuses, the
 * store calls they made and how many of those read a key record.
 */
async function listWith(
  keys: readonly string[],
  stage = "local",
  env: Record<string, string> = {},
): Promise<{ statuses: Set<number>; calls: string[]; keyReads: number }> {
  const label = `request-${Math.random()}`;
  const deps = listCategoriesDeps({
    operation: "listCategories",
    env: { ...localFunctionEnv(proxy.endpoint, tableName), STAGE: stage, ...env },
    sink: () => undefined,
  });
  const handler = listCategoriesHandler(deps, scopeOf("listCategories"));
  const statuses = new Set<number>();
  proxy.label = label;
  for (const key of keys) {
    const response = await handler(withKey("list-ok.json", key), lambdaContext("list", 10));
    statuses.add(response.statusCode);
  }
  proxy.label = "setup";
  const mine = proxy.calls.filter((call) => call.label === label);
  const keyReads = mine.filter((c) => JSON.stringify(c.input).includes('"APIKEY"')).length;
  return { statuses, calls: mine.map((c) => c.operation), keyReads };
}

function mangled(key: string, at: number): string {
  return `${key.slice(0, at)}${key[at] === "x" ? "y" : "x"}${key.slice(at + 1)}`;
}

describe("a token that cannot be right for the stage gets 401 with no store read", () => {
  it.each([
    ["a mangled checksum", () => mangled(validKey, validKey.length - 2), "local"],
    ["a mangled random part", () => mangled(validKey, 20), "local"],
    // The key is stored, and right for local: a staging container never looks it up.
    ["a key that names another stage", () => validKey, "staging"],
    ["a stored key from before the format, on a deployed stage", () => legacyKey, "staging"],
  ])("%s", async (_, key, stage) => {
    expect(await listWith([key()], stage)).toMatchObject({ statuses: new Set([401]), calls: [] });
  });
});

describe("valid keys of either kind work, and cost a list what it cost before", () => {
  it("a key of the format and a key from before it make the same store calls", async () => {
    const formatted = await listWith([validKey]);
    const legacy = await listWith([legacyKey]);
    expect([...formatted.statuses, ...legacy.statuses]).toEqual([200, 200]);
    // One read of the key record (scopes come with it), then the rate limit's and the list's own.
    expect(formatted.calls[0]).toBe("GetItem");
    expect(formatted.keyReads).toBe(1);
    expect(legacy.calls).toEqual(formatted.calls);
  });

  it("on the local stage, an unknown key not of the format is looked up (one read, then 401)", async () => {
    const result = await listWith(["petstore_never-issued-key"]);
    expect(result).toMatchObject({ statuses: new Set([401]), calls: ["GetItem"] });
  });

  it("ALLOW_LEGACY_KEYS=true: a deployed stage still holding such keys looks them up", async () => {
    const result = await listWith([legacyKey], "staging", { ALLOW_LEGACY_KEYS: "true" });
    expect(result).toMatchObject({ statuses: new Set([200]), keyReads: 1 });
  });
});

describe("store reads per 1,000 junk requests to one container (docs/security.md)", () => {
  const junk = () => Array.from({ length: 1000 }, () => randomBytes(24).toString("base64url"));

  it.each([
    ["1,000 distinct tokens not of the format, on a deployed stage: no read", junk, 0],
    [
      "one token of the format (checksum right, never issued) 1,000 times in 5 s: one read",
      () => Array<string>(1000).fill(generateKey("staging")),
      1,
    ],
    [
      "1,000 distinct tokens of the format with a wrong checksum: no read",
      () => junk().map((random) => `petstore_staging_${random.replace(/[-_]/g, "x")}_000000`),
      0,
    ],
  ])("%s", async (_, tokens, reads) => {
    const result = await listWith(tokens(), "staging");
    expect(result.statuses).toEqual(new Set([401]));
    expect(result.calls).toHaveLength(reads);
  });
});
