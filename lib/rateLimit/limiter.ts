/**
 * The per-key rate limit as one container enforces it: tokens are leased from the key's shared
 * bucket (lib/repositories/rateLimitBuckets.ts) in blocks and spent here, so most requests cost
 * no store call at all. Created once per container (lib/deps.ts); its state is per key.
 *
 * A lease is made while the bucket holds at least one token, and takes a whole block (sized from
 * the key's rate and this container's share of its requests, lib/rateLimit/policy.ts): the tokens
 * the bucket holds now and, for the rest, the next ones it will hold. The container keeps them as
 * tickets, each usable from the moment GCRA makes it so (one emission interval apart), so the key
 * is admitted exactly as the bucket allows, whichever container spends the tokens. Every write
 * takes a whole block, which keeps the writes per request low, and a lease never fails because
 * another container took tokens first, only when the bucket is empty.
 *
 * A ticket's token has its place in the bucket's count (its slot: the moment GCRA gives that
 * token back). Once the slot has passed, the bucket has refilled that token for everyone, so a
 * ticket still unspent then would be a token counted twice: tickets are dropped a little after
 * their slot (`graceMs`), and a stale `nextFrom` is brought forward with them. Over any window
 * the key is then admitted at most what GCRA allows plus the tokens whose slot lies within the
 * grace before the window: rate × grace, however many containers (and the grace is a tenth of
 * what the contract allows over one second). A container leases no more than it can spend
 * before its tickets lapse, at the pace it sees requests, so a quiet container wastes little.
 *
 * - A ticket usable now: spend it, admit.
 * - Tickets, none usable yet, or the last look said the bucket is empty until `retryAt`: refuse
 *   without a store call (429, `Retry-After` up to that moment).
 * - Otherwise lease: one consistent read, then one conditional write in the form the bucket's
 *   state calls for (a write that fails its condition costs a write unit; a read is cheaper),
 *   and one more if another container wrote in between and the bucket still holds enough.
 *   A refused container asks again at a moment jittered over the next second (two seconds after refusals in a row: the bucket holds two
 *   seconds of a 50/s key's tokens, so nothing is lost meanwhile), so containers do not all ask
 *   at once. A refused lease writes nothing, and a lease that is made admits its request: a 429
 *   never writes.
 * - The store does not answer within the limiter's budget: admit (fail open), and admit without
 *   asking for the next second, so a store in trouble is not asked again by every request. The
 *   middleware counts and logs each such admission (`failedOpen`).
 */
import type { Clock } from "../clock.ts";
import type { BucketState, RateLimitBucketRepository } from "../repositories/rateLimitBuckets.ts";
import { rescaled } from "../repositories/rateLimitBuckets.ts";
import type { RateLimit } from "./policy.ts";
import { intervalMs, leaseSize } from "./policy.ts";

export interface Admission {
  readonly admitted: boolean;
  readonly limit: RateLimit;
  /** Best estimate of the tokens left: this container's usable tickets, and the bucket's. */
  readonly remaining: number;
  /** Seconds until the bucket is full again (or, refused, until this container asks again). */
  readonly resetSeconds: number;
  /** Refused: whole seconds (at least 1) until this container may admit again. */
  readonly retryAfterSeconds: number;
  /** The bucket could not be read or written in time; admitted without it. */
  readonly failedOpen: boolean;
  /** Failed open: the store's failure, when this request met it (later ones leave it alone). */
  readonly cause?: unknown;
}

export interface RateLimiting {
  admit(keyId: string, limit: RateLimit, deadline: number): Promise<Admission>;
}

export interface LimiterOptions {
  readonly buckets: RateLimitBucketRepository;
  readonly now: Clock;
  /** Jitter for the moment a refused container asks again (default Math.random). */
  readonly random?: () => number;
  /** The most a lease may take of a request's time (default 1 s; DynamoDB answers in ~5 ms). */
  readonly budgetMs?: number;
}

interface KeyState {
  /** Leased tokens not yet spent; the next one is usable from `nextFrom`. */
  tickets: number;
  nextFrom: number;
  /** When the tickets were leased (0: never): the demand since is counted from then. */
  leasedAt: number;
  /** When the lease's answer came back: no ticket lapses within the grace of it. */
  receivedAt: number;
  /** Requests since the last lease (admitted or not): this container's demand for the key. */
  asked: number;
  /** The bucket as last seen (undefined: never looked). */
  bucket: BucketState | undefined;
  /** The limit the state was computed for: another one (raised, lowered) starts afresh. */
  limit: RateLimit | undefined;
  /** Refuse without asking until then. */
  retryAt: number;
  /** Leases refused in a row: the second doubles the spread of the next ask (2 s). */
  refusals: number;
  /** Admit without asking until then (the store failed). */
  openUntil: number;
  /** A lease in flight: others wait for it instead of asking too. */
  pending: Promise<void> | undefined;
}

