/**
 * A key's token bucket in the stage's table (key: lib/table/schema.ts), shared by every container,
 * kept as GCRA's one number: `tat`, the moment (epoch ms) the bucket is full again, with the
 * emission `interval` (ms per token) it was counted in. Taking n tokens moves `tat` n intervals
 * later; the bucket holds what is left before `tat` reaches `now + burst × interval`. No item, or
 * a `tat` in the past, is a full bucket.
 *
 * A lease is one conditional UpdateItem, made only while the bucket holds at least one token now.
 * It takes a whole block all the same: tokens beyond what the bucket holds now are the next ones
 * it will hold, each usable from the moment GCRA says (lib/rateLimit/limiter.ts keeps them as
 * tickets). So a lease never fails because other containers took part of the bucket, only when
 * it is empty, and every write takes a whole block. DynamoDB has no max() in an update, so the
 * caller picks the form from the state it last saw: idle (start from now), draining (add to
 * `tat`), or, when an operator changed the key's rate, rescaled (the debt in tokens kept, counted
 * in the new interval). The condition makes a wrong guess, or an empty bucket, a refusal that
 * writes nothing; then one consistent read tells the caller what the bucket holds now.
 */
import type { DynamoDb, Item } from "../dynamodb.ts";
import { isConditionFailure } from "../table/errors.ts";
import { num } from "../table/item.ts";
import { keys, ttlAttribute } from "../table/schema.ts";
import type { Expression } from "../table/table.ts";
import { Table } from "../table/table.ts";

/** What the bucket holds: `tat` (0: no bucket, full) in `intervalMs` per token. */
export interface BucketState {
  readonly tat: number;
  readonly intervalMs: number;
}

export interface Take {
  readonly keyId: string;
  readonly tokens: number;
  readonly intervalMs: number;
  readonly burst: number;
  /** The state this container last saw (undefined: none): picks the update's form. */
  readonly expected: BucketState | undefined;
  readonly now: number;
}

export type TakeResult =
  /** Taken: the bucket after this lease. */
  | { readonly taken: true; readonly state: BucketState }
  /** Not taken, nothing written: the bucket as read just after. */
  | { readonly taken: false; readonly state: BucketState };

export interface RateLimitBucketRepository {
  take(take: Take, deadline: number): Promise<TakeResult>;
  /** The bucket, read strongly consistently. */
  read(keyId: string, intervalMs: number, deadline: number): Promise<BucketState>;
}

/** Kept after the bucket is full again (by then an absent item means the same): one hour. */
const keepSeconds = 3600;

/** Milliseconds to three decimals: exact in DynamoDB's decimal numbers, no float drift. */
function ms(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** `tat` counted in another interval: the same debt in tokens, from now. */
export function rescaled(state: BucketState, intervalMs: number, now: number): number {
  if (state.intervalMs === intervalMs) return state.tat;
  // Stryker disable next-line EqualityOperator: at tat = now there is no debt, and the formula below gives now too (now is a whole millisecond).
  if (state.tat <= now) return state.tat;
  return ms(now + ((state.tat - now) * intervalMs) / state.intervalMs);
}

export class RateLimitBucketStore implements RateLimitBucketRepository {
  readonly #table: Table;

  constructor(db: DynamoDb, tableName: string) {
    this.#table = new Table(db, tableName);
  }

  async take(take: Take, deadline: number): Promise<TakeResult> {
    const { now, tokens, intervalMs, burst, expected } = take;
    const key = keys.rateLimitBucket(take.keyId);
    const cost = ms(tokens * intervalMs);
    const full = ms(now + burst * intervalMs);
    const names = { "#ttl": ttlAttribute, "#interval": "interval" };
    const ttl = Math.ceil((full + cost) / 1000) + keepSeconds;
    const values = { ":interval": intervalMs, ":ttl": ttl };
    const set = "#interval = :interval, #ttl = :ttl";
    let update: Expression;
    let condition: Expression;
    if (expected === undefined || expected.tat < now) {
      update = {
        text: `SET tat = :fresh, ${set}`,
        names,
        values: { ...values, ":fresh": ms(now + cost) },
      };
      condition = { text: "attribute_not_exists(tat) OR tat < :now", values: { ":now": now } };
    } else if (expected.intervalMs === intervalMs) {
      update = {
        text: `SET tat = tat + :cost, ${set}`,
        names,
        values: { ...values, ":cost": cost },
      };
      condition = {
        text: "tat BETWEEN :now AND :limit AND #interval = :interval",
        // At least one token now: `tat` at most one interval short of the full drain.
        values: { ":now": now, ":limit": ms(full - intervalMs) },
      };
    } else {
      const from = rescaled(expected, intervalMs, now);
      update = {
        text: `SET tat = :next, ${set}`,
        names,
        values: { ...values, ":next": ms(from + cost) },
      };
      condition = {
        text: "tat = :seen AND #interval = :seenInterval",
        values: { ":seen": expected.tat, ":seenInterval": expected.intervalMs },
      };
    }
    try {
      // UPDATED_NEW: the attributes this update set, `tat` and `interval` among them.
      const after = await this.#table.update(key, update, deadline, { condition, returnNew: true });
      return { taken: true, state: stateOf(after, intervalMs) };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // The bucket the write met: with the failure (ALL_OLD) where the store gives it, else read.
      const met = await this.#table.collidedWith(error, key, deadline);
      return { taken: false, state: stateOf(met, intervalMs) };
    }
  }

  async read(keyId: string, intervalMs: number, deadline: number): Promise<BucketState> {
    return stateOf(await this.#table.get(keys.rateLimitBucket(keyId), deadline), intervalMs);
  }
}

function stateOf(item: Item | undefined, intervalMs: number): BucketState {
  return {
    tat: (item && num(item, "tat")) ?? 0,
    intervalMs: (item && num(item, "interval")) ?? intervalMs,
  };
}
