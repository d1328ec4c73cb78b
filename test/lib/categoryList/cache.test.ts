import { describe, expect, it } from "vitest";
import type { CounterState, Found, ListSnapshot } from "../../../lib/categoryList/cache.ts";
import {
  applyRefresh,
  emptyCounter,
  holeLifetimeMs,
  planRefresh,
} from "../../../lib/categoryList/cache.ts";

const now = Date.parse("2026-11-22T12:00:00Z");
const counter = (changes: Partial<CounterState>): CounterState => ({
  ...emptyCounter,
  epoch: "e1",
  ...changes,
});
const found = (id: number, createdAt = now): Found => ({
  category: { id, name: `c${id}` },
  createdAt,
});
const ids = (snapshot: ListSnapshot): number[] => snapshot.visible.map((c) => c.id);

/** A cold read of ids 1..6 where 5 has not landed yet. */
function coldSnapshot(): ListSnapshot {
  const at = counter({ version: 5, lastId: 6 });
  const plan = planRefresh(undefined, at);
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
  it("serves the cache while the version is unchanged", () => {
    const snapshot = coldSnapshot();
    const plan = planRefresh(snapshot, snapshot.counter);
    expect(plan).toEqual({ kind: "current" });
    expect(applyRefresh(snapshot, snapshot.counter, plan, [], now)).toBe(snapshot);
  });

  it("reads cold without a cache, after a withdrawal, or from a recreated table", () => {
    const snapshot = coldSnapshot();
    expect(planRefresh(snapshot, { ...snapshot.counter, version: 7, withdrawals: 1 }).kind).toBe(
      "cold",
    );
    expect(planRefresh(snapshot, { ...snapshot.counter, epoch: "e2" }).kind).toBe("cold");
    expect(planRefresh(snapshot, { ...snapshot.counter, version: 1, lastId: 1 }).kind).toBe("cold");
  });

  it("after creates reads the ids above the cached ones and the holes below", () => {
    const snapshot = coldSnapshot();
    expect([...snapshot.holes.keys()]).toEqual([5]);
    const next = counter({ version: 7, lastId: 8 });
    expect(planRefresh(snapshot, next)).toEqual({
      kind: "incremental",
      above: 6,
      upTo: 8,
      holes: [5],
    });
  });
});

describe("ids landing out of order are listed once they land", () => {
  it("merges a hole's late put into id order and forgets the hole", () => {
    const snapshot = coldSnapshot();
    const next = counter({ version: 7, lastId: 8 });
    const plan = planRefresh(snapshot, next);
    const after = applyRefresh(snapshot, next, plan, [found(8), found(5)], now);
    expect(ids(after)).toEqual([1, 2, 3, 4, 5, 6, 8]);
    expect([...after.holes.keys()]).toEqual([7]);
  });
});

describe("a hole is kept only while a put may still land for it", () => {
  it("drops holes whose id was taken before a category stored over 25 h ago", () => {
    const at = counter({ version: 3, lastId: 4 });
    const old = now - holeLifetimeMs - 1;
    const snapshot = applyRefresh(
      undefined,
      at,
      planRefresh(undefined, at),
      [found(2, old), found(4)],
      now,
    );
    expect([...snapshot.holes.keys()].sort()).toEqual([3]);
  });

  it("expires a kept hole once its time has passed", () => {
    const snapshot = coldSnapshot();
    const next = counter({ version: 6, lastId: 6 });
    const later = applyRefresh(
      snapshot,
      next,
      planRefresh(snapshot, next),
      [],
      now + holeLifetimeMs + 1,
    );
    expect(later.holes.size).toBe(0);
  });
});

describe("ids being withdrawn are never listed", () => {
  it("hides them from the answer while keeping what was read", () => {
    const at = counter({ version: 2, lastId: 2, withdrawing: [2] });
    const snapshot = applyRefresh(
      undefined,
      at,
      planRefresh(undefined, at),
      [found(1), found(2)],
      now,
    );
    expect(ids(snapshot)).toEqual([1]);
    expect(snapshot.stored.map((c) => c.id)).toEqual([1, 2]);
  });
});
