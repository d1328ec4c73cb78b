/**
 * Creating a category at most once per (API key, Idempotency-Key) for 24 hours: claim the
 * record, reserve an id on it, store the category, store the answer. The id is reserved on the
 * record before the category is written, so a request that dies between the two is finished by
 * the next repeat under the same id: never a second category.
 */
import type { Category, NewCategory } from "../category.ts";
import type { Clock } from "../clock.ts";
import { errors } from "../errors.ts";
import type { CategoryStore } from "../repositories/categories.ts";
import type { IdempotencyRecordStore } from "../repositories/idempotencyRecords.ts";
import type { RecordKey } from "./record.ts";
import { fingerprintMatches, fingerprintOf } from "./record.ts";

export interface IdempotentOutcome {
  readonly category: Category;
  /** True when this answer repeats the stored answer of an earlier request. */
  readonly replayed: boolean;
}

interface Owned {
  readonly key: RecordKey;
  readonly owner: string;
  readonly reservedId: number | undefined;
}

/** Time past the deadline to release a claim, from the margin the deadline keeps. */
const releaseBudgetMs = 200;

export class IdempotentCreator {
  readonly #records: IdempotencyRecordStore;
  readonly #categories: CategoryStore;
  readonly #now: Clock;

  constructor(records: IdempotencyRecordStore, categories: CategoryStore, now: Clock) {
    this.#records = records;
    this.#categories = categories;
    this.#now = now;
  }

  async create(
    scope: string,
    idempotencyKey: string,
    input: NewCategory,
    owner: string,
    deadline: number,
    /** The creating API key's id, stored with the category (audit). */
    keyId?: string,
  ): Promise<IdempotentOutcome> {
    const claimed = await this.#claim({ scope, idempotencyKey }, input, owner, deadline);
    if ("replay" in claimed) return { category: claimed.replay, replayed: true };
    let reservedId = claimed.reservedId;
    try {
      const id = (reservedId ??= await this.#reserveId(claimed, deadline));
      const category =
        (await this.#categories.get(id, deadline)) ??
        (await this.#categories.put(id, input, owner, deadline, keyId));
      // An id taken by an earlier attempt bumped the list version back then: bump it again, so
      // list caches look for this id (lib/categoryList/cache.ts).
      if (claimed.reservedId !== undefined) await this.#categories.commit(deadline);
      if (!(await this.#records.complete(claimed.key, owner, category, deadline))) {
        throw errors.idempotencyInProgress();
      }
      return { category, replayed: false };
    } catch (error) {
      // Without a reserved id nothing was written: let the next repeat start afresh at once.
      // It gets a moment past the deadline: the deadline keeps a margin before the Lambda timeout.
      if (reservedId === undefined) {
        await this.#releaseQuietly(claimed, Math.max(deadline, this.#now() + releaseBudgetMs));
      }
      throw error;
    }
  }

  async #claim(
    key: RecordKey,
    input: NewCategory,
    owner: string,
    deadline: number,
  ): Promise<Owned | { replay: Category }> {
    const now = this.#now();
    // The lock outlives this request's own deadline, so only a request that is surely gone is taken over.
    const claim = { fingerprint: fingerprintOf(input), owner, lockUntil: deadline + 1000 };
    const outcome = await this.#records.claim(key, claim, now, deadline);
    if (outcome.claimed) return { key, owner, reservedId: undefined };
    const { existing } = outcome;
    // Expired (or removed) since the claim was refused: claim again.
    if (!existing || existing.status === "expired") return this.#claim(key, input, owner, deadline);
    if (!fingerprintMatches(existing.fingerprint, input)) throw errors.idempotencyKeyReused();
    if (existing.status === "completed") return { replay: existing.response };
    // Our own earlier attempt landed (its answer was lost and the put was retried).
    if (existing.owner === owner) return { key, owner, reservedId: existing.reservedId };
    if (existing.lockUntil > now) throw errors.idempotencyInProgress();
    // Another repeat may take it over first: then it is in progress again.
    // Stryker disable next-line StringLiteral: every record is claimed with an owner; one without would match neither value
    if (!(await this.#records.takeOver(key, existing.owner ?? "", claim, deadline))) {
      throw errors.idempotencyInProgress();
    }
    return { key, owner, reservedId: existing.reservedId };
  }

  async #reserveId(owned: Owned, deadline: number): Promise<number> {
    const id = await this.#categories.nextId(deadline);
    if (!(await this.#records.reserveId(owned.key, owned.owner, id, deadline))) {
      throw errors.idempotencyInProgress();
    }
    return id;
  }

  async #releaseQuietly(owned: Owned, deadline: number): Promise<void> {
    try {
      await this.#records.release(owned.key, owned.owner, deadline);
    } catch {
      // The lock expires by itself; the original error is what the client must hear about.
    }
  }
}
