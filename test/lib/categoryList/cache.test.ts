import { describe, expect, it } from "vitest";
import type { CounterState, Found, ListSnapshot } from "../../../lib/categoryList/cache.ts";
import {
  applyRefresh,
  emptyCounter,
  holeLifetimeMs,
  planRefresh,
  settleMs,
} from "../../../lib/categoryList/cache.ts";

const now = Date.parse("2026-11-22T12:00:00Z");
/** Long enough ago that a create has settled. */
const old = now - 60_000;
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

/** A cold read of ids 1..6 where 5 has not landed yet. */
function coldSnapshot(): ListSnapshot {
  const at = counter({ version: 5, lastId: 6 });
  const plan = planRefresh(undefined, at, now);
  expect(plan).toEqual({ kind: "cold", upTo: 6 });
  return applyRefresh(
    undefined,
    at,
    plan,
    [1, 2, 3, 4, 6].map((id) => found(id)),
    now,
  );
}

describe("a list reads only when the store's version moved", () => {
  it("serves the cache while the version is unchanged and nothing is settling", () => {
    const snapshot = coldSnapshot();
    const plan = planRefresh(snapshot, snapshot.counter, now);
    expect(plan).toEqual({ kind: "current" });
    expect(applyRefresh(snapshot, snapshot.counter, plan, [], now)).toBe(snapshot);
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
    expect(planRefresh(snapshot, next, now)).toEqual({
      kind: "incremental",
      above: 6,
      upTo: 8,
      recheck: [5],
    });
  });
});

describe("ids landing out of order are listed once they land", () => {
  it("merges a hole's late put into id order and forgets the hole", () => {
    const snapshot = coldSnapshot();
    const next = counter({ version: 7, lastId: 8 });
    const after = applyRefresh(
      snapshot,
      next,
      planRefresh(snapshot, next, now),
      [found(8), found(5)],
      now,
    );
    expect(ids(after)).toEqual([1, 2, 3, 4, 5, 6, 8]);
    expect([...after.holes.keys()]).toEqual([7]);
  });
});

describe("a hole is kept only while a put may still land for it", () => {
  it("drops holes whose id was taken before a category stored over 25 h ago", () => {
    const at = counter({ version: 3, lastId: 4 });
    const ancient = now - holeLifetimeMs - 1;
    const plan = planRefresh(undefined, at, now);
    const snapshot = applyRefresh(undefined, at, plan, [found(2, ancient), found(4)], now);
    expect([...snapshot.holes.keys()]).toEqual([3]);
  });

  it("expires a kept hole once its time has passed", () => {
    const snapshot = coldSnapshot();
    const next = counter({ version: 6, lastId: 6 });
    const later = now + holeLifetimeMs + 1;
    const after = applyRefresh(snapshot, next, planRefresh(snapshot, next, later), [], later);
    expect(after.holes.size).toBe(0);
  });
});

describe("a category still settling is read again until its create can no longer withdraw it", () => {
  const at = counter({ version: 2, lastId: 2 });
  const fresh = (): ListSnapshot =>
    applyRefresh(undefined, at, planRefresh(undefined, at, now), [found(1), found(2, now)], now);

  it("re-reads a just-stored id even when the version is unchanged", () => {
    expect(planRefresh(fresh(), at, now + 1)).toEqual({
      kind: "incremental",
      above: 2,
      upTo: 2,
      recheck: [2],
    });
    expect(planRefresh(fresh(), at, now + settleMs + 1)).toEqual({ kind: "current" });
  });

  it("drops a settling id found gone (withdrawn) and keeps it as a hole", () => {
    const snapshot = fresh();
    const after = applyRefresh(snapshot, at, planRefresh(snapshot, at, now + 1), [], now + 1);
    expect(ids(after)).toEqual([1]);
    expect([...after.holes.keys()]).toEqual([2]);
    expect(after.settling.size).toBe(0);
  });

  it("keeps a settling id found again", () => {
    const snapshot = fresh();
    const plan = planRefresh(snapshot, at, now + 1);
    const after = applyRefresh(snapshot, at, plan, [found(2, now)], now + 1);
    expect(ids(after)).toEqual([1, 2]);
  });
});
