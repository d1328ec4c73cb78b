import { describe, expect, it } from "vitest";
import type {
  CounterState,
  Found,
  ListSnapshot,
  Withdrawal,
} from "../../../lib/categoryList/cache.ts";
import {
  emptyCounter,
  holeLifetimeMs,
  isSettled,
  planRefresh,
  settleMs,
  withdrawalsSince,
} from "../../../lib/categoryList/cache.ts";
import { applyRefresh } from "../../../lib/categoryList/snapshot.ts";
import { withdrawalRecordMs } from "../../../lib/table/schema.ts";

const now = Date.parse("2026-11-22T12:00:00Z");
/** Long enough ago that its create has settled. */
const old = now - 2 * settleMs;
const counter = (changes: Partial<CounterState>): CounterState => ({
  ...emptyCounter,
  epoch: "e1",
  ...changes,
});
const found = (id: number, createdAt = old): Found => ({
  category: { id, name: `c${id}` },
  createdAt,
});
const ids = (snapshot: ListSnapshot): number[] => snapshot.categories.map((c) => c.id);
/** One list at `time`: its first read found `at` and `withdrawn`, then the refresh read `read`. */
const step = (
  snapshot: ListSnapshot | undefined,
  at: CounterState,
  read: readonly Found[],
  withdrawn: readonly Withdrawal[] = [],
  time = now,
): ListSnapshot => {
  const version = {
    counter: at,
    withdrawals: withdrawn,
    readAt: time,
    since: withdrawalsSince(snapshot, time),
  };
  return applyRefresh(snapshot, version, planRefresh(snapshot, at, time), read);
};

/** A cold read of ids 1..6 where 5 has not landed yet. */
function coldSnapshot(): ListSnapshot {
  const at = counter({ version: 5, lastId: 6 });
  expect(planRefresh(undefined, at, now)).toEqual({ kind: "cold", above: 0, upTo: 6, recheck: [] });
  expect(withdrawalsSince(undefined, now)).toBe(now - 2 * settleMs);
  return step(
    undefined,
    at,
    [1, 2, 3, 4, 6].map((id) => found(id)),
  );
}

