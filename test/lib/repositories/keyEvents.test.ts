/**
 * The API keys' audit trail (contract: "Keys: audit"): each key event (create, rotate, update,
 * revoke) is recorded in the stage's table with who made it and when; `keys history [keyId]`
 * lists them, oldest first (lib/repositories/keyEvents.ts).
 */
import { describe, expect, it } from "vitest";
import { KeyEventStore } from "../../../lib/repositories/keyEvents.ts";
import { partitions } from "../../../lib/table/schema.ts";
import { Table } from "../../../lib/table/table.ts";
import { soon, useEmbeddedDynamo } from "../../support/dynamo.ts";

const store = useEmbeddedDynamo();
const start = Date.parse("2026-06-01T10:00:00.000Z");

describe("a key event is stored with who made it and when", () => {
  it("answers the event as stored: its kind, key, who, detail, and the clock's time", async () => {
    const events = new KeyEventStore(store.db, await store.newTable(), () => start);
    const recorded = await events.record(
      { event: "update", keyId: "key_a", who: "local:alice", detail: "scopes categories:read" },
      soon(),
    );
    expect(recorded).toEqual({
      event: "update",
      keyId: "key_a",
      who: "local:alice",
      at: "2026-06-01T10:00:00.000Z",
      detail: "scopes categories:read",
    });
    expect(await events.list(undefined, soon())).toEqual([recorded]);
  });

  it("an event without a detail lists without one", async () => {
    const events = new KeyEventStore(store.db, await store.newTable(), () => start);
    await events.record({ event: "revoke", keyId: "key_a", who: "local:alice" }, soon());
    const [listed] = await events.list("key_a", soon());
    expect(listed).toEqual({
      event: "revoke",
      keyId: "key_a",
      who: "local:alice",
      at: "2026-06-01T10:00:00.000Z",
      detail: undefined,
    });
  });
});

describe("history lists every event oldest first, or those of one key", () => {
  it("orders by time whatever the order of the key ids", async () => {
    let now = start;
    const events = new KeyEventStore(store.db, await store.newTable(), () => now);
    await events.record({ event: "create", keyId: "key_z", who: "local:a" }, soon());
    now += 1;
    await events.record({ event: "create", keyId: "key_a", who: "local:a" }, soon());
    now += 1;
    await events.record({ event: "revoke", keyId: "key_z", who: "local:a" }, soon());
    expect((await events.list(undefined, soon())).map((e) => [e.event, e.keyId])).toEqual([
      ["create", "key_z"],
      ["create", "key_a"],
      ["revoke", "key_z"],
    ]);
  });

  it("one key's history: its own events and the rotation that issued it, no other key's", async () => {
    let now = start;
    const events = new KeyEventStore(store.db, await store.newTable(), () => now);
    await events.record({ event: "create", keyId: "key_old", who: "local:a" }, soon());
    now += 1;
    await events.record({ event: "create", keyId: "key_other", who: "local:a" }, soon());
    now += 1;
    await events.record(
      { event: "rotate", keyId: "key_old", who: "local:a", detail: "new key key_new, grace 24h" },
      soon(),
    );
    now += 1;
    await events.record({ event: "revoke", keyId: "key_new", who: "local:a" }, soon());
    expect((await events.list("key_old", soon())).map((e) => e.event)).toEqual([
      "create",
      "rotate",
    ]);
    expect((await events.list("key_new", soon())).map((e) => [e.event, e.keyId])).toEqual([
      ["rotate", "key_old"],
      ["revoke", "key_new"],
    ]);
    expect(await events.list("key_none", soon())).toEqual([]);
  });
});

describe("history shows only the four kinds of event, whatever the table holds", () => {
  it("an event item of an unknown kind, or missing attributes, lists as an update with empty fields", async () => {
    const tableName = await store.newTable();
    await new Table(store.db, tableName).put(
      { pk: partitions.keyEvent, sk: "2026-06-01T09:00:00.000Z#key_x#00000000" },
      { event: "delete" },
      soon(),
    );
    const events = new KeyEventStore(store.db, tableName, () => start);
    expect(await events.list(undefined, soon())).toEqual([
      { event: "update", keyId: "", who: "", at: "", detail: undefined },
    ]);
  });
});
