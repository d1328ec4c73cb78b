/** API keys as the repository makes and keeps them: random tokens, stored as hashes only. */
import { describe, expect, it } from "vitest";
import { ApiKeyStore, generateApiKey, hashApiKey } from "../../../lib/repositories/apiKeys.ts";
import { ApiKeyVerifier, parseAuthorization } from "../../../lib/auth.ts";
import { ApiError } from "../../../lib/errors.ts";
import { soon, useEmbeddedDynamo } from "../../support/dynamo.ts";

describe("generated keys are random b64tokens and stored only as SHA-256", () => {
  it("makes keys of the contract format, with 256 random bits, that parse as Bearer tokens", () => {
    const keys = new Set(Array.from({ length: 200 }, generateApiKey));
    expect(keys.size).toBe(200);
    for (const key of keys) {
      expect(key).toMatch(/^petstore_local_[0-9A-Za-z]{43}_[0-9A-Za-z]{6}$/);
      expect(parseAuthorization(`Bearer ${key}`)).toEqual({ kind: "bearer", token: key });
    }
  });

  it("hashes to 64 hex characters that do not contain the key", () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).not.toContain(key.slice(9, 20));
  });
});

describe("API key records live in the table as hashes only", () => {
  const store = useEmbeddedDynamo();

  it("issues, finds by hash, lists and revokes without ever storing the key", async () => {
    const table = await store.newTable();
    const keys = new ApiKeyStore(store.db, table);
    const { apiKey, record } = await keys.issue(
      "partner",
      new Date("2030-01-01T00:00:00Z"),
      soon(),
    );
    expect(await keys.find(hashApiKey(apiKey), soon())).toEqual(record);
    expect(await keys.list(soon())).toEqual([record]);
    const raw: { Items: unknown[] } = await store.db.call("Scan", { TableName: table }, soon());
    expect(JSON.stringify(raw)).not.toContain(apiKey);
    expect(await keys.revoke(record.keyId, soon())).toBe(true);
    expect((await keys.find(hashApiKey(apiKey), soon()))?.revokedAt).toBeDefined();
    expect(await keys.revoke("key_unknown", soon())).toBe(false);
  });

  it("verifies a real key end to end and refuses it after revocation once the cache lapses", async () => {
    const table = await store.newTable();
    const keys = new ApiKeyStore(store.db, table);
    const { apiKey, record } = await keys.issue("t", undefined, soon());
    let now = Date.now();
    const verifier = new ApiKeyVerifier(keys, () => now, 30_000);
    await expect(verifier.authenticate(`Bearer ${apiKey}`, soon())).resolves.toMatchObject({
      keyId: record.keyId,
    });
    await keys.revoke(record.keyId, soon());
    now += 30_000;
    await expect(verifier.authenticate(`Bearer ${apiKey}`, soon())).rejects.toBeInstanceOf(
      ApiError,
    );
  });
});