describe("a list reads only when the store's version moved", () => {
  it("serves the cache while the version is unchanged, reading nothing more", () => {
    const snapshot = coldSnapshot();
    const later = now + settleMs + 1;
    const plan = planRefresh(snapshot, snapshot.counter, later);
    expect(plan).toEqual({ kind: "current", above: 6, upTo: 6, recheck: [] });
    const version = { counter: snapshot.counter, withdrawals: [], readAt: later, since: 0 };
    expect(applyRefresh(snapshot, version, plan, [])).toBe(snapshot);
  });

  it("reads a hole found under a minute ago again, the version unchanged (a put in flight)", () => {
    const snapshot = coldSnapshot();
    expect(planRefresh(snapshot, snapshot.counter, now + 1)).toMatchObject({
      kind: "current",
      recheck: [5],
    });
    const after = step(snapshot, snapshot.counter, [found(5, now)], [], now + 1);
    expect(ids(after)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(after.holes.size).toBe(0);
  });

  it("reads cold without a cache, or from a recreated table", () => {
    const snapshot = coldSnapshot();
    expect(planRefresh(snapshot, { ...snapshot.counter, epoch: "e2" }, now).kind).toBe("cold");
    expect(planRefresh(snapshot, { ...snapshot.counter, version: 1, lastId: 1 }, now).kind).toBe(
      "cold",
    );
  });

  it("after creates reads the ids above the cached ones and the holes below", () => {
    const snapshot = coldSnapshot();
    expect([...snapshot.holes.keys()]).toEqual([5]);
    const next = counter({ version: 7, lastId: 8 });
    expect(planRefresh(snapshot, next, now)).toMatchObject({
      kind: "incremental",
      above: 6,
      upTo: 8,
      recheck: [5],
    });
  });
});

describe("ids landing out of order are listed once they land", () => {
  it("merges a hole's late put into id order and forgets the hole", () => {
    const after = step(coldSnapshot(), counter({ version: 7, lastId: 8 }), [found(8), found(5)]);
    expect(ids(after)).toEqual([1, 2, 3, 4, 5, 6, 8]);
    expect([...after.holes.keys()]).toEqual([7]);
  });
});

describe("a hole is kept only while a put may still land for it", () => {
  it("drops holes whose id was taken before a category stored over 25 h ago", () => {
    const ancient = now - holeLifetimeMs - 1;
    const snapshot = step(undefined, counter({ version: 3, lastId: 4 }), [
      found(2, ancient),
      found(4),
    ]);
    expect([...snapshot.holes.keys()]).toEqual([3]);
  });

  it("expires a kept hole once its time has passed", () => {
    const later = now + holeLifetimeMs + 1;
    const after = step(coldSnapshot(), counter({ version: 6, lastId: 6 }), [], [], later);
    expect(after.holes.size).toBe(0);
  });
});

describe("a cache holding a just-stored category reads the withdrawals until it has settled", () => {
  const at = counter({ version: 2, lastId: 2 });
  const fresh = (): ListSnapshot => step(undefined, at, [found(1), found(2, now)]);

  it("reads the withdrawals since before its newest put, until a read after it has settled", () => {
    const later = now + 5 * settleMs;
    expect(withdrawalsSince(fresh(), later)).toBe(now - settleMs);
    const settled = step(fresh(), at, [], [], now + settleMs + 1);
    expect(settled.settling.size).toBe(0);
    expect(withdrawalsSince(settled, later)).toBe(later - 2 * settleMs);
  });

  it("still reads from before that put after sitting idle for longer than it takes to settle", () => {
    const idle = now + 10 * settleMs;
    expect(withdrawalsSince(fresh(), idle)).toBe(now - settleMs);
    const after = step(
      fresh(),
      counter({ version: 3, lastId: 2 }),
      [],
      [{ id: 2, at: now + 5 }],
      idle,
    );
    expect(ids(after)).toEqual([1]);
  });

  it("reads cold once idle for longer than withdrawals are kept", () => {
    expect(planRefresh(fresh(), at, now + withdrawalRecordMs).kind).toBe("cold");
  });

  it("drops a withdrawn id, even with the version unchanged, and keeps it as a hole", () => {
    const after = step(fresh(), at, [], [{ id: 2, at: now + 5 }], now + 10);
    expect(ids(after)).toEqual([1]);
    expect([...after.holes.keys()]).toEqual([2]);
  });
});

/** A snapshot at `at` holding no categories, with these holes and settling ids. */
const snapshotWith = (
  at: CounterState,
  holes: readonly (readonly [number, { until: number; seen: number }])[] = [],
  settling: readonly (readonly [number, number])[] = [],
): ListSnapshot => ({
  counter: at,
  categories: [],
  holes: new Map(holes),
  settling: new Map(settling),
});

describe("a counter behind the cache's means another table or a rewind: the list reads cold", () => {
  const cached = counter({ version: 5, lastId: 6 });

  it.each([
    ["the version went back, though the last id did not", 4, 6],
    ["the last id went back, though the version moved on", 9, 5],
  ])("reads cold when %s", (_, version, lastId) => {
    const plan = planRefresh(snapshotWith(cached), counter({ version, lastId }), now);
    expect(plan).toEqual({ kind: "cold", above: 0, upTo: lastId, recheck: [] });
  });
});

describe("with the version unchanged, only holes found in the last settleMs are read again", () => {
  it("rechecks a hole seen exactly settleMs ago, and not one ms later", () => {
    const at = counter({ version: 5, lastId: 6 });
    const snapshot = snapshotWith(at, [[5, { until: now + holeLifetimeMs, seen: now }]]);
    expect(planRefresh(snapshot, at, now + settleMs).recheck).toEqual([5]);
    expect(planRefresh(snapshot, at, now + settleMs + 1).recheck).toEqual([]);
  });

  it("rechecks every hole however old once the version moved", () => {
    const at = counter({ version: 5, lastId: 6 });
    const snapshot = snapshotWith(at, [[5, { until: now + holeLifetimeMs, seen: now }]]);
    const later = now + 10 * settleMs;
    expect(planRefresh(snapshot, counter({ version: 6, lastId: 6 }), later)).toEqual({
      kind: "incremental",
      above: 6,
      upTo: 6,
      recheck: [5],
    });
  });
});

describe("withdrawals are read from before the oldest settling category, by settleMs", () => {
  it("reads from settleMs before the oldest settling createdAt when that is earlier", () => {
    const snapshot = snapshotWith(
      counter({}),
      [],
      [
        [1, now - 1.5 * settleMs],
        [2, now - 1.8 * settleMs],
        [3, now],
      ],
    );
    expect(withdrawalsSince(snapshot, now)).toBe(now - 2.8 * settleMs);
  });
});

describe("a cache reads cold once a withdrawal it must see may have expired (records kept a day)", () => {
  it("trusts the cache while its oldest settling category's withdrawals are still kept", () => {
    const at = counter({ version: 1, lastId: 1 });
    const edge = now - withdrawalRecordMs + 2 * settleMs;
    expect(planRefresh(snapshotWith(at, [], [[1, edge]]), at, now).kind).toBe("current");
    expect(planRefresh(snapshotWith(at, [], [[1, edge - 1]]), at, now).kind).toBe("cold");
  });
});

describe("a category has settled once a read more than settleMs after its put read the withdrawals since before it", () => {
  const createdAt = now;
  const version = (readAt: number, since: number) => ({
    counter: emptyCounter,
    withdrawals: [],
    readAt,
    since,
  });

  it("needs the read sent strictly more than settleMs after the put", () => {
    expect(isSettled(createdAt, version(createdAt + settleMs, createdAt - settleMs))).toBe(false);
    expect(isSettled(createdAt, version(createdAt + settleMs + 1, createdAt - settleMs))).toBe(
      true,
    );
  });

  it("needs the withdrawals read from at least settleMs before the put", () => {
    const readAt = createdAt + 2 * settleMs;
    expect(isSettled(createdAt, version(readAt, createdAt - settleMs + 1))).toBe(false);
    expect(isSettled(createdAt, version(readAt, createdAt - settleMs - 1))).toBe(true);
  });
});
