/**
 * Rotation and in-place changes (contract: "Keys: rotation"), on the real key store (dynalite,
 * or DynamoDB Local with PETSTORE_STORE=dynamodb-local) and one injected clock shared by the
 * store and the verifier: during the grace both keys work, after it only the new one; the new
 * key copies label, scopes and limit; a change reaches a container holding a cached verdict
 * within the cache time (30 s deployed, under the contract's 60 s).
 */
import { beforeEach, describe, expect, it } from "vitest";
import { ApiKeyVerifier } from "../../lib/auth.ts";
import { ApiKeyStore, hashApiKey, maxGraceMs } from "../../lib/repositories/apiKeys.ts";
import { KeyEventStore } from "../../lib/repositories/keyEvents.ts";
import { Table } from "../../lib/table/table.ts";
import { keys as tableKeys } from "../../lib/table/schema.ts";
import { soon, useEmbeddedDynamo } from "../support/dynamo.ts";
import { made } from "../support/rotations.ts";
import { accepted, contractLimitMs, start } from "../support/keyClock.ts";

const store = useEmbeddedDynamo();
const hour = 3_600_000;
const cacheMs = 30_000;
let now = start;
let keys: ApiKeyStore;
let verifier: ApiKeyVerifier;
let tableName: string;

beforeEach(async () => {
  now = start;
  tableName = await store.newTable();
  keys = new ApiKeyStore(store.db, tableName, () => now);
  verifier = new ApiKeyVerifier(keys, () => now, cacheMs);
});

describe("during a rotation's grace both keys work; after it only the new one", () => {
  it("keeps the old key for the grace (24 h by default in the command) and not a moment longer", async () => {
    const old = await keys.issue("partner-a", soon());
    expect(await accepted(verifier, old.apiKey)).toBe(true);
    const rotation = made(await keys.rotate(old.record.keyId, 24 * hour, soon()));
    const fresh = rotation.issued.apiKey;
    expect(rotation.previous.expiresAt).toBe(new Date(start + 24 * hour).toISOString());
    expect(await accepted(verifier, fresh)).toBe(true);
    expect(await accepted(verifier, old.apiKey)).toBe(true);
    now = start + 24 * hour - 1;
    expect(await accepted(verifier, old.apiKey)).toBe(true);
    expect(await accepted(verifier, fresh)).toBe(true);
    now = start + 24 * hour;
    expect(await accepted(verifier, old.apiKey)).toBe(false);
    expect(await accepted(verifier, fresh)).toBe(true);
  });

  it("reaches a container that cached the old key before the rotation within the cache time", async () => {
    const old = await keys.issue("partner-a", soon());
    expect(await accepted(verifier, old.apiKey)).toBe(true); // cached, with no expiry
    await keys.rotate(old.record.keyId, 0, soon());
    now = start + cacheMs;
    expect(await accepted(verifier, old.apiKey)).toBe(false);
    expect(cacheMs).toBeLessThan(contractLimitMs);
  });

  it("never gives more than 7 days, and never extends an earlier expiry", async () => {
    const open = await keys.issue("a", soon());
    const long = made(await keys.rotate(open.record.keyId, 30 * 24 * hour, soon()));
    expect(long.previous.expiresAt).toBe(new Date(start + maxGraceMs).toISOString());
    const soonExpiring = await keys.issue("b", soon(), { expiresAt: new Date(start + hour) });
    const rotated = made(await keys.rotate(soonExpiring.record.keyId, 24 * hour, soon()));
    expect(rotated.previous.expiresAt).toBe(new Date(start + hour).toISOString());
  });
});

describe("the new key is the old one's twin: label, scopes and rate limit", () => {
  it("copies every setting of the old record, and names the key it replaces", async () => {
    const old = await keys.issue("partner-b", soon(), { scopes: ["categories:read"] });
    // A per-key rate limit, as the rate limiter stores it: copied like any other setting.
    await new Table(store.db, tableName).update(
      tableKeys.apiKey(hashApiKey(old.apiKey)),
      { text: "SET rate = :r, burst = :b", values: { ":r": 5, ":b": 10 } },
      soon(),
    );
    now = start + hour;
    const rotation = made(await keys.rotate(old.record.keyId, hour, soon()));
    const record = rotation.issued.record;
    expect(record).toMatchObject({
      label: "partner-b",
      scopes: ["categories:read"],
      rotatedFrom: old.record.keyId,
      createdAt: new Date(start + hour).toISOString(),
    });
    expect(record.keyId).not.toBe(old.record.keyId);
    expect(record.expiresAt).toBeUndefined();
    const item = await new Table(store.db, tableName).get(
      tableKeys.apiKey(hashApiKey(rotation.issued.apiKey)),
      soon(),
    );
    expect(item).toMatchObject({ rate: { N: "5" }, burst: { N: "10" } });
    const principal = await verifier.authenticate(`Bearer ${rotation.issued.apiKey}`, soon());
    expect(principal.scopes).toEqual(["categories:read"]);
  });

  it("answers undefined for a key id that does not exist, and writes nothing", async () => {
    expect(await keys.rotate("key_000000000000", hour, soon())).toBeUndefined();
    expect(await keys.list(soon())).toEqual([]);
  });
});

