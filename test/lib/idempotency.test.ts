import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../lib/errors.ts";
import { parseIdempotencyKey } from "../../lib/http/request.ts";
import { IdempotentCreator } from "../../lib/idempotency/creator.ts";
import {
  canonicalJson,
  expiresAtSeconds,
  fingerprintMatches,
  fingerprintOf,
  idempotencyWindowMs,
} from "../../lib/idempotency/record.ts";
import { CategoryStore } from "../../lib/repositories/categories.ts";
import { IdempotencyRecordStore } from "../../lib/repositories/idempotencyRecords.ts";
import { keys } from "../../lib/table/schema.ts";
import { Table } from "../../lib/table/table.ts";
import type { FaultProxy } from "../support/faultProxy.ts";
import { soon, useFaultyStore } from "../support/dynamo.ts";

const store = useFaultyStore();
const proxy = (): FaultProxy => store.proxy;

interface Fixture {
  readonly table: string;
  readonly categories: CategoryStore;
  readonly creator: IdempotentCreator;
  readonly clock: { now: number };
}

async function fixture(): Promise<Fixture> {
  const table = await store.newTable();
  const clock = movableClock();
  const categories = new CategoryStore(store.client, table, () => clock.now);
  const records = new IdempotencyRecordStore(store.client, table);
  return {
    table,
    categories,
    creator: new IdempotentCreator(records, categories, () => clock.now),
    clock,
  };
}

/**
 * The service's one clock, moved by the tests: real time plus an offset, so the deadlines the
 * store client measures (real time) and the service's own reckoning agree until a test moves it.
 */
function movableClock(): { now: number } {
  let offset = 0;
  return {
    get now() {
      return Date.now() + offset;
    },
    set now(value: number) {
      offset = value - Date.now();
    },
  };
}

const dog = { name: "dog", description: "Canines" };

describe("Idempotency-Key is 1 to 255 printable ASCII characters", () => {
  it("accepts any such key and refuses anything else with 400", () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
          minLength: 1,
          maxLength: 255,
        }),
        (key) => {
          expect(parseIdempotencyKey(key)).toBe(key);
        },
      ),
    );
    for (const bad of ["", "x".repeat(256), "caf\u00e9", "a\tb", "a\nb", "\u007f"]) {
      expect(() => parseIdempotencyKey(bad)).toThrow(
        expect.objectContaining({ status: 400, code: "invalid_idempotency_key" }) as ApiError,
      );
    }
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
  });
});

describe("a repeat with the same key and body replays the first answer and stores nothing new", () => {
  it("returns the same id, marked replayed, with one category stored", async () => {
    const { categories, creator } = await fixture();
    const first = await creator.create("scope", "k1", dog, "req-1", soon());
    const second = await creator.create("scope", "k1", dog, "req-2", soon());
    expect(first).toEqual({ category: { id: 1, ...dog }, replayed: false });
    expect(second).toEqual({ category: { id: 1, ...dog }, replayed: true });
    expect(await categories.list(soon())).toHaveLength(1);
  });

  it("treats keys of different API keys as unrelated", async () => {
    const { categories, creator } = await fixture();
    await creator.create("api-key-a", "same", dog, "r1", soon());
    const other = await creator.create("api-key-b", "same", dog, "r2", soon());
    expect(other.replayed).toBe(false);
    expect(await categories.list(soon())).toHaveLength(2);
  });
});

describe("a repeat with a different body is refused with 422", () => {
  it("answers idempotency_key_reused and stores nothing", async () => {
    const { categories, creator } = await fixture();
    await creator.create("s", "k", dog, "r1", soon());
    await expect(creator.create("s", "k", { name: "cat" }, "r2", soon())).rejects.toMatchObject({
      status: 422,
      code: "idempotency_key_reused",
    });
    expect(await categories.list(soon())).toHaveLength(1);
  });
});

