/**
 * A list cache's next snapshot (lib/categoryList/snapshot.ts): what a refresh read, merged into the
 * cache by the rules of lib/categoryList/cache.ts (holes, settling categories, withdrawals).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type {
  CounterState,
  Found,
  Hole,
  ListSnapshot,
  ListVersion,
  Refresh,
  Withdrawal,
} from "../../../lib/categoryList/cache.ts";
import { holeLifetimeMs, settleMs } from "../../../lib/categoryList/cache.ts";
import { applyRefresh } from "../../../lib/categoryList/snapshot.ts";

const now = Date.parse("2026-11-22T12:00:00Z");
const old = now - 10 * settleMs;
const counter = (version: number, lastId: number): CounterState => ({
  epoch: "e1",
  version,
  lastId,
});
const found = (id: number, createdAt = old): Found => ({
  category: { id, name: `c${id}` },
  createdAt,
});
const snapshot = (
  at: CounterState,
  ids: readonly number[],
  holes: readonly (readonly [number, Hole])[] = [],
  settling: readonly (readonly [number, number])[] = [],
): ListSnapshot => ({
  counter: at,
  categories: ids.map((id) => found(id).category),
  holes: new Map(holes),
  settling: new Map(settling),
});
const version = (
  at: CounterState,
  withdrawals: readonly Withdrawal[] = [],
  readAt = now,
  since = readAt - 2 * settleMs,
): ListVersion => ({ counter: at, withdrawals, readAt, since });
const refresh = (
  kind: Refresh["kind"],
  above: number,
  upTo: number,
  recheck: number[] = [],
): Refresh => ({ kind, above, upTo, recheck });
const ids = (s: ListSnapshot): number[] => s.categories.map((c) => c.id);
/** Categories 1–3 cached; 2 settled a while ago (two settle windows), 3 still settling. */
const settledAndSettling = (at: CounterState): ListSnapshot =>
  snapshot(
    at,
    [1, 2, 3],
    [],
    [
      [2, now - 2 * settleMs],
      [3, now - 10],
    ],
  );

describe("a cold read trusts nothing cached", () => {
  it("answers only what it read, with the counter it read", () => {
    const cached = snapshot(counter(9, 9), [1, 2, 9], [[5, { until: now + 1, seen: old }]]);
    const next = applyRefresh(cached, version(counter(2, 3)), refresh("cold", 0, 3), [
      found(3),
      found(1),
    ]);
    expect(ids(next)).toEqual([1, 3]);
    expect(next.counter).toEqual(counter(2, 3));
    expect([...next.holes.keys()]).toEqual([2]);
  });
});

describe("an unchanged version with nothing read keeps the cache, dropping settled ids only", () => {
  it("forgets a settling id once a read has settled it, keeping the categories", () => {
    const at = counter(3, 3);
    const cached = settledAndSettling(at);
    const next = applyRefresh(
      cached,
      version(at, [], now, now - 4 * settleMs),
      refresh("current", 3, 3),
      [],
    );
    expect(ids(next)).toEqual([1, 2, 3]);
    expect([...next.settling]).toEqual([[3, now - 10]]);
    expect(next.counter).toBe(at);
  });
});

describe("a refresh that read only the cached ids keeps the cached counter", () => {
  it("keeps the cached last id, so ids above it are read when the version moves", () => {
    const cached = snapshot(
      counter(3, 3),
      [1, 2],
      [[3, { until: now + holeLifetimeMs, seen: now }]],
    );
    const next = applyRefresh(cached, version(counter(3, 4)), refresh("current", 3, 3, [3]), [
      found(3),
    ]);
    expect(ids(next)).toEqual([1, 2, 3]);
    expect(next.counter).toEqual(counter(3, 3));
    const moved = applyRefresh(cached, version(counter(4, 4)), refresh("incremental", 3, 4), []);
    expect(moved.counter).toEqual(counter(4, 4));
  });
});

describe("an absent id is a hole until a put can no longer land (a higher category's createdAt + 25 h)", () => {
  it("dates each hole by the earliest createdAt above it, and keeps it through its last ms", () => {
    const at = counter(5, 5);
    const next = applyRefresh(undefined, version(at), refresh("cold", 0, 5), [
      found(3, now - 100),
      found(5, now - 300),
    ]);
    expect(ids(next)).toEqual([3, 5]);
    const until = { until: now - 300 + holeLifetimeMs, seen: now };
    expect(next.holes.get(4)).toEqual(until);
    expect(next.holes.get(2)).toEqual(until);
    expect(next.holes.get(1)).toEqual(until);
    expect([...next.holes.keys()].sort()).toEqual([1, 2, 4]);
  });

  it("dates a hole above every category read by now (its id may have just been taken)", () => {
    const next = applyRefresh(undefined, version(counter(2, 2)), refresh("cold", 0, 2), [found(1)]);
    expect(next.holes.get(2)).toEqual({ until: now + holeLifetimeMs, seen: now });
  });

  it("a category whose createdAt is unknown (NaN) dates no hole", () => {
    const next = applyRefresh(undefined, version(counter(3, 3)), refresh("cold", 0, 3), [
      found(2, Number.NaN),
      found(3, now - 500),
    ]);
    expect(next.holes.get(1)).toEqual({ until: now - 500 + holeLifetimeMs, seen: now });
  });
});

