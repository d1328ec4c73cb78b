/**
 * A list cache's next snapshot, from what a refresh read (the plan and the argument: ./cache.ts).
 */
import type { Identified } from "../resource.ts";
import type { Found, Hole, ListSnapshot, ListVersion, Refresh } from "./cache.ts";
import { holeLifetimeMs, isSettled, settleMs } from "./cache.ts";

/** The snapshot after `refresh` (planned at `version.readAt`) has read `found`, in any order. */
export function applyRefresh<T extends Identified>(
  snapshot: ListSnapshot<T> | undefined,
  version: ListVersion,
  refresh: Refresh,
  found: readonly Found<T>[],
): ListSnapshot<T> {
  const { counter, withdrawals: withdrawn, readAt: now } = version;
  const base = refresh.kind === "cold" ? undefined : snapshot;
  if (base && refresh.kind === "current" && found.length === 0 && withdrawn.length === 0) {
    return expireSettling(base, version);
  }
  const sorted = [...found].sort((a, b) => a.category.id - b.category.id);
  const foundIds = new Set(sorted.map((entry) => entry.category.id));
  const holes = new Map<number, Hole>(base?.holes);
  for (const [id, hole] of holes) if (foundIds.has(id) || hole.until < now) holes.delete(id);
  addGaps(holes, sorted, refresh.above + 1, refresh.upTo, now);
  const settling = new Map<number, number>();
  for (const [id, createdAt] of base?.settling ?? []) settling.set(id, createdAt);
  for (const { category, createdAt } of sorted) {
    if (createdAt + settleMs >= now) settling.set(category.id, createdAt);
  }
  // A withdrawal names a put made before it; a later put of that id (a repeat) stands.
  const gone = new Set<number>();
  for (const { id, at } of withdrawn) {
    const createdAt = settling.get(id) ?? Number.NaN;
    if (createdAt <= at) {
      gone.add(id);
      settling.delete(id);
      holes.set(id, { until: createdAt + holeLifetimeMs, seen: now });
    }
  }
  for (const [id, createdAt] of settling) if (isSettled(createdAt, version)) settling.delete(id);
  const categories = mergeById(
    base?.categories ?? [],
    sorted.map((entry) => entry.category),
  ).filter((c) => !gone.has(c.id));
  const counterNow = refresh.kind === "current" && base ? base.counter : counter;
  return { counter: counterNow, categories, holes, settling };
}

function expireSettling<T extends Identified>(
  snapshot: ListSnapshot<T>,
  version: ListVersion,
): ListSnapshot<T> {
  const expired = [...snapshot.settling].filter(([, createdAt]) => isSettled(createdAt, version));
  if (expired.length === 0) return snapshot;
  const settling = new Map(snapshot.settling);
  for (const [id] of expired) settling.delete(id);
  return { ...snapshot, settling };
}

/**
 * Records each id in [low, high] absent from `found` as a hole, until the earliest createdAt of
 * a category above it (its id was taken before that one's) plus the hole lifetime.
 */
function addGaps(
  holes: Map<number, Hole>,
  found: readonly Found[],
  low: number,
  high: number,
  now: number,
): void {
  let takenBy = now;
  let index = found.length - 1;
  for (let id = high; id >= low; id--) {
    for (let entry = found[index]; entry && entry.category.id > id; entry = found[--index]) {
      if (entry.createdAt < takenBy) takenBy = entry.createdAt;
    }
    if (found[index]?.category.id === id) continue;
    const until = takenBy + holeLifetimeMs;
    if (until >= now) holes.set(id, { until, seen: now });
  }
}

/**
 * Both lists in id order, merged; ids never repeat between them. Two sorted runs: the sort
 * (TimSort) finds them and merges in linear time, as fast as a hand-written merge.
 */
function mergeById<T extends Identified>(older: readonly T[], newer: readonly T[]): T[] {
  return [...older, ...newer].sort((a, b) => a.id - b.id);
}