describe("concurrent repeats of one key create one category", () => {
  it("gives one original 201; the rest replay it or hear 409 in progress", async () => {
    const { categories, creator } = await fixture();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => creator.create("s", "burst", dog, `r${i}`, soon())),
    );
    const created = results.filter((r) => r.status === "fulfilled").map((r) => r.value);
    const refused = results.filter((r) => r.status === "rejected").map((r) => r.reason as ApiError);
    expect(created.filter((r) => !r.replayed)).toHaveLength(1);
    expect(new Set(created.map((r) => r.category.id))).toEqual(new Set([1]));
    expect(refused.every((e) => e.code === "idempotency_in_progress" && e.status === 409)).toBe(
      true,
    );
    expect(await categories.list(soon())).toEqual([{ id: 1, ...dog }]);
  });
});

describe("records expire after 24 hours", () => {
  it("creates anew once the window has passed", async () => {
    const { categories, creator, clock } = await fixture();
    await creator.create("s", "k", dog, "r1", soon());
    clock.now += idempotencyWindowMs - 5_000;
    expect((await creator.create("s", "k", dog, "r2", soon())).replayed).toBe(true);
    clock.now += 10_000;
    expect(await creator.create("s", "k", dog, "r3", soon())).toEqual({
      category: { id: 2, ...dog },
      replayed: false,
    });
    expect(await categories.list(soon())).toHaveLength(2);
  });
});

describe("a request that dies after reserving its id is finished by the next repeat, under the same id", () => {
  it("stores exactly one category when the first attempt's write kept failing", async () => {
    const { categories, creator, clock } = await fixture();
    // Claim and id reservation go through; the category read-then-write after them keeps failing.
    proxy().inject({
      fault: "server_error",
      operation: "GetItem",
      times: Number.POSITIVE_INFINITY,
    });
    const deadline = Date.now() + 400;
    await expect(creator.create("s", "k", dog, "r1", deadline)).rejects.toThrow();
    proxy().clear();
    // While the first request could still be running, a repeat is told to wait.
    await expect(creator.create("s", "k", dog, "r2", soon())).rejects.toMatchObject({
      status: 409,
    });
    clock.now = deadline + 2_000;
    const finished = await creator.create("s", "k", dog, "r3", soon());
    expect(finished).toEqual({ category: { id: 1, ...dog }, replayed: false });
    expect(await categories.list(soon())).toEqual([{ id: 1, ...dog }]);
    expect((await creator.create("s", "k", dog, "r4", soon())).replayed).toBe(true);
  });

  it("lets a repeat start afresh at once when the first failed before taking an id", async () => {
    const { categories, creator } = await fixture();
    proxy().inject({
      fault: "throttling",
      operation: "UpdateItem",
      times: Number.POSITIVE_INFINITY,
    });
    await expect(creator.create("s", "k", dog, "r1", Date.now() + 300)).rejects.toThrow();
    proxy().clear();
    expect((await creator.create("s", "k", dog, "r2", soon())).replayed).toBe(false);
    expect(await categories.list(soon())).toHaveLength(1);
  });
});

