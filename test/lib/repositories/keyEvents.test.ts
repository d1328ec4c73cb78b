/**
 * The API keys' audit trail (contract: "Keys: audit"): each key event (create, rotate, update,
 * revoke) is recorded in the stage's table with who made it and when; `keys history [keyId]`
 * lists them, oldest first (lib/repositories/keyEvents.ts).
 */
import { describe, expect, it } from "vitest";
import { KeyEventStore } from "../../../lib/repositories/keyEvents.ts";
import { isConditionFailure } from "../../../lib/table/errors.ts";
import { num, text } from "../../../lib/table/item.ts";
import { partitions } from "../../../lib/table/schema.ts";
import type { Write } from "../../../lib/table/table.ts";
import { Table } from "../../../lib/table/table.ts";
import { javaMissing, soon, useEmbeddedDynamo } from "../../support/dynamo.ts";
import { skipWithout } from "../../support/missingTool.ts";

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

const changeEvent = { event: "update", keyId: "key_a", who: "local:alice" } as const;
const counter = { pk: "TEST#counter", sk: "x" };
const taken = { pk: "TEST#taken", sk: "x" };
const set = (n: number, was?: number): Write => ({
  kind: "update",
  key: counter,
  update: { text: "SET n = :n", values: { ":n": n } },
  ...(was !== undefined && { condition: { text: "n = :was", values: { ":was": was } } }),
});
/** Refused: `taken` exists. Never made, so never taken back (its undo would tag the counter). */
const refused: Write = {
  kind: "put",
  key: taken,
  fields: { n: 9 },
  condition: { text: "attribute_not_exists(pk)" },
  undo: {
    kind: "update",
    key: counter,
    update: { text: "SET tag = :t", values: { ":t": "undone" } },
  },
};

/** A fresh table on `on` holding the counter at 0 and the `taken` item, and its event store. */
async function changeSetUp(on: typeof store) {
  const tableName = await on.newTable();
  const table = new Table(on.db, tableName);
  await table.put(counter, { n: 0 }, soon());
  await table.put(taken, { n: 0 }, soon());
  const events = new KeyEventStore(on.db, tableName, () => start);
  const counterNow = async () => {
    const item = await table.get(counter, soon());
    return { n: item && num(item, "n"), tag: item && text(item, "tag") };
  };
  return { events, counterNow };
}

describe.each(["dynalite", "dynamodb-local"] as const)(
  "a key change and its event are made together or not at all (on %s)",
  (engine) => {
    // DynamoDB Local makes them in one transaction (one write per item); dynalite has none, so
    // the event goes first, marked intended, then each change, and a refused change takes back
    // those made before it.
    const engineStore = useEmbeddedDynamo({ engine });
    if (engine === "dynamodb-local") skipWithout(javaMissing);

    it("makes every change and stores the event, not marked intended", async () => {
      const { events, counterNow } = await changeSetUp(engineStore);
      const other: Write = { kind: "put", key: { pk: "TEST#other", sk: "y" }, fields: { n: 1 } };
      const stored = await events.recordWith(changeEvent, [set(1, 0), other], soon());
      expect(await events.list(undefined, soon())).toEqual([{ detail: undefined, ...stored }]);
      expect(await counterNow()).toEqual({ n: 1, tag: undefined });
    });

    it("a refused change: the changes before it taken back, no event, the refusal thrown", async () => {
      const { events, counterNow } = await changeSetUp(engineStore);
      const changes: Write[] = [
        { ...set(1, 0), undo: set(0) },
        // Nothing to take back: a change without an undo is passed over.
        { kind: "put", key: { pk: "TEST#other", sk: "y" }, fields: { n: 1 } },
        refused,
      ];
      const error = await events.recordWith(changeEvent, changes, soon()).catch((e: unknown) => e);
      expect(isConditionFailure(error)).toBe(true);
      expect(await counterNow()).toEqual({ n: 0, tag: undefined });
      expect(await events.list(undefined, soon())).toEqual([]);
    });

    it("a change failing otherwise: nothing made where there are transactions; else the event stays, marked intended", async () => {
      const { events, counterNow } = await changeSetUp(engineStore);
      // No value for :n: the store refuses the expression itself, not a condition.
      const invalid: Write = { kind: "update", key: counter, update: { text: "SET n = :n" } };
      await expect(events.recordWith(changeEvent, [invalid], soon())).rejects.toThrow();
      expect(await counterNow()).toEqual({ n: 0, tag: undefined });
      const expected = { detail: undefined, ...changeEvent, at: new Date(start).toISOString() };
      expect(await events.list(undefined, soon())).toEqual(
        engine === "dynalite" ? [{ ...expected, intended: true }] : [],
      );
    });
  },
);

describe("without transactions (dynalite), the changes made are taken back latest first", () => {
  const dynalite = useEmbeddedDynamo({ engine: "dynalite" });

  it("two changes of one item: the counter is back where it was", async () => {
    const { events, counterNow } = await changeSetUp(dynalite);
    const changes = [{ ...set(1, 0), undo: set(0) }, { ...set(2, 1), undo: set(1) }, refused];
    await expect(events.recordWith(changeEvent, changes, soon())).rejects.toThrow();
    expect(await counterNow()).toEqual({ n: 0, tag: undefined });
  });
});