const maxKeys = 10_000;
/** After a failure, the store is left alone for this long; requests are admitted meanwhile. */
const failOpenMs = 1000;
/** A refused container asks again at a moment spread over this much. */
const retrySpreadMs = 1000;
/** A container leases about this long of its own demand for a key (at most a whole lease). */
const demandSeconds = 2;

/**
 * How long after its slot a ticket may still be spent: a tenth of what the contract allows over
 * one second (rate × 1 s + burst), less one token for the rounding, so tickets spent late add at
 * most that tenth to any window of a second or more (docs/rate-limits.md, "Accuracy").
 */
export function graceMs(limit: RateLimit): number {
  const interval = intervalMs(limit);
  return Math.max(0, (1000 + limit.burst * interval) / 10 - interval);
}

export class RateLimiter implements RateLimiting {
  readonly #buckets: RateLimitBucketRepository;
  readonly #now: Clock;
  readonly #random: () => number;
  readonly #budgetMs: number;
  readonly #keys = new Map<string, KeyState>();

  constructor(options: LimiterOptions) {
    this.#buckets = options.buckets;
    this.#now = options.now;
    this.#random = options.random ?? Math.random;
    this.#budgetMs = options.budgetMs ?? 1000;
  }

  async admit(keyId: string, limit: RateLimit, deadline: number): Promise<Admission> {
    const state = this.#state(keyId);
    while (state.pending) await state.pending;
    const now = this.#now();
    state.asked += 1;
    if (state.limit && !sameLimit(state.limit, limit)) {
      // The operator changed the limit: old tickets and waits were counted for the old one.
      Object.assign(state, { tickets: 0, retryAt: 0 });
    }
    state.limit = limit;
    lapse(state, limit, now);
    if (state.tickets > 0) return this.#spend(state, limit, now);
    if (now < state.openUntil) return this.#failOpen(state, limit, now, undefined);
    if (now < state.retryAt) return this.#answer(state, limit, now, false);
    let settle = (): void => undefined;
    state.pending = new Promise((done) => {
      settle = done;
    });
    try {
      await this.#lease(state, keyId, limit, now, Math.min(deadline, now + this.#budgetMs));
      return state.tickets > 0
        ? this.#spend(state, limit, now)
        : this.#answer(state, limit, now, false);
    } catch (error) {
      state.openUntil = now + failOpenMs;
      return this.#failOpen(state, limit, now, error);
    } finally {
      state.pending = undefined;
      settle();
    }
  }

