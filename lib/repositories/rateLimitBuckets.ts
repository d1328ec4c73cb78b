/**
 * A key's token bucket in the stage's table (key: lib/table/schema.ts), shared by every container,
 * kept as GCRA's one number: `tat`, the moment (epoch ms) the bucket is full again. Taking n
 * tokens moves it n emission intervals later; the bucket holds what is left before `tat` reaches
 * `now + burst × interval`. No item, or a `tat` in the past, is a full bucket.
 *
 * A lease is one conditional UpdateItem: DynamoDB has no max() in an update, so the caller picks
 * the form from the `tat` it last saw (draining: add to it; idle: start from now), and the
 * condition makes a wrong guess, or a bucket with too few tokens, a refusal that writes nothing.
 * Then one consistent read tells the caller what the bucket holds now.
 */
import { isConditionFailure } from "../table/errors.ts";
import { num } from "../table/item.ts";
import { keys } from "../table/schema.ts";
import type { Expression } from "../table/table.ts";
import { TableRepository } from "./tableRepository.ts";

export interface Take {
  readonly keyId: string;
  readonly tokens: number;
  readonly intervalMs: number;
  readonly burst: number;
  /** The `tat` this container last saw (undefined: none): picks the update's form. */
  readonly expectedTat: number | undefined;
  readonly now: number;
}

export type TakeResult =
  /** Taken: the bucket's `tat` after this lease. */
  | { readonly taken: true; readonly tat: number }
  /** Not taken, nothing written: the bucket's `tat` as read just after (0: no bucket, full). */
  | { readonly taken: false; readonly tat: number };

export interface RateLimitBucketRepository {
  take(take: Take, deadline: number): Promise<TakeResult>;
  /** The bucket's `tat`, read strongly consistently (0: no bucket, full). */
  read(keyId: string, deadline: number): Promise<number>;
}

/** Kept after the bucket is full again (by then an absent item means the same): one hour. */
const keepSeconds = 3600;

/** Milliseconds to three decimals: exact in DynamoDB's decimal numbers, no float drift. */
function ms(value: number): number {
  return Math.round(value * 1000) / 1000;
}

export class RateLimitBucketStore extends TableRepository implements RateLimitBucketRepository {
  async take(take: Take, deadline: number): Promise<TakeResult> {
    const { now, tokens, intervalMs, burst, expectedTat } = take;
    const key = keys.rateLimitBucket(take.keyId);
    const cost = ms(tokens * intervalMs);
    const full = ms(now + burst * intervalMs);
    const ttl = Math.ceil(full / 1000) + keepSeconds;
    const draining = expectedTat !== undefined && expectedTat >= now;
    const update: Expression = draining
      ? {
          text: "SET tat = tat + :cost, #ttl = :ttl",
          names: { "#ttl": "ttl" },
          values: { ":cost": cost, ":ttl": ttl },
        }
      : {
          text: "SET tat = :fresh, #ttl = :ttl",
          names: { "#ttl": "ttl" },
          values: { ":fresh": ms(now + cost), ":ttl": ttl },
        };
    const condition: Expression = draining
      ? { text: "tat BETWEEN :now AND :limit", values: { ":now": now, ":limit": ms(full - cost) } }
      : { text: "attribute_not_exists(tat) OR tat < :now", values: { ":now": now } };
    try {
      const after = await this.table.update(key, update, deadline, { condition, returnNew: true });
      return { taken: true, tat: (after && num(after, "tat")) ?? ms(now + cost) };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    return { taken: false, tat: await this.read(take.keyId, deadline) };
  }

  async read(keyId: string, deadline: number): Promise<number> {
    const item = await this.table.get(keys.rateLimitBucket(keyId), deadline);
    return (item && num(item, "tat")) ?? 0;
  }
}
