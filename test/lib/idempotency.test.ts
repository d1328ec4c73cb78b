import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Category, NewCategory } from "../../lib/category.ts";
import { ApiError } from "../../lib/errors.ts";
import { parseIdempotencyKey } from "../../lib/http/request.ts";
import { IdempotentCreator } from "../../lib/idempotency/creator.ts";
import type { RecordKey } from "../../lib/idempotency/record.ts";
import {
  canonicalJson,
  expiresAtSeconds,
  fingerprintMatches,
  fingerprintOf,
  idempotencyWindowMs,
} from "../../lib/idempotency/record.ts";
import { CategoryStore } from "../../lib/repositories/categories.ts";
import { IdempotencyRecordStore } from "../../lib/repositories/idempotencyRecords.ts";
import { num } from "../../lib/table/item.ts";
import { keys, partitions } from "../../lib/table/schema.ts";
import { Table } from "../../lib/table/table.ts";
import type { FaultProxy } from "../support/faultProxy.ts";
import { soon, storeEngine, useFaultyStore } from "../support/dynamo.ts";
import { scaled } from "../support/speed.ts";

const store = useFaultyStore();
const proxy = (): FaultProxy => store.proxy;

interface Fixture {
  readonly table: string;
  readonly categories: CategoryStore;
  readonly creator: IdempotentCreator<NewCategory, Category>;
  readonly clock: { now: number };
  /** The same records as another container sees them: straight to the store, never faulted. */
  readonly elsewhere: IdempotencyRecordStore;
}

/** `clock`: the service's clock; a plain `{ now }` object stands still. */
async function fixture(clock: { now: number } = movableClock()): Promise<Fixture> {
  const table = await store.newTable();
  const categories = new CategoryStore(store.client, table, () => clock.now);
  const records = new IdempotencyRecordStore(store.client, table);
  return {
    table,
    categories,
    creator: new IdempotentCreator(records, categories, () => clock.now, "createCategory"),
    clock,
    elsewhere: new IdempotencyRecordStore(store.db, table),
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
const recordKey: RecordKey = { scope: "s", operation: "createCategory", idempotencyKey: "k" };
/** A claim on `recordKey` for `dog`, as another request makes it. */
const claimBy = (owner: string, lockUntil: number) => ({
  fingerprint: fingerprintOf(dog),
  owner,
  lockUntil,
});

/** A create's answer: the category `id` holding `body`, made now or `replayed`. */
const answered = (id: number, body: NewCategory = dog, replayed = false) => ({
  category: { id, ...body },
  replayed,
});
/** A repeat told to wait: 409 idempotency_in_progress. */
const inProgress = { status: 409, code: "idempotency_in_progress" };
/** A repeat of another body: 422 idempotency_key_reused. */
const reused = { status: 422, code: "idempotency_key_reused" };

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));
/** Answers the proxy has held back so far ("slow" rules matched), the store having given them. */
const held = (): number => proxy().slowAnswered();
/**
 * Resolves once the proxy holds back one more answer than `before`: the store has applied that
 * request, and only its answer is under way (a write made now lands after it).
 */
async function untilHeld(before: number): Promise<void> {
  while (held() <= before) await sleep(5);
}

