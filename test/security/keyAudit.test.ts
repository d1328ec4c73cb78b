/**
 * No key change without its event (lib/repositories/apiKeys.ts, keyEvents.ts): issue, update,
 * rotate and revoke write the change and its audit event together, in one transaction where the
 * store has them (DynamoDB Local here) and, on dynalite, event first (marked intended), change
 * second. Whichever write fails, the table never holds a change without its event. Runs on both
 * emulators (PETSTORE_STORE=dynamodb-local).
 */
import { describe, expect, it } from "vitest";
import type { DynamoDb } from "../../lib/dynamodb.ts";
import { ApiKeyStore, hashApiKey } from "../../lib/repositories/apiKeys.ts";
import { KeyEventStore } from "../../lib/repositories/keyEvents.ts";
import { DynamoDbError } from "../../lib/table/errors.ts";
import { soon, storeEngine, useEmbeddedDynamo } from "../support/dynamo.ts";
import { made } from "../support/rotations.ts";

const store = useEmbeddedDynamo();
const who = "local:auditor";

/**
 * Whether a request writes an item of this partition, alone or inside a transaction (which
 * dynalite refuses as an unknown operation before any permission could: it goes through).
 */
function writesTo(operation: string, input: object, partition: string): boolean {
  if (operation === "TransactWriteItems" && storeEngine === "dynalite") return false;
  const body = JSON.stringify(input);
  return /Put|Update|Delete|Transact/.test(operation) && body.includes(`{"S":"${partition}"}`);
}

/** The store's client, refusing (AccessDenied, not retried) every write that touches `partition`. */
function refusingWritesTo(partition: string): DynamoDb {
  return new Proxy(store.db, {
    get(target, name, receiver): unknown {
      if (name !== "call") return Reflect.get(target, name, receiver) as unknown;
      return (operation: string, input: object, deadline: number): Promise<unknown> =>
        writesTo(operation, input, partition)
          ? Promise.reject(new DynamoDbError("AccessDeniedException", 400, "refused by the test"))
          : target.call(operation, input, deadline);
    },
  });
}

/** A clock a millisecond on at every reading: the trail sorts by time, and one moment has no order. */
const ticking = (): (() => number) => {
  let at = Date.now();
  return () => (at += 1);
};

async function setUp(now = ticking()) {
  const table = await store.newTable();
  return {
    table,
    keys: new ApiKeyStore(store.db, table, now, who),
    events: new KeyEventStore(store.db, table),
  };
}

describe("every key change is written with its event, naming who made it", () => {
  it("issue, update, rotate and revoke each leave exactly one event, in order", async () => {
    const { keys, events } = await setUp();
    const { record } = await keys.issue("partner", soon(), { scopes: ["categories:read"] });
    await keys.update(record.keyId, { rateLimit: { rate: "5/s", burst: 10 } }, soon());
    const rotation = made(await keys.rotate(record.keyId, 60_000, soon()));
    await keys.revoke(rotation.issued.record.keyId, soon());
    const trail = await events.list(undefined, soon());
    expect(trail.map((event) => [event.event, event.keyId])).toEqual([
      ["create", record.keyId],
      ["update", record.keyId],
      ["rotate", record.keyId],
      ["revoke", rotation.issued.record.keyId],
    ]);
    expect(trail.every((event) => event.who === who && !event.intended)).toBe(true);
    expect(trail[0]?.detail).toBe("label partner, scopes categories:read");
    expect(trail[1]?.detail).toBe("rate limit 5/s, burst 10");
    expect(trail[2]?.detail).toBe(
      `new key ${rotation.issued.record.keyId}, old one expires ${rotation.previous.expiresAt ?? ""}`,
    );
  });

  it("an update of scopes and limit together says both", async () => {
    const { keys, events } = await setUp();
    const { record } = await keys.issue("t", soon());
    const changes = { scopes: ["categories:write"] as const, rateLimit: { rate: "1/s", burst: 2 } };
    await keys.update(record.keyId, changes, soon());
    const [, update] = await events.list(record.keyId, soon());
    expect(update?.detail).toBe("scopes categories:write; rate limit 1/s, burst 2");
  });

  it("a second revoke of a key changes nothing and adds no event", async () => {
    const { keys, events } = await setUp();
    const { record } = await keys.issue("t", soon());
    expect(await keys.revoke(record.keyId, soon())).toBe(true);
    const first = (await keys.byId(record.keyId, soon()))?.revokedAt;
    expect(await keys.revoke(record.keyId, soon())).toBe(false);
    expect((await keys.byId(record.keyId, soon()))?.revokedAt).toBe(first);
    expect((await events.list(record.keyId, soon())).map((event) => event.event)).toEqual([
      "create",
      "revoke",
    ]);
  });
});