describe("records written before the fingerprint was versioned still match their repeats", () => {
  /** The first algorithm, as it was deployed: the values of name and description, in that order. */
  const v1Fingerprint = (input: { name: string; description?: string }): string =>
    createHash("sha256")
      .update(JSON.stringify([input.name, input.description ?? null]))
      .digest("hex");

  async function recordedByV1(
    table: string,
    idempotencyKey: string,
    input: { name: string; description?: string },
  ): Promise<void> {
    const response = JSON.stringify({ id: 41, ...input });
    await new Table(store.db, table).put(
      keys.idempotency("s", idempotencyKey),
      {
        fingerprint: v1Fingerprint(input),
        owner: "before-the-deploy",
        lockUntil: Date.now() - 60_000,
        ttl: expiresAtSeconds(Date.now()),
        response,
      },
      soon(),
    );
  }

  it("replays a v1 record's answer to the same body, and refuses another body with 422", async () => {
    const { table, categories, creator } = await fixture();
    await recordedByV1(table, "with-description", dog);
    await recordedByV1(table, "name-only", { name: "cat" });
    expect(await creator.create("s", "with-description", dog, "r1", soon())).toEqual({
      category: { id: 41, ...dog },
      replayed: true,
    });
    expect(await creator.create("s", "name-only", { name: "cat" }, "r2", soon())).toEqual({
      category: { id: 41, name: "cat" },
      replayed: true,
    });
    for (const [key, other] of [
      ["with-description", { name: "dog" }],
      ["with-description", { name: "dog", description: "Wolves" }],
      ["name-only", { name: "cat", description: "" }],
    ] as const) {
      await expect(creator.create("s", key, other, "r3", soon())).rejects.toMatchObject({
        status: 422,
        code: "idempotency_key_reused",
      });
    }
    expect(await categories.list(soon())).toEqual([]);
  });

  it("refuses a request carrying a field v1 did not know, since v1 could not have compared it", () => {
    // A field added to the model after v1 (the Category has name and description today).
    const withLaterField = { ...dog, tags: "pets" };
    expect(fingerprintMatches(v1Fingerprint(dog), withLaterField)).toBe(false);
  });

  it("still matches when a later field is absent from the request (present but undefined)", () => {
    const withoutLaterField = { ...dog, tags: undefined };
    expect(fingerprintMatches(v1Fingerprint(dog), withoutLaterField)).toBe(true);
    expect(fingerprintMatches(v1Fingerprint({ name: "cat" }), { name: "cat" })).toBe(true);
  });
});

describe("the v2 fingerprint is SHA-256 of the canonical JSON: keys sorted, absent fields left out", () => {
  const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

  it("writes one text per request however it was built, so a record outlives a redeploy", () => {
    const built = [
      { name: "dog", description: "Canines" },
      { description: "Canines", name: "dog" },
    ];
    for (const input of built) {
      expect(canonicalJson(input)).toBe('{"description":"Canines","name":"dog"}');
      expect(fingerprintOf(input)).toBe(`v2:${sha256('{"description":"Canines","name":"dog"}')}`);
      expect(fingerprintMatches(fingerprintOf(dog), input)).toBe(true);
    }
  });

  it("leaves an absent field out, so name-only and description: undefined are one request", () => {
    expect(canonicalJson({ name: "cat", description: undefined })).toBe('{"name":"cat"}');
    expect(fingerprintOf({ name: "cat", description: undefined })).toBe(
      fingerprintOf({ name: "cat" }),
    );
    expect(fingerprintOf({ name: "cat", description: "" })).not.toBe(
      fingerprintOf({ name: "cat" }),
    );
  });
});

describe("a record is live through the second its ttl names, for the claim and the read alike", () => {
  it("refuses a claim in the ttl's own second and answers the record as it is, then lets the next second claim it", async () => {
    const table = await store.newTable();
    const records = new IdempotencyRecordStore(store.db, table);
    const ttl = Math.floor(Date.now() / 1000) + 3600;
    await new Table(store.db, table).put(
      keys.idempotency("s", "k"),
      {
        fingerprint: fingerprintOf(dog),
        owner: "r1",
        lockUntil: Date.now() - 60_000,
        ttl,
        response: JSON.stringify({ id: 7, ...dog }),
      },
      soon(),
    );
    const key = { scope: "s", idempotencyKey: "k" };
    const claim = { fingerprint: fingerprintOf(dog), owner: "r2", lockUntil: soon() };
    const lastMoment = ttl * 1000 + 999;
    expect(await records.claim(key, claim, lastMoment, soon())).toMatchObject({
      claimed: false,
      existing: { status: "completed", response: { id: 7, ...dog } },
    });
    expect(await records.claim(key, claim, (ttl + 1) * 1000, soon())).toEqual({ claimed: true });
  });
});
