/**
 * The list cache's state machine: what a container knows about a resource's partition (the
 * categories'), and what it must read to bring that up to date. Pure: the reads themselves are in
 * ./reader.ts.
 *
 * The counter item (pk COUNTER, sk the resource's name, "category"; tiny) holds
 *   value    the last id handed out (ids only grow)
 *   version  bumped with every id taken (the same UpdateItem: no write of its own), by an
 *            Idempotency-Key repeat that stores an id taken earlier, and by a withdrawal
 *   epoch    when the counter was first written (a recreated table starts a new one)
 * Withdrawal records sort just after it in its partition, newest first (lib/table/schema.ts).
 *
 * A list's first step is one consistent Query: the counter and the withdrawals recorded since
 * `withdrawalsSince` (usually none: one read unit in all). Then, against its cache:
 *   - no cache, or another epoch: cold read of ids [1, value] in parallel ranges (./ranges.ts);
 *   - the version moved: ids in (cached value, value], plus every hole (an id ≤ the cached value
 *     that was absent: its put may land late, out of order);
 *   - the version unchanged: the holes found in the last `settleMs` only (puts still in flight).
 * With nothing created in the last `settleMs`, an unchanged version is that one read unit.
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
 * the withdrawal deleted it. A create that must fail records the withdrawal first, then deletes
 * its write, within the Lambda timeout of its put (on its own clock, after the put's createdAt).
 * A category read less than `settleMs` after its createdAt stays "settling" until a list's
 * counter Query, sent more than `settleMs` after that createdAt, has read every withdrawal since
 * it: each list reads from before its oldest settling category, however long the container sat
 * idle, so the withdrawal is seen and the id dropped (unless stored again after it, by an
 * Idempotency-Key repeat). A cache idle for longer than the records are kept reads cold.
 */
import type { Identified } from "../resource.ts";
import { withdrawalRecordMs } from "../table/schema.ts";

export interface CounterState {
  readonly epoch: string;
  readonly version: number;
  readonly lastId: number;
}

/**
 * The list's version as its answers name it (`Reply.version`: the ETag, lib/http/conditional.ts):
 * the counter's epoch (a recreated table starts a new one) and version. Tags built on it are weak:
 * for a moment around a create (its put has landed, its commit has not yet bumped the version)
 * two containers may answer the same version with and without that category, so it promises
 * equivalent content, not identical bytes.
 */
export function listVersion(counter: Pick<CounterState, "epoch" | "version">): string {
  return `${counter.epoch}.${String(counter.version)}`;
}

/** A category (or any resource's item) as read, with when it was stored (epoch ms; NaN when unknown). */
export interface Found<T extends Identified = Identified> {
  readonly category: T;
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

export interface ListSnapshot<T extends Identified = Identified> {
  readonly counter: CounterState;
  /** Every category read, in id order: what a list answers. */
  readonly categories: readonly T[];
  /** Ids ≤ counter.lastId that were absent. */
  readonly holes: ReadonlyMap<number, Hole>;
  /** Ids stored less than `settleMs` before they were read, with their createdAt. */
  readonly settling: ReadonlyMap<number, number>;
}

/** A list's first read: the counter and the withdrawals recorded lately. */
export interface ListVersion {
  readonly counter: CounterState;
  /** Every withdrawal recorded since the `withdrawalsSince` asked for. */
  readonly withdrawals: readonly Withdrawal[];
  /** When the read was sent (epoch ms, this container's clock), and since when it read withdrawals. */
  readonly readAt: number;
  readonly since: number;
}

export interface Refresh {
  /** What to read: nothing, everything up to `upTo`, or what changed since the cache. */
  readonly kind: "current" | "cold" | "incremental";
  /** Ids above this, up to `upTo`, are read with Queries. */
  readonly above: number;
  readonly upTo: number;
  /** Ids to read one by one: every hole when the version moved, else the recent ones. */
  readonly recheck: readonly number[];
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

/**
 * Since when a list must read withdrawals: from before the oldest category the cache holds that
 * may still be withdrawn (with a `settleMs` margin for the clocks), and in any case the last two
 * `settleMs`, for categories this list reads for the first time.
 */
export function withdrawalsSince(snapshot: ListSnapshot | undefined, now: number): number {
  let since = now - 2 * settleMs;
  for (const createdAt of snapshot?.settling.values() ?? []) {
    since = Math.min(since, createdAt - settleMs);
  }
  return since;
}

export function planRefresh(
  snapshot: ListSnapshot | undefined,
  counter: CounterState,
  now: number,
): Refresh {
  if (
    !snapshot ||
    snapshot.counter.epoch !== counter.epoch ||
    counter.version < snapshot.counter.version ||
    counter.lastId < snapshot.counter.lastId ||
    // Idle so long that a withdrawal it must see may have expired: trust nothing cached.
    withdrawalsSince(snapshot, now) < now - withdrawalRecordMs + settleMs
  ) {
    return { kind: "cold", above: 0, upTo: counter.lastId, recheck: [] };
  }
  const cached = snapshot.counter;
  const moved = cached.version !== counter.version;
  return {
    kind: moved ? "incremental" : "current",
    above: cached.lastId,
    upTo: moved ? counter.lastId : cached.lastId,
    recheck: [...snapshot.holes]
      .filter(([, hole]) => moved || hole.seen + settleMs >= now)
      .map(([id]) => id),
  };
}

/**
 * Whether a category stored at `createdAt` can no longer be withdrawn unseen: `version` was read
 * after any withdrawal of it, and read the withdrawals from before its put.
 */
export function isSettled(createdAt: number, version: ListVersion): boolean {
  return createdAt + settleMs < version.readAt && createdAt - settleMs >= version.since;
}