describe("an event that cannot be written stops its change", () => {
  it.each(["issue", "update", "rotate", "revoke"] as const)(
    "%s: the key is as it was when the event write is refused",
    async (change) => {
      const { table, keys } = await setUp();
      const { apiKey, record } = await keys.issue("t", soon());
      const before = await keys.list(soon());
      const blind = new ApiKeyStore(refusingWritesTo("KEYEVENT"), table, Date.now, who);
      const attempt = {
        issue: () => blind.issue("never", soon()),
        update: () => blind.update(record.keyId, { scopes: ["categories:read"] }, soon()),
        rotate: () => blind.rotate(record.keyId, 0, soon()),
        revoke: () => blind.revoke(record.keyId, soon()),
      }[change];
      await expect(attempt()).rejects.toThrow(/AccessDenied/);
      expect(await keys.list(soon())).toEqual(before);
      expect((await keys.find(hashApiKey(apiKey), soon()))?.revokedAt).toBeUndefined();
    },
  );
});

describe("a change that cannot be written leaves no event that claims it", () => {
  it("a refused key write: no key, and no event, or one marked intended where there are no transactions", async () => {
    const { table, keys, events } = await setUp();
    const blind = new ApiKeyStore(refusingWritesTo("APIKEY"), table, Date.now, who);
    await expect(blind.issue("never", soon())).rejects.toThrow(/AccessDenied/);
    expect(await keys.list(soon())).toEqual([]);
    const trail = await events.list(undefined, soon());
    // DynamoDB Local, like DynamoDB, has transactions: all or nothing. dynalite 4.0.0 has none:
    // the event went first and says the change was only intended.
    if (storeEngine === "dynalite") {
      expect(trail.map((event) => [event.event, event.intended])).toEqual([["create", true]]);
    } else {
      expect(trail).toEqual([]);
    }
  });
});

describe("the deploy hook revokes only keys it made, addressed by the key itself", () => {
  it("revokes its own key without reading any, and refuses another's", async () => {
    const { table, keys, events } = await setUp();
    const hook = new ApiKeyStore(store.db, table, Date.now, "lambda:petstore-test-hook");
    const own = await hook.issue("probe", soon());
    const other = await keys.issue("partner", soon());
    const otherAsProbe = { apiKey: other.apiKey, keyId: other.record.keyId };
    expect(await hook.revokeOwn(otherAsProbe, soon())).toBe(false);
    expect((await keys.byId(other.record.keyId, soon()))?.revokedAt).toBeUndefined();
    // The id must be the key's own: a stale id never revokes the key under that hash.
    expect(await hook.revokeOwn({ apiKey: own.apiKey, keyId: "key_000000000000" }, soon())).toBe(
      false,
    );
    expect(await hook.revokeOwn({ apiKey: own.apiKey, keyId: own.record.keyId }, soon())).toBe(
      true,
    );
    expect((await keys.byId(own.record.keyId, soon()))?.revokedAt).toBeDefined();
    expect(
      (await events.list(own.record.keyId, soon())).map((event) => [event.event, event.who]),
    ).toEqual([
      ["create", "lambda:petstore-test-hook"],
      ["revoke", "lambda:petstore-test-hook"],
    ]);
  });
});