describe("update changes a key's scopes in place, everywhere within the cache time", () => {
  it("a cached verdict keeps the old scopes for at most the cache time", async () => {
    const issued = await keys.issue("c", soon());
    const header = `Bearer ${issued.apiKey}`;
    expect((await verifier.authenticate(header, soon())).scopes).toEqual([
      "categories:read",
      "categories:write",
    ]);
    const updated = await keys.update(
      issued.record.keyId,
      { scopes: ["categories:write"] },
      soon(),
    );
    expect(updated).toMatchObject({ scopes: ["categories:write"] });
    now = start + cacheMs - 1;
    expect((await verifier.authenticate(header, soon())).scopes).toHaveLength(2);
    now = start + cacheMs;
    expect((await verifier.authenticate(header, soon())).scopes).toEqual(["categories:write"]);
  });

  it("answers undefined for an unknown key id", async () => {
    expect(await keys.update("key_000000000000", { scopes: [] }, soon())).toBeUndefined();
  });
});

describe("the store refuses to rotate or update a key that can no longer be used (a conditional write)", () => {
  const changes = { scopes: ["categories:read"], rateLimit: { rate: "5/s", burst: 5 } } as const;
  it.each([
    ["rotate", (keyId: string) => keys.rotate(keyId, hour, soon())],
    ["update", (keyId: string) => keys.update(keyId, changes, soon())],
  ] as const)(
    "a revoked key: %s refused, no new key, and the old key as it was",
    async (_, change) => {
      const old = await keys.issue("partner-c", soon());
      now += 1_000; // events of one moment have no order of their own (the trail sorts by time)
      await keys.revoke(old.record.keyId, soon());
      const before = await keys.list(soon());
      const refused = await change(old.record.keyId);
      expect(refused).toMatchObject({ refused: "revoked", record: { keyId: old.record.keyId } });
      expect(await keys.list(soon())).toEqual(before);
      // Nor an event for a change that was not made.
      const trail = await new KeyEventStore(store.db, tableName).list(old.record.keyId, soon());
      expect(trail.map((event) => event.event)).toEqual(["create", "revoke"]);
    },
  );

  it("an expired key: refused likewise", async () => {
    const old = await keys.issue("partner-d", soon(), { expiresAt: new Date(start + hour) });
    now = start + hour;
    const refused = await keys.rotate(old.record.keyId, hour, soon());
    expect(refused).toMatchObject({ refused: "expired" });
    expect(await keys.list(soon())).toHaveLength(1);
  });

  it("a key revoked between the rotation's read and its write: refused, not rotated", async () => {
    const old = await keys.issue("partner-e", soon());
    const hash = hashApiKey(old.apiKey);
    // The revoke lands just after the rotation has read the key (its Query), before it writes.
    const racing = new Proxy(store.db, {
      get(target, name, receiver): unknown {
        if (name !== "call") return Reflect.get(target, name, receiver) as unknown;
        return async (operation: string, input: object, deadline: number): Promise<unknown> => {
          const answer = await target.call(operation, input, deadline);
          if (operation === "Query")
            await new Table(target, tableName).update(
              tableKeys.apiKey(hash),
              { text: "SET revokedAt = :at", values: { ":at": new Date(now).toISOString() } },
              deadline,
            );
          return answer;
        };
      },
    });
    const rotating = new ApiKeyStore(racing, tableName, () => now);
    expect(await rotating.rotate(old.record.keyId, hour, soon())).toMatchObject({
      refused: "revoked",
    });
    expect((await keys.list(soon())).map((record) => record.keyId)).toEqual([old.record.keyId]);
  });
});

describe("the store refuses to update a key past its expiry, not a moment before", () => {
  it("one still valid a moment before its expiry is updated; at its expiry, refused", async () => {
    const old = await keys.issue("partner-h", soon(), { expiresAt: new Date(start + hour) });
    now = start + hour - 1;
    expect(
      await keys.update(old.record.keyId, { scopes: ["categories:read"] }, soon()),
    ).toMatchObject({ scopes: ["categories:read"] });
    now = start + hour;
    expect(await keys.update(old.record.keyId, { scopes: [] }, soon())).toMatchObject({
      refused: "expired",
      record: { scopes: ["categories:read"] },
    });
  });
});

describe("a rotated pair shares one rate limit bucket during the grace window", () => {
  it("both keys count against the old key's bucket, and so does a rotation of the new one", async () => {
    const old = await keys.issue("partner-f", soon());
    const first = made(await keys.rotate(old.record.keyId, hour, soon()));
    const second = made(await keys.rotate(first.issued.record.keyId, hour, soon()));
    const bucketOf = async (apiKey: string) =>
      (await verifier.authenticate(`Bearer ${apiKey}`, soon())).bucket;
    expect(await bucketOf(old.apiKey)).toBe(old.record.keyId);
    expect(await bucketOf(first.issued.apiKey)).toBe(old.record.keyId);
    expect(await bucketOf(second.issued.apiKey)).toBe(old.record.keyId);
    // A key never rotated has a bucket of its own.
    const other = await keys.issue("partner-g", soon());
    expect(await bucketOf(other.apiKey)).toBe(other.record.keyId);
  });
});
