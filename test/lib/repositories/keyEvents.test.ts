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

type Event = Parameters<KeyEventStore["record"]>[0];

/** A store on a fresh table that records `made` one millisecond apart, from `start`. */
async function recorded(made: readonly Event[]): Promise<KeyEventStore> {
  let now = start;
  const events = new KeyEventStore(store.db, await store.newTable(), () => now);
  for (const event of made) {
    await events.record(event, soon());
    now += 1;
  }
  return events;
}

describe("a key event is stored with who made it and when", () => {
  it.each([
    { event: "update", keyId: "key_a", who: "local:alice", detail: "scopes categories:read" },
    { event: "revoke", keyId: "key_a", who: "local:alice" },
  ] as const)("answers and lists %j as stored, at the clock's time", async (event) => {
    const events = new KeyEventStore(store.db, await store.newTable(), () => start);
    const expected = { detail: undefined, ...event, at: "2026-06-01T10:00:00.000Z" };
    expect(await events.record(event, soon())).toEqual(expected);
    expect(await events.list(undefined, soon())).toEqual([expected]);
    expect(await events.list("key_a", soon())).toEqual([expected]);
  });
});

describe("history lists every event oldest first, or those of one key", () => {
  it("orders by time whatever the order of the key ids", async () => {
    const events = await recorded([
      { event: "create", keyId: "key_z", who: "local:a" },
      { event: "create", keyId: "key_a", who: "local:a" },
      { event: "revoke", keyId: "key_z", who: "local:a" },
    ]);
    expect((await events.list(undefined, soon())).map((e) => [e.event, e.keyId])).toEqual([
      ["create", "key_z"],
      ["create", "key_a"],
      ["revoke", "key_z"],
    ]);
  });

  it("one key's history: its own events and the rotation that issued it, no other key's", async () => {
    const events = await recorded([
      { event: "create", keyId: "key_old", who: "local:a" },
      { event: "create", keyId: "key_other", who: "local:a" },
      { event: "rotate", keyId: "key_old", who: "local:a", detail: "new key key_new, grace 24h" },
      { event: "revoke", keyId: "key_new", who: "local:a" },
    ]);
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
