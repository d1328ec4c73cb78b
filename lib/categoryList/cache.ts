/**
 * The list cache's state machine: what a container knows about the categories partition, and what
 * it must read to bring that up to date. Pure: the reads themselves are in ./reader.ts.
 *
 * The counter item (pk COUNTER, sk category; tiny, one read unit to read consistently) holds
 *   value        the last id handed out (ids only grow)
 *   version      bumped by every committed create and every withdrawal
 *   withdrawals  bumped by every withdrawal
 *   withdrawing  ids whose withdrawal has started and not finished (a number set)
 *   epoch        when the counter was first written (a recreated table starts a new one)
 *
 * A create takes id k (ADD value), puts the category, then commits (ADD version) and only then
 * answers 201. A list reads the counter first, then, only if the version differs from the one its
 * cache was read at, reads what changed:
 *   - same version: serve the cache (one read unit);
 *   - other epoch or withdrawals, or no cache: cold read of ids [1, value] (./ranges.ts);
 *   - otherwise: ids in (cached value, value], plus the holes: ids ≤ the cached value that were
 *     absent. Holes catch puts landing out of order (id 5's put lands after id 6 was listed).
 *
 * Why a list never misses a category whose 201 was sent before it began: that 201 followed the
 * commit, which followed the put. So the list's counter read sees a version at least that
 * commit's. If it equals the cache's version, the cache was read after the commit (the cache's
 * counter read came before its item reads), so its item reads saw the put. If not, the list reads
 * every id above the cached value and every hole below it, after its counter read, so after the
 * put. A hole is forgotten only once no put can land for it any more: ids are taken before any
 * later id's put (so a higher category's createdAt bounds when the hole's id was taken), and an
 * id is put within the idempotency window (24 h, ids reserved by Idempotency-Key) plus a margin.
 *
 * Why a withdrawn create stays unlisted: a create that must fail deletes its own write. A delete
 * that removed something bumps `withdrawals` (and `version`), and a changed `withdrawals` makes a
 * cache read cold, which no longer sees it. A delete that failed (the store unreachable) marks the
 * id `withdrawing` instead, and lists hide marked ids: it never got a 201. An Idempotency-Key
 * repeat that does store it later commits with the mark removed. Left open: the delete succeeds
 * and the bump right after it fails; caches that had read the category keep it until recycled.
 */
import type { Category } from "../repositories/categories.ts";

export interface CounterState {
  readonly epoch: string;
  readonly version: number;
  readonly withdrawals: number;
  readonly lastId: number;
  readonly withdrawing: readonly number[];
}

/** A category as read, with when it was stored (epoch ms; NaN when unknown). */
export interface Found {
  readonly category: Category;
  readonly createdAt: number;
}

export interface ListSnapshot {
  readonly counter: CounterState;
  /** Every category read, in id order, including ids being withdrawn. */
  readonly stored: readonly Category[];
  /** What a list answers: `stored` without the ids being withdrawn. */
  readonly visible: readonly Category[];
  /** Ids ≤ counter.lastId that were absent, each with the time after which none can land. */
  readonly holes: ReadonlyMap<number, number>;
}

export type Refresh =
  | { readonly kind: "current" }
  | { readonly kind: "cold"; readonly upTo: number }
  | {
      readonly kind: "incremental";
      readonly above: number;
      readonly upTo: number;
      readonly holes: readonly number[];
    };

/**
 * How long after its id was taken a category's put may still land: an id reserved by an
 * Idempotency-Key may be stored by a repeat up to 24 h later; the hour covers the Lambda timeout,
 * the life of a signed request in flight, and clock skew between containers.
 */
export const holeLifetimeMs = 25 * 60 * 60 * 1000;

export const emptyCounter: CounterState = {
  epoch: "0",
  version: 0,
  withdrawals: 0,
  lastId: 0,
  withdrawing: [],
};

export function planRefresh(snapshot: ListSnapshot | undefined, counter: CounterState): Refresh {
  if (!snapshot) return { kind: "cold", upTo: counter.lastId };
  const cached = snapshot.counter;
  if (cached.epoch !== counter.epoch || cached.withdrawals !== counter.withdrawals) {
    return { kind: "cold", upTo: counter.lastId };
  }
  if (cached.version === counter.version) return { kind: "current" };
  if (counter.version < cached.version || counter.lastId < cached.lastId) {
    return { kind: "cold", upTo: counter.lastId };
  }
  return {
    kind: "incremental",
    above: cached.lastId,
    upTo: counter.lastId,
    holes: [...snapshot.holes.keys()],
  };
}

/** The snapshot after `refresh` has read `found` (in any order). */
export function applyRefresh(
  snapshot: ListSnapshot | undefined,
  counter: CounterState,
  refresh: Refresh,
  found: readonly Found[],
  now: number,
): ListSnapshot {
  if (refresh.kind === "current" && snapshot) return snapshot;
  const sorted = [...found].sort((a, b) => a.category.id - b.category.id);
  const base = refresh.kind === "incremental" ? snapshot : undefined;
  const foundIds = new Set(sorted.map((entry) => entry.category.id));
  const holes = new Map<number, number>();
  for (const [id, until] of base?.holes ?? []) {
    if (!foundIds.has(id) && until >= now) holes.set(id, until);
  }
  const low = refresh.kind === "incremental" ? refresh.above + 1 : 1;
  addGaps(holes, sorted, low, counter.lastId, now);
  const stored = mergeById(
    base?.stored ?? [],
    sorted.map((entry) => entry.category),
  );
  const hidden = new Set(counter.withdrawing);
  const visible = hidden.size === 0 ? stored : stored.filter((c) => !hidden.has(c.id));
  return { counter, stored, visible, holes };
}

/**
 * Records each id in [low, high] absent from `found` as a hole, until the earliest createdAt of
 * a category above it (its id was taken before that one's) plus the hole lifetime.
 */
function addGaps(
  holes: Map<number, number>,
  found: readonly Found[],
  low: number,
  high: number,
  now: number,
): void {
  let takenBy = now;
  let index = found.length - 1;
  for (let id = high; id >= low; id--) {
    for (; index >= 0 && (found[index]?.category.id ?? 0) > id; index--) {
      const createdAt = found[index]?.createdAt ?? Number.NaN;
      if (createdAt < takenBy) takenBy = createdAt;
    }
    if (found[index]?.category.id === id) continue;
    const until = takenBy + holeLifetimeMs;
    if (until >= now) holes.set(id, until);
  }
}

/** Both lists in id order, merged; ids never repeat between them. */
function mergeById(older: readonly Category[], newer: readonly Category[]): readonly Category[] {
  if (newer.length === 0) return older;
  const last = older.at(-1);
  const first = newer[0];
  if (!last || (first && first.id > last.id)) return [...older, ...newer];
  return [...older, ...newer].sort((a, b) => a.id - b.id);
}
