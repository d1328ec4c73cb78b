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
  // Who, when, time order and each key's history (its rotation included):
  // test/lib/repositories/keyEvents.test.ts.
  it("keeps two events of one key at the same moment apart", async () => {
    const { db, tableName } = harness.table();
    const events = new KeyEventStore(db, tableName, () => 0);
    await events.record({ event: "update", keyId: "key_a", who: "local:x" }, soon());
    await events.record({ event: "update", keyId: "key_a", who: "local:y" }, soon());
    expect(await events.list("key_a", soon())).toHaveLength(2);
  });
});
