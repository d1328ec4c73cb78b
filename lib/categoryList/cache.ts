/**
 * The list cache's state machine: what a container knows about the categories partition, and what
 * it must read to bring that up to date. Pure: the reads themselves are in ./reader.ts.
 *
 * The counter item (pk COUNTER, sk category; tiny, one read unit to read consistently) holds
 *   value    the last id handed out (ids only grow)
 *   version  bumped with every id taken (the same UpdateItem: no write of its own), by an
 *            Idempotency-Key repeat that stores an id taken earlier, and by a withdrawal
 *   epoch    when the counter was first written (a recreated table starts a new one)
 *
 * A list reads the counter first, then, against its cache:
 *   - no cache, or another epoch: cold read of ids [1, value] in parallel ranges (./ranges.ts);
 *   - the version moved: ids in (cached value, value], plus every hole (an id ≤ the cached value
 *     that was absent: its put may land late, out of order);
 *   - the version unchanged: the holes found in the last `settleMs` only (puts still in flight);
 *   - with every refresh, and while the cache holds a category stored in the last `settleMs`:
 *     the withdrawals recorded lately (one Query of the WITHDRAWN partition).
 * With nothing created in the last `settleMs`, an unchanged version is one read unit in all.
 *
 * Why a list never misses a category whose 201 was sent before it began: the create took its id
 * (bumping the version), stored it, then answered. So the list's counter read sees a version at
 * least that id take's. If it differs from the cache's, the list reads every id above the cached
 * value and every hole below it, after its counter read, so after the put. If it equals it, the
 * cache's counter read came after the id take, so the id is in the cache or a hole there; a
 * create stores its id within the Lambda timeout of taking it, so that hole is at most `settleMs`
 * old and is read again. (A repeat storing an id taken by an earlier request bumps the version.)
 * A hole is forgotten only once no put can land for it any more: ids are taken before any later
 * id's put (so a higher category's createdAt bounds when the hole's id was taken), and an id is
 * put within the idempotency window (24 h) plus a margin.
 *
 * Why a withdrawn create is not listed after its withdrawal: a cache may have read its put before
 * the withdrawal deleted it. A create that must fail records the withdrawal first (a WITHDRAWN
 * item, in its own partition: the counter's may be what is failing), then deletes its write. It
 * does so within the Lambda timeout of its put, so a cache holding a category stored in the last
 * `settleMs` reads the withdrawals recorded since, on every list, and drops the ids named
 * (unless stored again after the withdrawal, by an Idempotency-Key repeat).
 */
import type { Category } from "../repositories/categories.ts";

export interface CounterState {
  readonly epoch: string;
  readonly version: number;
  readonly lastId: number;
}

/** A category as read, with when it was stored (epoch ms; NaN when unknown). */
export interface Found {
  readonly category: Category;
  readonly createdAt: number;
}

/** A recorded withdrawal: the id, and when its create gave it up (epoch ms). */
export interface Withdrawal {
  readonly id: number;
  readonly at: number;
}

/** An id taken and not (yet) stored. */
export interface Hole {
  /** After this (epoch ms) no put can land for it any more. */
  readonly until: number;
  /** When this cache first found it missing: a put in flight lands within `settleMs` of it. */
  readonly seen: number;
}

export interface ListSnapshot {
  readonly counter: CounterState;
  /** Every category read, in id order: what a list answers. */
  readonly categories: readonly Category[];
  /** Ids ≤ counter.lastId that were absent. */
  readonly holes: ReadonlyMap<number, Hole>;
  /** Ids stored less than `settleMs` before they were read, with their createdAt. */
  readonly settling: ReadonlyMap<number, number>;
}

export interface Refresh {
  /** What to read: nothing, everything up to `upTo`, or what changed since the cache. */
  readonly kind: "current" | "cold" | "incremental";
  /** Ids above this, up to `upTo`, are read with Queries. */
  readonly above: number;
  readonly upTo: number;
  /** Ids to read one by one: every hole when the version moved, else the recent ones. */
  readonly recheck: readonly number[];
  /** Read the withdrawals recorded since this time, when the cache holds settling ids. */
  readonly withdrawnSince: number | undefined;
}

/**
 * How long after its id was taken a category's put may still land: an id reserved by an
 * Idempotency-Key may be stored by a repeat up to 24 h later; the hour covers the Lambda timeout,
 * the life of a signed request in flight, and clock skew between containers.
 */
export const holeLifetimeMs = 25 * 60 * 60 * 1000;