  /** A ticket usable now admits; one usable later refuses until then, without a store call. */
  #spend(state: KeyState, limit: RateLimit, now: number): Admission {
    if (state.nextFrom > now) {
      state.retryAt = state.nextFrom;
      return this.#answer(state, limit, now, false);
    }
    state.tickets -= 1;
    state.nextFrom += intervalMs(limit);
    return this.#answer(state, limit, now, true);
  }

  async #lease(
    state: KeyState,
    keyId: string,
    limit: RateLimit,
    now: number,
    deadline: number,
  ): Promise<void> {
    const interval = intervalMs(limit);
    // About two seconds of what this container asks for, up to a whole lease: a container that
    // sees a trickle of the key's requests does not sit on tokens others need, and one that sees
    // a share of a flood still leases rarely (each lease is a write).
    const elapsed = Math.max(0.1, (now - state.leasedAt) / 1000);
    const demand = state.leasedAt === 0 ? 1 : state.asked / elapsed;
    // And no more than it can spend before they lapse: ticket k's slot is k intervals after the
    // first (the bucket's `tat`, or now from a bucket with tokens to spare), and at this demand
    // it is spent k gaps after now. Where requests come faster than the rate, every ticket is
    // spent in time; a container that has not leased yet has no pace to go by.
    const gap = 1000 / demand;
    const leaseFor = (bucket: BucketState | undefined): number => {
      const ahead = bucket ? Math.max(0, rescaled(bucket, interval, now) - now) : 0;
      const spendable =
        state.leasedAt === 0 || gap <= interval
          ? Infinity
          : 1 + Math.floor((ahead + graceMs(limit)) / (gap - interval));
      return Math.max(1, Math.min(leaseSize(limit), Math.ceil(demand * demandSeconds), spendable));
    };
    /** Whole tokens the bucket holds now (GCRA: before `tat` passes now + burst × interval). */
    const available = (bucket: BucketState): number =>
      Math.floor(
        (now + limit.burst * interval - Math.max(rescaled(bucket, interval, now), now)) / interval,
      );
    let lease = leaseFor(state.bucket);
    const take = (expected: BucketState) => {
      lease = leaseFor(expected);
      return this.#buckets.take(
        { keyId, tokens: lease, intervalMs: interval, burst: limit.burst, expected, now },
        deadline,
      );
    };
    // A container refused before races others for the bucket: it writes only while the bucket
    // holds two of its leases, so that if another container read the same and wrote first, this
    // write still finds a token and is made (racing for the last tokens is what makes writes
    // fail). The tokens wait in the bucket meanwhile, never more than the burst less a lease.
    const raced = state.retryAt > 0;
    const need = raced ? Math.max(1, Math.min(2 * lease, limit.burst - lease)) : 1;
    // What it last saw is a lower bound on what has been taken since: if that already leaves
    // too little, it knows without asking.
    let known = state.bucket;
    let result: Awaited<ReturnType<typeof take>> | undefined;
    if (known === undefined || available(known) >= need) {
      // Look before writing: a read unit, where a write that fails its condition costs a write
      // unit all the same. What the container saw last is stale whenever others take too, and
      // even a bucket last seen idle flips to draining with anyone's lease, so the update's form
      // (idle or draining) is chosen from what the bucket holds now.
      known = await this.#buckets.read(keyId, interval, deadline);
      result = available(known) >= need ? await take(known) : undefined;
      if (result && !result.taken && available(result.state) >= need) {
        // Another container wrote between this read and this write, and the bucket still holds
        // what is needed (the failure answered what it met): one more write, not a 429.
        known = result.state;
        result = await take(known);
      }
    }
    const seen = result?.state ?? known;
    state.bucket = seen;
    if (!result?.taken) {
      // Ask again once it holds what a lease needs, at a moment jittered over the next second.
      const tat = rescaled(seen, interval, now);
      const wanted = Math.max(1, Math.min(2 * lease, limit.burst - lease));
      const next = Math.max(tat, now) - (limit.burst - wanted) * interval;
      // Containers that keep losing ask less and less often; the one that won keeps pacing.
      state.refusals = Math.min(state.refusals + 1, 2);
      // Never wider for a slow key: over a lease of 1/min that would refuse up to a minute after
      // the bucket holds the token again, and a few containers asking within a second of each
      // other cost a read each once a minute.
      const spread = retrySpreadMs * 2 ** (state.refusals - 1);
      const jittered = next + this.#random() * spread;
      // Stryker disable next-line ArithmeticOperator: a refused lease means the bucket lacks what it needs, so `next` is after now; on a millisecond clock now - 1 and now + 1 give the same answers.
      state.retryAt = Math.max(now + 1, jittered);
      return;
    }
    // Tickets: the lease's tokens, one interval apart, the first usable at once.
    state.retryAt = 0;
    state.refusals = 0;
    state.tickets = lease;
    state.nextFrom = result.state.tat - (lease + limit.burst - 1) * interval;
    state.leasedAt = now;
    state.receivedAt = this.#now();
    state.asked = 0;
  }

  #answer(state: KeyState, limit: RateLimit, now: number, admitted: boolean): Admission {
    const interval = intervalMs(limit);
    const tat = Math.max(state.bucket ? rescaled(state.bucket, interval, now) : now, now);
    const inBucket = Math.max(0, Math.floor((now + limit.burst * interval - tat) / interval));
    // Tickets usable now: the first from `nextFrom`, one more each interval since.
    const usable = Math.max(
      0,
      Math.min(state.tickets, Math.floor((now - state.nextFrom) / interval) + 1),
    );
    const retryAfterSeconds = Math.max(1, Math.ceil((state.retryAt - now) / 1000));
    return {
      admitted,
      limit,
      remaining: admitted ? Math.min(limit.burst, usable + inBucket) : 0,
      resetSeconds: admitted ? Math.ceil((tat - now) / 1000) : retryAfterSeconds,
      retryAfterSeconds,
      failedOpen: false,
    };
  }

  #failOpen(state: KeyState, limit: RateLimit, now: number, cause: unknown): Admission {
    return { ...this.#answer(state, limit, now, true), failedOpen: true, cause };
  }

  #state(keyId: string): KeyState {
    let state = this.#keys.get(keyId);
    if (!state) {
      if (this.#keys.size >= maxKeys) this.#keys.clear();
      state = {
        ...{ tickets: 0, nextFrom: 0, leasedAt: 0, receivedAt: 0, asked: 0 },
        ...{ bucket: undefined, limit: undefined },
        ...{ retryAt: 0, refusals: 0, openUntil: 0, pending: undefined },
      };
      this.#keys.set(keyId, state);
    }
    return state;
  }
}

/**
 * Drops the tickets whose slot passed more than `graceMs` ago (the next ticket's slot is
 * `burst − 1` intervals after it is usable), bringing `nextFrom` forward past them. A lease the
 * store answered late (its slots were counted from the moment it was asked) keeps its tickets for
 * the grace after it came back: the excess that allows is the store's round trip at the key's
 * rate (DynamoDB answers in milliseconds; the limiter waits at most its budget).
 */
function lapse(state: KeyState, limit: RateLimit, now: number): void {
  const interval = intervalMs(limit);
  const grace = graceMs(limit);
  const late = now - (state.nextFrom + (limit.burst - 1) * interval + grace);
  if (state.tickets === 0 || late <= 0 || now <= state.receivedAt + grace) return;
  const lapsed = Math.min(state.tickets, Math.ceil(late / interval));
  state.tickets -= lapsed;
  state.nextFrom += lapsed * interval;
}

function sameLimit(a: RateLimit, b: RateLimit): boolean {
  return a.perSecond === b.perSecond && a.burst === b.burst;
}
