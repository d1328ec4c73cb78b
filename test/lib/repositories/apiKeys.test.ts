/** API keys as the repository makes and keeps them: random tokens, stored as hashes only. */
import { describe, expect, it } from "vitest";
import { ApiKeyStore, hashApiKey } from "../../../lib/repositories/apiKeys.ts";
import { generateKey } from "../../../lib/keyFormat.ts";
import { ApiKeyVerifier } from "../../../lib/auth.ts";
import { ApiError } from "../../../lib/errors.ts";
import { allScopes } from "../../../lib/scopes.ts";
import { keys as tableKeys } from "../../../lib/table/schema.ts";
import { Table } from "../../../lib/table/table.ts";
import { soon, useEmbeddedDynamo } from "../../support/dynamo.ts";
import { made } from "../../support/rotations.ts";

const store = useEmbeddedDynamo();
/** A key store on a fresh table; `now`: its clock. */
const keyStore = async (now?: () => number) =>
  new ApiKeyStore(store.db, await store.newTable(), now);

describe("keys are stored only as SHA-256", () => {
  it("hashes to 64 hex characters that do not contain the key", () => {
    const key = generateKey("local");
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).not.toContain(key.slice(9, 20));
  });
});

describe("API key records live in the table as hashes only", () => {
  it("issues, finds by hash, lists and revokes without ever storing the key", async () => {
    const table = await store.newTable();
    const keys = new ApiKeyStore(store.db, table);
    const { apiKey, record } = await keys.issue("partner", soon(), {
      expiresAt: new Date("2030-01-01T00:00:00Z"),
    });
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
    const { apiKey, record } = await keys.issue("t", soon());
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

describe("a key made only to be used and revoked at once may be removed by the table's TTL", () => {
  it("stores removeAt as the ttl attribute (epoch seconds); other keys have none", async () => {
    const table = await store.newTable();
    const keys = new ApiKeyStore(store.db, table);
    const removeAt = new Date("2031-01-08T00:00:00.900Z");
    await keys.issue("check", soon(), { removeAt });
    await keys.issue("partner", soon());
    const raw: { Items: { label?: { S: string }; ttl?: { N: string } }[] } = await store.db.call(
      "Scan",
      { TableName: table },
      soon(),
    );
    // The keys' records only (their events carry no label).
    const records = raw.Items.filter((item) => item.label !== undefined);
    const ttls = new Map(records.map((item) => [item.label?.S, item.ttl?.N]));
    expect(ttls.get("check")).toBe(String(Date.parse("2031-01-08T00:00:00Z") / 1000));
    expect(ttls.has("partner")).toBe(true);
    expect(ttls.get("partner")).toBeUndefined();
  });
});

describe("an operator finds a key by its id (keys update, rotate, revoke name keys by id)", () => {
  it("answers the record of the key with that id, and nothing for an id no key has", async () => {
    const keys = await keyStore();
    await keys.issue("first", soon());
    const { record } = await keys.issue("second", soon(), {
      expiresAt: new Date("2031-02-03T04:05:06Z"),
      scopes: ["categories:read"],
    });
    await keys.issue("third", soon());
    expect(await keys.byId(record.keyId, soon())).toEqual(record);
    expect(await keys.byId("key_000000000000", soon())).toBeUndefined();
  });
});

describe("an operator sets a key's own rate limit in place (contract: Rate limits, keys update)", () => {
  it("stores the rate and burst on that key only, and the key keeps working", async () => {
    const keys = await keyStore();
    const { apiKey, record } = await keys.issue("limited", soon());
    const other = await keys.issue("other", soon());
    const limit = { rate: "600/min", burst: 20 };
    const updated = await keys.update(record.keyId, { rateLimit: limit }, soon());
    expect(updated).toEqual({ ...record, ...limit });
    expect(await keys.find(hashApiKey(apiKey), soon())).toEqual({
      ...record,
      rate: "600/min",
      burst: 20,
    });
    expect(await keys.find(hashApiKey(other.apiKey), soon())).toEqual(other.record);
    const verifier = new ApiKeyVerifier(keys, Date.now, 0);
    await expect(verifier.authenticate(`Bearer ${apiKey}`, soon())).resolves.toMatchObject({
      keyId: record.keyId,
      rateLimit: { rate: "600/min", perSecond: 10, burst: 20 },
    });
  });

  it("changes scopes and the rate limit together in one call, and nothing else", async () => {
    const keys = await keyStore();
    const { apiKey, record } = await keys.issue("both", soon(), {
      expiresAt: new Date("2031-01-01"),
    });
    const changes = { scopes: ["categories:read"], rateLimit: { rate: "5/s", burst: 7 } } as const;
    const expected = { ...record, scopes: ["categories:read"], rate: "5/s", burst: 7 };
    expect(await keys.update(record.keyId, changes, soon())).toEqual(expected);
    expect(await keys.find(hashApiKey(apiKey), soon())).toEqual(expected);
  });

  it("an update naming no change answers the record as it was", async () => {
    const keys = await keyStore();
    const { record } = await keys.issue("t", soon(), { scopes: ["categories:write"] });
    expect(await keys.update(record.keyId, {}, soon())).toEqual(record);
  });

  it("answers nothing and stores nothing when no key has that id", async () => {
    const table = await store.newTable();
    const keys = new ApiKeyStore(store.db, table);
    const { record } = await keys.issue("only", soon());
    const limit = { rate: "5/s", burst: 5 };
    expect(await keys.update("key_000000000000", { rateLimit: limit }, soon())).toBeUndefined();
    expect(await keys.list(soon())).toEqual([record]);
  });
});

describe("keys list shows every key, oldest first", () => {
  it("orders by creation time, not by the stored hash", async () => {
    let now = Date.parse("2026-03-01T12:00:00.000Z");
    const keys = await keyStore(() => now);
    // Issued in descending hash order, so the table's own order is the reverse of creation.
    const tokens = Array.from({ length: 5 }, (_, i) => `legacy-token-${i}`).sort((a, b) =>
      hashApiKey(b).localeCompare(hashApiKey(a)),
    );
    const issued = [];
    for (const token of tokens) {
      issued.push((await keys.issue(token, soon(), { apiKey: token })).record);
      now += 1000;
    }
    expect(await keys.list(soon())).toEqual(issued);
  });
});

describe("a key record from before labels and scopes still reads (contract: older keys keep working)", () => {
  it("an item holding only the key's hash reads with every scope, empty texts and no limit", async () => {
    const table = await store.newTable();
    const key = "pre-format-key";
    await new Table(store.db, table).put(tableKeys.apiKey(hashApiKey(key)), {}, soon());
    expect(await new ApiKeyStore(store.db, table).find(hashApiKey(key), soon())).toEqual({
      keyId: "",
      label: "",
      createdAt: "",
      expiresAt: undefined,
      revokedAt: undefined,
      scopes: allScopes,
      rotatedFrom: undefined,
      rate: undefined,
      burst: undefined,
      createdBy: undefined,
      bucket: "",
    });
  });

  it("a key stored before buckets were kept is its own bucket: its id", async () => {
    const table = await store.newTable();
    const key = "key-before-buckets";
    const item = { keyId: "key_0123abcd4567", label: "old", createdAt: "2026-01-01T00:00:00Z" };
    await new Table(store.db, table).put(tableKeys.apiKey(hashApiKey(key)), item, soon());
    const found = await new ApiKeyStore(store.db, table).find(hashApiKey(key), soon());
    expect(found?.bucket).toBe("key_0123abcd4567");
  });
});

describe("revoking twice keeps the first revocation time", () => {
  it("a second revoke answers false and leaves revokedAt as the first one set it", async () => {
    let now = Date.parse("2026-03-01T12:00:00.000Z");
    const keys = await keyStore(() => now);
    const { apiKey, record } = await keys.issue("t", soon());
    expect(await keys.revoke(record.keyId, soon())).toBe(true);
    now += 60_000;
    expect(await keys.revoke(record.keyId, soon())).toBe(false);
    expect((await keys.find(hashApiKey(apiKey), soon()))?.revokedAt).toBe(
      "2026-03-01T12:00:00.000Z",
    );
  });
});

describe("new keys name the stage they are issued for (contract: Keys: format)", () => {
  it("issue and rotate make keys of the given stage, local by default", async () => {
    const keys = await keyStore();
    const local = await keys.issue("l", soon());
    expect(local.apiKey).toMatch(/^petstore_local_/);
    const prod = await keys.issue("p", soon(), { stage: "prod" });
    expect(prod.apiKey).toMatch(/^petstore_prod_/);
    const rotated = made(await keys.rotate(prod.record.keyId, 0, soon(), "prod"));
    expect(rotated.issued.apiKey).toMatch(/^petstore_prod_/);
    expect(made(await keys.rotate(local.record.keyId, 0, soon())).issued.apiKey).toMatch(
      /^petstore_local_/,
    );
  });
});

describe("a rotation's new key copies the old one's settings but not its times or revocation", () => {
  it("an old key due to expire after the grace expires at the grace's end instead", async () => {
    const now = Date.parse("2026-03-01T12:00:00.000Z");
    const keys = await keyStore(() => now);
    const old = await keys.issue("t", soon(), { expiresAt: new Date(now + 30 * 86_400_000) });
    const rotation = made(await keys.rotate(old.record.keyId, 3_600_000, soon()));
    expect(rotation.previous.expiresAt).toBe("2026-03-01T13:00:00.000Z");
    expect((await keys.find(hashApiKey(old.apiKey), soon()))?.expiresAt).toBe(
      "2026-03-01T13:00:00.000Z",
    );
    // The new key keeps the old one's own expiry: a rotation never extends a key's life.
    expect(rotation.issued.record.expiresAt).toBe(old.record.expiresAt);
  });

  it("copies an attribute of another type than string or number without failing", async () => {
    const table = await store.newTable();
    const keys = new ApiKeyStore(store.db, table);
    const old = await keys.issue("t", soon());
    await store.db.call(
      "UpdateItem",
      {
        TableName: table,
        Key: {
          pk: { S: tableKeys.apiKey(hashApiKey(old.apiKey)).pk },
          sk: { S: hashApiKey(old.apiKey) },
        },
        UpdateExpression: "SET flagged = :f",
        ExpressionAttributeValues: { ":f": { BOOL: true } },
      },
      soon(),
    );
    const rotation = made(await keys.rotate(old.record.keyId, 0, soon()));
    expect(rotation.issued.record).toMatchObject({ label: "t", rotatedFrom: old.record.keyId });
    expect(await keys.find(hashApiKey(rotation.issued.apiKey), soon())).toEqual(
      rotation.issued.record,
    );
  });
});

describe("a key is found by id however the store pages its answer", () => {
  it("reads on past pages that hold no match (the id filter applies after each page)", async () => {
    const table = await store.newTable();
    // One item a page: the pages before the key's own are empty after the filter.
    const onePerPage = new Proxy(store.db, {
      get(target, name, receiver): unknown {
        if (name !== "call") return Reflect.get(target, name, receiver) as unknown;
        return (operation: string, input: object, deadline: number): Promise<unknown> =>
          target.call(operation, operation === "Query" ? { ...input, Limit: 1 } : input, deadline);
      },
    });
    const keys = new ApiKeyStore(onePerPage, table);
    const tokens = Array.from({ length: 4 }, (_, i) => `paged-token-${i}`).sort((a, b) =>
      hashApiKey(a).localeCompare(hashApiKey(b)),
    );
    const issued = [];
    for (const token of tokens)
      issued.push((await keys.issue(token, soon(), { apiKey: token })).record);
    const last = issued[issued.length - 1];
    if (!last) throw new Error("no key issued");
    expect(await keys.byId(last.keyId, soon())).toEqual(last);
    expect(await keys.revoke(last.keyId, soon())).toBe(true);
    expect(
      (await keys.find(hashApiKey(tokens[tokens.length - 1] ?? ""), soon()))?.revokedAt,
    ).toBeDefined();
  });
});
