/**
 * Audit (contract: "Keys: audit"): each stored category holds the id of the key that created it,
 * the request id and when, none of which the API returns; each key event (create, rotate,
 * update, revoke) is stored in the stage's table with who made it and when.
 */
import { describe, expect, it } from "vitest";
import { ApiKeyStore, hashApiKey } from "../../lib/repositories/apiKeys.ts";
import { KeyEventStore } from "../../lib/repositories/keyEvents.ts";
import { Table } from "../../lib/table/table.ts";
import { keys } from "../../lib/table/schema.ts";
import { sampleApiKey } from "../../local/functionEnv.ts";
import { soon } from "../support/dynamo.ts";
import { loadEvent, useHarness } from "./harness.ts";

const harness = useHarness();

async function sampleKeyId(): Promise<string> {
  const { db, tableName } = harness.table();
  const record = await new ApiKeyStore(db, tableName).find(hashApiKey(sampleApiKey), soon());
  return record?.keyId ?? "";
}

describe("a stored category records who created it and in which request, never answered", () => {
  it.each([
    ["without an Idempotency-Key", undefined],
    ["with an Idempotency-Key", "audit-1"],
  ])("%s", async (_, idempotencyKey) => {
    const event = loadEvent("create-ok.json");
    if (idempotencyKey) event.headers["idempotency-key"] = idempotencyKey;
    const before = Date.now();
    const { response } = await harness.invoke(await harness.handler("createCategory"), event);
    expect(response.statusCode).toBe(201);
    const created = JSON.parse(response.body) as { id: number };
    const { db, tableName } = harness.table();
    const item = await new Table(db, tableName).get(keys.resource("category", created.id), soon());
    expect(item?.keyId?.S).toBe(await sampleKeyId());
    expect(item?.requestId?.S).toBe(event.requestContext.requestId);
    const at = Date.parse(item?.createdAt?.S ?? "");
    expect(at).toBeGreaterThanOrEqual(before - 1);
    expect(at).toBeLessThanOrEqual(Date.now());
    // Neither the create's answer nor the list shows them.
    expect(Object.keys(created).sort()).toEqual(["description", "id", "name"]);
    const listed = await harness.invoke(
      await harness.handler("listCategories"),
      loadEvent("list-ok.json"),
    );
    expect(listed.response.body).not.toMatch(/keyId|requestId|createdAt/);
  });
});

describe("key events are stored with who and when, and listed per key", () => {
  it("records create, update, rotate and revoke in time order, each with who and when", async () => {
    const { db, tableName } = harness.table();
    let now = Date.parse("2026-06-01T10:00:00.000Z");
    const events = new KeyEventStore(db, tableName, () => now);
    const who = "arn:aws:sts::123456789012:assumed-role/operator/alice";
    await events.record({ event: "create", keyId: "key_a", who, detail: "label x" }, soon());
    now += 1000;
    await events.record({ event: "create", keyId: "key_b", who: "local:bob" }, soon());
    now += 1000;
    await events.record(
      { event: "update", keyId: "key_a", who, detail: "scopes categories:read" },
      soon(),
    );
    now += 1000;
    await events.record(
      { event: "rotate", keyId: "key_a", who, detail: "new key key_c, old one expires …" },
      soon(),
    );
    now += 1000;
    await events.record({ event: "revoke", keyId: "key_a", who }, soon());

    // The harness's table holds the sample key, with its own create event: only this test's keys.
    const all = (await events.list(undefined, soon())).filter((event) =>
      ["key_a", "key_b"].includes(event.keyId),
    );
    expect(all.map((e) => [e.event, e.keyId])).toEqual([
      ["create", "key_a"],
      ["create", "key_b"],
      ["update", "key_a"],
      ["rotate", "key_a"],
      ["revoke", "key_a"],
    ]);
    expect(all[0]).toEqual({
      event: "create",
      keyId: "key_a",
      who,
      at: "2026-06-01T10:00:00.000Z",
      detail: "label x",
    });
    expect(all[1]?.who).toBe("local:bob");
    expect((await events.list("key_b", soon())).map((e) => e.event)).toEqual(["create"]);
    // The new key of a rotation finds the rotation in its own history.
    expect((await events.list("key_c", soon())).map((e) => e.event)).toEqual(["rotate"]);
  });

  it("keeps two events of one key at the same moment apart", async () => {
    const { db, tableName } = harness.table();
    const events = new KeyEventStore(db, tableName, () => 0);
    await events.record({ event: "update", keyId: "key_a", who: "local:x" }, soon());
    await events.record({ event: "update", keyId: "key_a", who: "local:y" }, soon());
    expect(await events.list("key_a", soon())).toHaveLength(2);
  });
});