/** The list version (lib/categoryList/cache.ts): the counter item's `version`. */
async function listVersion(table: string): Promise<number> {
  const counter = await new Table(store.db, table).get(keys.counter("category"), soon());
  return (counter && num(counter, "version")) ?? 0;
}

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
    expect(first).toEqual(answered(1));
    expect(second).toEqual(answered(1, dog, true));
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
    await expect(creator.create("s", "k", { name: "cat" }, "r2", soon())).rejects.toMatchObject(
      reused,
    );
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
    expect(await creator.create("s", "k", dog, "r3", soon())).toEqual(answered(2));
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
      partition: partitions.resource("category"),
      times: Number.POSITIVE_INFINITY,
    });
    const deadline = Date.now() + 400;
    const deletesBefore = proxy().seen.get("DeleteItem") ?? 0;
    await expect(creator.create("s", "k", dog, "r1", deadline)).rejects.toThrow();
    proxy().clear();
    // It keeps its record: no release is even sent (the store would refuse it, at a write's cost).
    expect(proxy().seen.get("DeleteItem") ?? 0).toBe(deletesBefore);
    // While the first request could still be running, a repeat is told to wait.
    await expect(creator.create("s", "k", dog, "r2", soon())).rejects.toMatchObject(inProgress);
    clock.now = deadline + 2_000;
    const finished = await creator.create("s", "k", dog, "r3", soon());
    expect(finished).toEqual(answered(1));
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
      keys.legacyIdempotency("s", idempotencyKey),
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
    expect(await creator.create("s", "with-description", dog, "r1", soon())).toEqual(
      answered(41, dog, true),
    );
    expect(await creator.create("s", "name-only", { name: "cat" }, "r2", soon())).toEqual(
      answered(41, { name: "cat" }, true),
    );
    for (const [key, other] of [
      ["with-description", { name: "dog" }],
      ["with-description", { name: "dog", description: "Wolves" }],
      ["name-only", { name: "cat", description: "" }],
    ] as const) {
      await expect(creator.create("s", key, other, "r3", soon())).rejects.toMatchObject(reused);
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

describe("a record written before records named their operation decides a repeat until it expires", () => {
  /** A record as the previous release stored it: under the Idempotency-Key alone. */
  async function recordedBefore(table: string, fields: Record<string, string | number>) {
    const record = { fingerprint: fingerprintOf(dog), owner: "before", ...fields };
    await new Table(store.db, table).put(keys.legacyIdempotency("s", "k"), record, soon());
  }
  const live = () => ({ ttl: expiresAtSeconds(Date.now()), lockUntil: Date.now() - 60_000 });

  it("replays its answer and refuses another body, creating nothing", async () => {
    const { table, categories, creator } = await fixture();
    await recordedBefore(table, { ...live(), response: JSON.stringify({ id: 41, ...dog }) });
    expect(await creator.create("s", "k", dog, "r1", soon())).toEqual(answered(41, dog, true));
    await expect(creator.create("s", "k", { name: "cat" }, "r2", soon())).rejects.toMatchObject(
      reused,
    );
    expect(await categories.list(soon())).toEqual([]);
    // The claim made under the new layout first was given back: nothing is left there.
    const direct = new Table(store.db, table);
    expect(await direct.get(keys.idempotency("s", "createCategory", "k"), soon())).toBeUndefined();
  });

  it("finishes a request of the previous release under the id it reserved, once its lock is out", async () => {
    const { table, categories, creator } = await fixture();
    await recordedBefore(table, { ...live(), categoryId: 5 });
    expect(await creator.create("s", "k", dog, "r1", soon())).toEqual(answered(5));
    expect(await categories.list(soon())).toEqual([{ id: 5, ...dog }]);
    expect(await creator.create("s", "k", dog, "r2", soon())).toMatchObject({ replayed: true });
  });

  it("tells a repeat to wait while its owner may still be running", async () => {
    const { table, creator } = await fixture();
    await recordedBefore(table, { ...live(), lockUntil: Date.now() + 60_000 });
    await expect(creator.create("s", "k", dog, "r1", soon())).rejects.toMatchObject(inProgress);
  });

  it("is ignored once expired: the request is new, recorded under its operation", async () => {
    const { table, creator } = await fixture();
    const expired = Math.floor(Date.now() / 1000) - 60;
    await recordedBefore(table, { ttl: expired, lockUntil: 0, response: '{"id":41}' });
    expect(await creator.create("s", "k", dog, "r1", soon())).toEqual(answered(1));
    const stored = await new Table(store.db, table).get(
      keys.idempotency("s", "createCategory", "k"),
      soon(),
    );
    expect(stored?.response?.S).toBe(JSON.stringify({ id: 1, ...dog }));
  });

  it('a key named like a record of today\'s layout ("createCategory#k") is a request of its own', async () => {
    const { creator } = await fixture();
    expect(await creator.create("s", "k", dog, "r1", soon())).toEqual(answered(1));
    const lookalike = "createCategory#k";
    expect(await creator.create("s", lookalike, dog, "r2", soon())).toEqual(answered(2));
    expect(await creator.create("s", lookalike, dog, "r3", soon())).toEqual(answered(2, dog, true));
  });

  it("decides when the claim's answer was lost and its retry found the claim its own", async () => {
    const { table, categories, creator } = await fixture();
    await recordedBefore(table, { ...live(), response: JSON.stringify({ id: 41, ...dog }) });
    proxy().inject({ fault: "lost_response", operation: "PutItem", times: 1 });
    expect(await creator.create("s", "k", dog, "r1", soon())).toEqual(answered(41, dog, true));
    proxy().clear();
    expect(await categories.list(soon())).toEqual([]);
  });

  it("decides when a repeat takes over a claim whose owner took no id", async () => {
    const { table, categories, creator, elsewhere } = await fixture();
    await recordedBefore(table, { ...live(), response: JSON.stringify({ id: 41, ...dog }) });
    await elsewhere.claim(recordKey, claimBy("gone", Date.now() - 1), Date.now(), soon());
    expect(await creator.create("s", "k", dog, "r1", soon())).toEqual(answered(41, dog, true));
    expect(await categories.list(soon())).toEqual([]);
  });

  it("gives the claim back when it cannot be read, so the next repeat reads it at once", async () => {
    const { table, categories, creator } = await fixture();
    await recordedBefore(table, { ...live(), response: JSON.stringify({ id: 41, ...dog }) });
    proxy().inject({
      fault: "server_error",
      operation: "GetItem",
      times: Number.POSITIVE_INFINITY,
    });
    await expect(creator.create("s", "k", dog, "r1", Date.now() + 300)).rejects.toThrow();
    proxy().clear();
    expect(await creator.create("s", "k", dog, "r2", soon())).toEqual(answered(41, dog, true));
    expect(await categories.list(soon())).toEqual([]);
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

describe("a claim whose answer was lost is the request's own when its retry is refused", () => {
  it("goes on to create, once, instead of waiting for itself", async () => {
    const { categories, creator } = await fixture();
    const lost = proxy().injected.get("lost_response") ?? 0;
    proxy().inject({ fault: "lost_response", operation: "PutItem", times: 1 });
    expect(await creator.create("s", "k", dog, "r1", soon())).toEqual(answered(1));
    proxy().clear();
    expect(proxy().injected.get("lost_response")).toBe(lost + 1);
    expect(await categories.list(soon())).toEqual([{ id: 1, ...dog }]);
    expect((await creator.create("s", "k", dog, "r2", soon())).replayed).toBe(true);
  });
});

describe("a stalled owner's lock holds until lockUntil; from then on a repeat takes it over", () => {
  it("answers 409 one ms before lockUntil and finishes the create at lockUntil", async () => {
    const lockUntil = Date.now() + 5_000;
    const clock = { now: lockUntil - 1 }; // stands still
    const { categories, creator, elsewhere } = await fixture(clock);
    await elsewhere.claim(recordKey, claimBy("r1", lockUntil), Date.now(), soon());
    await expect(creator.create("s", "k", dog, "r2", soon())).rejects.toMatchObject(inProgress);
    clock.now = lockUntil;
    expect(await creator.create("s", "k", dog, "r3", soon())).toEqual(answered(1));
    expect(await categories.list(soon())).toEqual([{ id: 1, ...dog }]);
  });
});

describe("of two repeats taking over a stalled owner, the one that loses hears 409 and writes nothing", () => {
  it("leaves the reserved id to the winner, though it read the stalled owner's record", async () => {
    const { categories, creator, elsewhere } = await fixture();
    // r1 reserved an id, then died before storing the category; its lock has passed.
    await elsewhere.claim(recordKey, claimBy("r1", Date.now() - 1), Date.now(), soon());
    await elsewhere.reserveId(recordKey, "r1", await categories.nextId(soon()), soon());
    // r2's read of the record that refused its claim is held back while r3 takes over. DynamoDB
    // (and DynamoDB Local) carry the record with the refused PutItem; dynalite 4.0.0 reads it after.
    const before = held();
    const read = storeEngine === "dynalite" ? "GetItem" : "PutItem";
    proxy().inject({ fault: "slow", operation: read, times: 1, delayMs: 1_500 });
    const r2 = expect(creator.create("s", "k", dog, "r2", soon())).rejects.toMatchObject(
      inProgress,
    );
    await untilHeld(before);
    expect(await elsewhere.takeOver(recordKey, "r1", claimBy("r3", soon()), soon())).toBe(true);
    await r2;
    proxy().clear();
    expect(await categories.list(soon())).toEqual([]);
  });
});

describe("a request whose record was taken over can change nothing: it hears 409", () => {
  it("cannot reserve an id: stores nothing, and the record stays its new owner's", async () => {
    const { categories, creator, clock } = await fixture();
    const deadline = soon();
    // r1's id take is held back past its lock; r2 takes the record over meanwhile and finishes.
    const before = held();
    proxy().inject({ fault: "slow", operation: "UpdateItem", times: 1, delayMs: 1_500 });
    const r1 = expect(creator.create("s", "k", dog, "r1", deadline)).rejects.toMatchObject(
      inProgress,
    );
    await untilHeld(before);
    clock.now = deadline + 2_000;
    const r2 = await creator.create("s", "k", dog, "r2", soon());
    await r1;
    // Id 1 went to r1's held id take: a gap, never a second category.
    expect(r2).toEqual(answered(2));
    expect(await categories.list(soon())).toEqual([{ id: 2, ...dog }]);
    expect(await creator.create("s", "k", dog, "r3", soon())).toEqual({ ...r2, replayed: true });
  });

  it("cannot store its answer: the new owner's repeat finishes under the same id", async () => {
    const { categories, creator, clock, elsewhere } = await fixture();
    // r1's read of the category under its reserved id is held back while r2 takes the record over.
    const before = held();
    const slowRead = { operation: "GetItem", partition: partitions.resource("category") };
    proxy().inject({ fault: "slow", ...slowRead, times: 1, delayMs: 1_000 });
    const r1 = expect(creator.create("s", "k", dog, "r1", soon())).rejects.toMatchObject(
      inProgress,
    );
    await untilHeld(before);
    const r2LockUntil = clock.now + 60_000;
    expect(await elsewhere.takeOver(recordKey, "r1", claimBy("r2", r2LockUntil), soon())).toBe(
      true,
    );
    await r1;
    // No answer was stored: a repeat waits for r2, then finishes r2's create under r1's id.
    await expect(creator.create("s", "k", dog, "r3", soon())).rejects.toMatchObject(inProgress);
    clock.now = r2LockUntil + 1;
    expect(await creator.create("s", "k", dog, "r4", soon())).toEqual(answered(1));
    expect(await categories.list(soon())).toEqual([{ id: 1, ...dog }]);
  });
});

describe("a claim refused by a record that is gone or expired when read claims again", () => {
  // dynalite 4.0.0 reads the refusing record after the refusal, so it may have changed; DynamoDB
  // (and DynamoDB Local, as its API reference says) carry it with the refusal, as it was: live.
  async function refusedThen(change: (f: Fixture) => Promise<void>): Promise<void> {
    const f = await fixture();
    await f.elsewhere.claim(recordKey, claimBy("r1", soon()), Date.now(), soon());
    const before = held();
    proxy().inject({ fault: "slow", operation: "PutItem", times: 1, delayMs: 1_500 });
    const outcome = Promise.allSettled([f.creator.create("s", "k", dog, "r2", soon())]);
    await untilHeld(before);
    await change(f);
    const [answer] = await outcome;
    proxy().clear();
    if (storeEngine === "dynalite") {
      expect(answer).toEqual({
        status: "fulfilled",
        value: answered(1),
      });
      expect(await f.categories.list(soon())).toEqual([{ id: 1, ...dog }]);
    } else {
      expect(answer).toMatchObject({ status: "rejected", reason: { status: 409 } });
    }
  }

  it("a record its owner released meanwhile", async () => {
    await refusedThen((f) => f.elsewhere.release(recordKey, "r1", soon()));
  });

  it("a record found past its 24 hours (TTL removes such records late)", async () => {
    await refusedThen(async (f) => {
      await new Table(store.db, f.table).put(
        keys.idempotency("s", "createCategory", "k"),
        { ...claimBy("r1", soon()), ttl: Math.floor(Date.now() / 1000) - 60 },
        soon(),
      );
    });
  });
});

describe("a create that failed before taking an id releases its claim, in the margin past its deadline", () => {
  it("lets a repeat start afresh at once though the failure came at the deadline", async () => {
    const { categories, creator } = await fixture();
    // The id take's answer is held past the deadline: the create fails when its budget is spent.
    const before = held();
    // A budget of 1.5 s: the claim before it must reach the id take in time on a loaded machine.
    proxy().inject({ fault: "slow", operation: "UpdateItem", times: 1, delayMs: 3_000 });
    const deadline = Date.now() + 1_500;
    await expect(creator.create("s", "k", dog, "r1", deadline)).rejects.toThrow();
    expect(held()).toBe(before + 1);
    expect(Date.now()).toBeGreaterThanOrEqual(deadline - 20);
    const repeat = await creator.create("s", "k", dog, "r2", soon());
    expect(repeat.replayed).toBe(false);
    expect(await categories.list(soon())).toEqual([repeat.category]);
  });
});

describe("the list version moves for each id taken and each put; a repeat storing an earlier id moves it again", () => {
  it("is bumped when a repeat finishes under an id an earlier request took", async () => {
    const { table, categories, creator, elsewhere } = await fixture();
    // r1 reserved an id and stored the category, but the version bump after its put was lost
    // and it died before storing its answer; its lock has passed.
    await elsewhere.claim(recordKey, claimBy("r1", Date.now() - 1), Date.now(), soon());
    const id = await categories.nextId(soon());
    await elsewhere.reserveId(recordKey, "r1", id, soon());
    proxy().inject({
      fault: "throttling",
      operation: "UpdateItem",
      times: Number.POSITIVE_INFINITY,
    });
    // The put needs one answer before the deadline; the bump retries until then.
    await categories.put(id, dog, "r1", Date.now() + scaled(300));
    proxy().clear();
    const version = await listVersion(table);
    expect(await creator.create("s", "k", dog, "r2", soon())).toEqual(answered(id));
    expect(await listVersion(table)).toBeGreaterThan(version);
  });

  it("is bumped by a first create under a key as by a create without one, no more", async () => {
    const { table, categories, creator } = await fixture();
    const start = await listVersion(table);
    await categories.create({ name: "cat" }, "plain", soon());
    const afterPlain = await listVersion(table);
    await creator.create("s", "k", dog, "keyed", soon());
    expect((await listVersion(table)) - afterPlain).toBe(afterPlain - start);
  });
});
