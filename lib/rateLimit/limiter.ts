/**
 * The per-key rate limit as one container enforces it: tokens are leased from the key's shared
 * bucket (lib/repositories/rateLimitBuckets.ts) in blocks and spent here, so most requests cost
 * no store call at all. Created once per container (lib/deps.ts); its state is per key.
 *
 * - Tokens in hand: spend one, admit.
 * - None, and the last look at the bucket said it holds less than a lease until `retryAt`: refuse
 *   without a store call (429, `Retry-After` up to that moment).
 * - Otherwise lease a block: one conditional write; when the guess about the bucket was wrong,
 *   one read and at most one more write. After a refusal, or when the bucket was nearly empty
 *   when last seen, the container reads first (others are likely taking too). A bucket that cannot give half a lease refuses, and the container
 *   waits (with jitter, so containers do not all ask at once) until it can give a whole one:
 *   leases stay full-sized, which is what keeps the writes per request low.
 * - The store does not answer within the limiter's budget: admit (fail open), tell `onFailOpen`,
 *   and admit without asking for the next second, so a store in trouble is not asked again by
 *   every request. The middleware counts and logs each such admission (`failedOpen`).
 *
 * Nothing is written for a refused request: a refused lease is a condition that did not hold.
 */
import type { Clock } from "../clock.ts";
import type { BucketState, RateLimitBucketRepository } from "../repositories/rateLimitBuckets.ts";
import { rescaled } from "../repositories/rateLimitBuckets.ts";
import type { RateLimit } from "./policy.ts";
import { intervalMs, leaseSize } from "./policy.ts";

export interface Admission {
  readonly admitted: boolean;
  readonly limit: RateLimit;
  /** Best estimate of the tokens left: this container's, and the bucket's as last seen. */
  readonly remaining: number;
  /** Seconds until the bucket is full again (or, refused, until this container asks again). */
  readonly resetSeconds: number;
  /** Refused: whole seconds (at least 1) until this container will ask the bucket again. */
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
  /** Leased tokens not yet spent, valid until `leaseUntil`. */
  tokens: number;
  leaseUntil: number;
  /** The bucket as last seen (undefined: never looked). */
  bucket: BucketState | undefined;
  /** The limit the refusal's wait was computed for: another one (raised, lowered) looks again. */
  limit: RateLimit | undefined;
  /** Refuse without asking until then. */
  retryAt: number;
  /** Admit without asking until then (the store failed). */
  openUntil: number;
  /** A lease in flight: others wait for it instead of asking too. */
  pending: Promise<void> | undefined;
}

const maxKeys = 10_000;
/** After a failure, the store is left alone for this long; requests are admitted meanwhile. */
const failOpenMs = 1000;

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
    if (state.tokens >= 1 && now < state.leaseUntil) {
      state.tokens -= 1;
      return this.#answer(state, limit, now, true);
    }
    state.tokens = 0;
    if (now < state.openUntil) return this.#failOpen(state, limit, now, undefined);
    if (state.limit && !sameLimit(state.limit, limit)) state.retryAt = Math.min(state.retryAt, now);
    state.limit = limit;
    if (now < state.retryAt) return this.#answer(state, limit, now, false);
    let settle = (): void => undefined;
    state.pending = new Promise((done) => {
      settle = done;
    });
    try {
      return await this.#lease(state, keyId, limit, now, Math.min(deadline, now + this.#budgetMs));
    } catch (error) {
      state.openUntil = now + failOpenMs;
      return this.#failOpen(state, limit, now, error);
    } finally {
      state.pending = undefined;
      settle();
    }
  }

  async #lease(
    state: KeyState,
    keyId: string,
    limit: RateLimit,
    now: number,
    deadline: number,
  ): Promise<Admission> {
    const interval = intervalMs(limit);
    const lease = leaseSize(limit);
    const enough = Math.ceil(lease / 2);
    const available = (bucket: BucketState | undefined): number =>
      bucket === undefined
        ? limit.burst
        : Math.floor(
            (now + limit.burst * interval - Math.max(rescaled(bucket, interval, now), now)) /
              interval,
          );
    const take = (tokens: number, expected: BucketState | undefined) =>
      this.#buckets.take(
        { keyId, tokens, intervalMs: interval, burst: limit.burst, expected, now },
        deadline,
      );
    // Refused before, or the bucket was nearly empty when last seen: other containers are likely
    // taking too, so look before writing (a read unit, where a write that fails its condition
    // costs a write unit all the same). An idle or well-filled bucket is written at once.
    const contended = state.retryAt > 0 || (state.bucket && available(state.bucket) < 2 * lease);
    let known = contended ? await this.#buckets.read(keyId, interval, deadline) : state.bucket;
    state.retryAt = 0;
    let tokens = Math.min(lease, available(known));
    let result = tokens >= enough ? await take(tokens, known) : undefined;
    if (result && !result.taken && !contended) {
      // The guess about the bucket was wrong: it was just read. (A write that a fresh read
      // informed and still failed lost a race: another write now would likely lose again.)
      known = result.state;
      tokens = Math.min(lease, available(known));
      result = tokens >= enough ? await take(tokens, known) : undefined;
    }
    state.bucket = result?.state ?? known;
    if (!result?.taken) {
      // Ask again when the bucket holds a whole lease, at a jittered moment of the next one.
      const tat = state.bucket ? rescaled(state.bucket, interval, now) : now;
      const whole = Math.max(tat, now) - (limit.burst - lease) * interval;
      state.retryAt = Math.max(now + 1, whole + this.#random() * lease * interval);
      return this.#answer(state, limit, now, false);
    }
    state.tokens = tokens - 1;
    state.leaseUntil = now + Math.min(60_000, Math.max(1000, 2 * lease * interval));
    return this.#answer(state, limit, now, true);
  }

  #answer(state: KeyState, limit: RateLimit, now: number, admitted: boolean): Admission {
    const interval = intervalMs(limit);
    const tat = Math.max(state.bucket ? rescaled(state.bucket, interval, now) : now, now);
    const inBucket = Math.max(0, Math.floor((now + limit.burst * interval - tat) / interval));
    const retryAfterSeconds = Math.max(1, Math.ceil((state.retryAt - now) / 1000));
    return {
      admitted,
      limit,
      remaining: admitted ? Math.min(limit.burst, state.tokens + inBucket) : 0,
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
        ...{ tokens: 0, leaseUntil: 0, bucket: undefined, limit: undefined },
        ...{ retryAt: 0, openUntil: 0, pending: undefined },
      };
      this.#keys.set(keyId, state);
    }
    return state;
  }
}

function sameLimit(a: RateLimit, b: RateLimit): boolean {
  return a.perSecond === b.perSecond && a.burst === b.burst;
}
