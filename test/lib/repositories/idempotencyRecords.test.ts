/**
 * The idempotency record repository (lib/repositories/idempotencyRecords.ts) against the embedded
 * store: a claim unless a live record exists, and every later write conditional on the caller
 * still owning the record, answering false when it does not.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { idempotencyWindowMs } from "../../../lib/idempotency/record.ts";
import type { RecordKey } from "../../../lib/idempotency/record.ts";
import { IdempotencyRecordStore } from "../../../lib/repositories/idempotencyRecords.ts";
import { DynamoDbError, isConditionFailure } from "../../../lib/table/errors.ts";
import { num } from "../../../lib/table/item.ts";
import { keys } from "../../../lib/table/schema.ts";
import { Table } from "../../../lib/table/table.ts";
import { soon, useEmbeddedDynamo } from "../../support/dynamo.ts";

const store = useEmbeddedDynamo();
let records: IdempotencyRecordStore;
let table: Table;
beforeAll(async () => {
  const name = await store.newTable();
  records = new IdempotencyRecordStore(store.db, name);
  table = new Table(store.db, name);
});

const now = Date.parse("2026-11-22T12:00:00.250Z");
let count = 0;
const freshKey = (): RecordKey => ({
  scope: "scope-a",
  operation: "createThing",
  idempotencyKey: `key-${++count}`,
});
const claimBy = (owner: string) => ({ fingerprint: "fp-1", owner, lockUntil: now + 5_000 });
const category = { id: 7, name: "dogs" };

describe("a claim creates an in-progress record unless a live one exists, then answers that one", () => {
  it("claims a new key, storing its ttl 24 h on in epoch seconds", async () => {
    const key = freshKey();
    expect(await records.claim(key, claimBy("a"), now, soon())).toEqual({ claimed: true });
    const item = await table.get(
      keys.idempotency(key.scope, "createThing", key.idempotencyKey),
      soon(),
    );
    expect(num(item ?? {}, "ttl")).toBe(Math.floor((now + idempotencyWindowMs) / 1000));
  });

  it("answers the live in-progress record that refused a second claim", async () => {
    const key = freshKey();
    await records.claim(key, claimBy("a"), now, soon());
    expect(await records.claim(key, claimBy("b"), now + 1, soon())).toEqual({
      claimed: false,
      existing: {
        status: "in_progress",
        fingerprint: "fp-1",
        owner: "a",
        lockUntil: now + 5_000,
        reservedId: undefined,
      },
    });
  });

  it("answers the reserved id, then the stored answer, of the record that refused it", async () => {
    const key = freshKey();
    await records.claim(key, claimBy("a"), now, soon());
    expect(await records.reserveId(key, "a", 7, soon())).toBe(true);
    const refused = await records.claim(key, claimBy("b"), now, soon());
    expect(refused).toMatchObject({ existing: { status: "in_progress", reservedId: 7 } });
    expect(await records.complete(key, "a", category, soon())).toBe(true);
    expect(await records.claim(key, claimBy("b"), now, soon())).toEqual({
      claimed: false,
      existing: {
        status: "completed",
        fingerprint: "fp-1",
        owner: "a",
        lockUntil: now + 5_000,
        response: category,
      },
    });
  });

  it("claims over a record whose ttl second has passed (TTL deletes records late)", async () => {
    const key = freshKey();
    await records.claim(key, claimBy("a"), now, soon());
    const ttlSecond = Math.floor((now + idempotencyWindowMs) / 1000);
    const stillLive = await records.claim(key, claimBy("b"), ttlSecond * 1000 + 999, soon());
    expect(stillLive).toMatchObject({ claimed: false, existing: { owner: "a" } });
    expect(await records.claim(key, claimBy("b"), (ttlSecond + 1) * 1000, soon())).toEqual({
      claimed: true,
    });
  });
});

describe("a claim passes on a fault other than a failed condition", () => {
  it("rejects with DynamoDB's ValidationException for an item over 400 KB, claiming nothing", async () => {
    const key = freshKey();
    const huge = { ...claimBy("a"), fingerprint: "f".repeat(410_000) };
    const error: unknown = await records.claim(key, huge, now, soon()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DynamoDbError);
    expect(isConditionFailure(error)).toBe(false);
    expect(
      await table.get(keys.idempotency(key.scope, "createThing", key.idempotencyKey), soon()),
    ).toBeUndefined();
  });
});

describe("a record taken over can be changed only by its new owner", () => {
  it("takes over from the previous owner once; the old owner can then reserve, complete or release nothing (a failed condition)", async () => {
    const key = freshKey();
    await records.claim(key, claimBy("a"), now, soon());
    expect(await records.takeOver(key, "x", claimBy("b"), soon())).toBe(false);
    expect(await records.takeOver(key, "a", claimBy("b"), soon())).toBe(true);
    expect(await records.takeOver(key, "a", claimBy("c"), soon())).toBe(false);
    expect(await records.reserveId(key, "a", 3, soon())).toBe(false);
    expect(await records.complete(key, "a", category, soon())).toBe(false);
    await expect(records.release(key, "a", soon())).rejects.toSatisfy(isConditionFailure);
    expect(await records.claim(key, claimBy("c"), now, soon())).toMatchObject({
      claimed: false,
      existing: { status: "in_progress", owner: "b", reservedId: undefined },
    });
  });

  it("cannot take over a completed record (its answer stands)", async () => {
    const key = freshKey();
    await records.claim(key, claimBy("a"), now, soon());
    await records.complete(key, "a", category, soon());
    expect(await records.takeOver(key, "a", claimBy("b"), soon())).toBe(false);
  });
});

describe("an owner releases its record only while it has reserved no id", () => {
  it("lets a repeat claim at once after a release, and refuses to remove a record with a reserved id (a failed condition)", async () => {
    const key = freshKey();
    await records.claim(key, claimBy("a"), now, soon());
    await records.release(key, "a", soon());
    expect(await records.claim(key, claimBy("b"), now, soon())).toEqual({ claimed: true });
    await records.reserveId(key, "b", 9, soon());
    await expect(records.release(key, "b", soon())).rejects.toSatisfy(isConditionFailure);
    expect(await records.claim(key, claimBy("c"), now, soon())).toMatchObject({
      claimed: false,
      existing: { owner: "b", reservedId: 9 },
    });
  });
});