/**
 * How long after its put a create may still withdraw it: the Lambda timeout (10 s,
 * infra/template.yaml) with ample room for clock skew between containers.
 */
export const settleMs = 60_000;

export const emptyCounter: CounterState = { epoch: "0", version: 0, lastId: 0 };

export function planRefresh(
  snapshot: ListSnapshot | undefined,
  counter: CounterState,
  now: number,
): Refresh {
  const cached = snapshot?.counter;
  if (
    !snapshot ||
    !cached ||
    cached.epoch !== counter.epoch ||
    counter.version < cached.version ||
    counter.lastId < cached.lastId
  ) {
    return {
      kind: "cold",
      above: 0,
      upTo: counter.lastId,
      recheck: [],
      withdrawnSince: recent(now),
    };
  }
  let oldest: number | undefined;
  for (const createdAt of snapshot.settling.values()) {
    if (createdAt + settleMs >= now) oldest = Math.min(oldest ?? createdAt, createdAt);
  }
  // Withdrawals come after the put they take back; the margin covers clock skew.
  const moved = cached.version !== counter.version;
  const settlingSince = oldest === undefined ? undefined : oldest - settleMs;
  // A refresh may find categories that are still settling: it reads the recent withdrawals too.
  const withdrawnSince = moved ? Math.min(settlingSince ?? Infinity, recent(now)) : settlingSince;
  return {
    kind: moved ? "incremental" : "current",
    above: cached.lastId,
    upTo: moved ? counter.lastId : cached.lastId,
    recheck: [...snapshot.holes]
      .filter(([, hole]) => moved || hole.seen + settleMs >= now)
      .map(([id]) => id),
    withdrawnSince,
  };
}

/** Since when a withdrawal can concern a category stored in the last `settleMs`. */
function recent(now: number): number {
  return now - 2 * settleMs;
}

/** The snapshot after `refresh` has read `found` (in any order) and `withdrawn`. */
export function applyRefresh(
  snapshot: ListSnapshot | undefined,
  counter: CounterState,
  refresh: Refresh,
  found: readonly Found[],
  withdrawn: readonly Withdrawal[],
  now: number,
): ListSnapshot {
  const base = refresh.kind === "cold" ? undefined : snapshot;
  if (base && refresh.kind === "current" && found.length === 0 && withdrawn.length === 0) {
    return expireSettling(base, now);
  }
  const sorted = [...found].sort((a, b) => a.category.id - b.category.id);
  const foundIds = new Set(sorted.map((entry) => entry.category.id));
  const holes = new Map<number, Hole>();
  for (const [id, hole] of base?.holes ?? []) {
    if (!foundIds.has(id) && hole.until >= now) holes.set(id, hole);
  }
  addGaps(holes, sorted, refresh.above + 1, refresh.upTo, now);
  const settling = new Map<number, number>();
  for (const [id, createdAt] of base?.settling ?? []) settling.set(id, createdAt);
  for (const { category, createdAt } of sorted) {
    if (createdAt + settleMs >= now) settling.set(category.id, createdAt);
  }
  // A withdrawal names a put made before it; a later put of that id (a repeat) stands.
  const gone = new Set<number>();
  for (const { id, at } of withdrawn) {
    const createdAt = settling.get(id);
    if (createdAt !== undefined && createdAt <= at) {
      gone.add(id);
      settling.delete(id);
      holes.set(id, { until: createdAt + holeLifetimeMs, seen: now });
    }
  }
  for (const [id, createdAt] of settling) if (createdAt + settleMs < now) settling.delete(id);
  const kept =
    gone.size > 0
      ? (base?.categories ?? []).filter((c) => !gone.has(c.id))
      : (base?.categories ?? []);
  const added = sorted.map((entry) => entry.category).filter((c) => !gone.has(c.id));
  const counterNow = refresh.kind === "current" && base ? base.counter : counter;
  return { counter: counterNow, categories: mergeById(kept, added), holes, settling };
}

function expireSettling(snapshot: ListSnapshot, now: number): ListSnapshot {
  const expired = [...snapshot.settling].filter(([, createdAt]) => createdAt + settleMs < now);
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
    for (; index >= 0 && (found[index]?.category.id ?? 0) > id; index--) {
      const createdAt = found[index]?.createdAt ?? Number.NaN;
      if (createdAt < takenBy) takenBy = createdAt;
    }
    if (found[index]?.category.id === id) continue;
    const until = takenBy + holeLifetimeMs;
    if (until >= now) holes.set(id, { until, seen: now });
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