describe("a withdrawal drops the category it names unless it was stored again after it", () => {
  const at = counter(2, 2);
  const fresh = (): ListSnapshot => snapshot(at, [1, 2], [], [[2, now - 10]]);

  it("drops a withdrawn id, keeping it a hole for 25 h from its put", () => {
    const next = applyRefresh(
      fresh(),
      version(counter(3, 2), [{ id: 2, at: now - 5 }]),
      refresh("incremental", 2, 2),
      [],
    );
    expect(ids(next)).toEqual([1]);
    expect(next.holes.get(2)).toEqual({ until: now - 10 + holeLifetimeMs, seen: now });
    expect(next.settling.size).toBe(0);
  });

  it("drops a withdrawn id read in this same refresh", () => {
    const next = applyRefresh(
      undefined,
      version(at, [{ id: 2, at: now - 5 }]),
      refresh("cold", 0, 2),
      [found(1), found(2, now - 10)],
    );
    expect(ids(next)).toEqual([1]);
  });

  it("ignores a withdrawal of an id not settling (long settled, or never read)", () => {
    const next = applyRefresh(
      snapshot(at, [1, 2]),
      version(counter(3, 2), [{ id: 1, at: now - 5 }]),
      refresh("incremental", 2, 2),
      [],
    );
    expect(ids(next)).toEqual([1, 2]);
    expect(next.holes.size).toBe(0);
  });
});

describe("a refresh that read something forgets the settling ids it has settled", () => {
  it("drops a cached settling id once settled, and keeps one still settling", () => {
    const at = counter(3, 3);
    const cached = settledAndSettling(at);
    const next = applyRefresh(
      cached,
      version(counter(4, 4), [], now, now - 4 * settleMs),
      refresh("incremental", 3, 4),
      [found(4)],
    );
    expect(ids(next)).toEqual([1, 2, 3, 4]);
    expect([...next.settling]).toEqual([[3, now - 10]]);
  });
});

/**
 * Each rule's boundary falls on the side that keeps a list correct: a moment that may still see
 * a put land, or a withdrawal arrive, counts as such. Stated as the rule, for any distance from
 * the boundary (`past`: how far, in ms of the injected clock, the moment lies past it).
 */
describe("a boundary moment counts on the safe side", () => {
  const past = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.integer({ min: -1e9, max: 1e9 }));

  it("an absent id stays a hole until a put can no longer land for it: its last moment included", () => {
    fc.assert(
      fc.property(past, (d) => {
        // The id above was stored at `createdAt`: the absent one was taken before it.
        const createdAt = now - holeLifetimeMs - d;
        const next = applyRefresh(undefined, version(counter(2, 2)), refresh("cold", 0, 2), [
          found(2, createdAt),
        ]);
        expect(next.holes.has(1)).toBe(createdAt + holeLifetimeMs >= now);
      }),
    );
  });

  it("a cached hole is kept through its last moment, then forgotten; an id read fills it", () => {
    fc.assert(
      fc.property(past, (d) => {
        const until = now - d;
        const cached = snapshot(counter(3, 3), [3], [[1, { until, seen: old }]]);
        const bump = version(counter(4, 3));
        const next = applyRefresh(cached, bump, refresh("incremental", 3, 3, [1]), []);
        expect(next.holes.has(1)).toBe(until >= now);
        const filled = applyRefresh(cached, bump, refresh("incremental", 3, 3, [1]), [found(1)]);
        expect(filled.holes.size).toBe(0);
        expect(ids(filled)).toEqual([1, 3]);
      }),
    );
  });

  it("a category read while its create may still withdraw it (within settleMs of its put) is settling", () => {
    fc.assert(
      fc.property(past, (d) => {
        const createdAt = now - settleMs - d;
        const next = applyRefresh(
          undefined,
          version(counter(1, 1), [], now, now),
          refresh("cold", 0, 1),
          [found(1, createdAt)],
        );
        expect(next.settling.has(1)).toBe(createdAt + settleMs >= now);
      }),
    );
  });

  it("a withdrawal takes back the put it names, made at or before it; a put after it stands", () => {
    fc.assert(
      fc.property(fc.integer({ min: -3, max: 3 }), (d) => {
        const createdAt = now - 10;
        const at = createdAt + d;
        const next = applyRefresh(
          snapshot(counter(2, 2), [1, 2], [], [[2, createdAt]]),
          version(counter(3, 2), [{ id: 2, at }]),
          refresh("incremental", 2, 2),
          [],
        );
        expect(ids(next)).toEqual(createdAt <= at ? [1] : [1, 2]);
      }),
    );
  });
});
