/**
 * Creating a resource's item (a category) at most once per (API key, operation, Idempotency-Key)
 * for 24 hours: claim the record, reserve an id on it, store the item, store the answer. The id
 * is reserved on the record before the item is written, so a request that dies between the two
 * is finished by the next repeat under the same id: never a second item.
 */
import type { Clock } from "../clock.ts";
import { errors } from "../errors.ts";
import type { ResourceStore } from "../repositories/categories.ts";
import type { IdempotencyRecordStore } from "../repositories/idempotencyRecords.ts";
import type { Identified } from "../resource.ts";
import type { RecordKey } from "./record.ts";
import { fingerprintMatches, fingerprintOf } from "./record.ts";

export interface IdempotentOutcome<Stored> {
  /** The item created, or the one an earlier request created (`replayed`). */
  readonly category: Stored;
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

/**
 * The one operation whose records were keyed without their operation (lib/table/schema.ts): a
 * repeat of a request made before the change finds that record, until it has expired. This line
 * and `legacyKey` go 24 hours after the release that made the change.
 */
const legacyOperation = "createCategory";

/**
 * Where the record of a request made before records named their operation would be: the
 * Idempotency-Key alone, in the same partition. None for a key with a "#": read as a sort key it
 * would name a record of today's layout (the record of "k" is "createCategory#k"), not an old one.
 */
function legacyKey(key: RecordKey): RecordKey | undefined {
  if (key.operation !== legacyOperation || key.idempotencyKey.includes("#")) return undefined;
  return { ...key, operation: undefined };
}

export class IdempotentCreator<New extends object, Stored extends Identified> {
  readonly #records: IdempotencyRecordStore;
  readonly #store: ResourceStore<New, Stored>;
  readonly #now: Clock;
  readonly #operation: string;

  /** `operation`: the function's name, which scopes its records (e.g. "createCategory"). */
  constructor(
    records: IdempotencyRecordStore,
    store: ResourceStore<New, Stored>,
    now: Clock,
    operation: string,
  ) {
    this.#records = records;
    this.#store = store;
    this.#now = now;
    this.#operation = operation;
  }

  async create(
    scope: string,
    idempotencyKey: string,
    input: New,
    owner: string,
    deadline: number,
    /** The creating API key's id, stored with the item (audit). */
    keyId?: string,
  ): Promise<IdempotentOutcome<Stored>> {
    const key = { scope, operation: this.#operation, idempotencyKey };
    const claimed = await this.#claim(key, input, owner, deadline);
    if ("replay" in claimed) return { category: claimed.replay, replayed: true };
    let reservedId = claimed.reservedId;
    try {
      const id = (reservedId ??= await this.#reserveId(claimed, deadline));
      const category =
        (await this.#store.get(id, deadline)) ??
        (await this.#store.put(id, input, owner, deadline, keyId));
      // An id taken by an earlier attempt bumped the list version back then: bump it again, so
      // list caches look for this id (lib/categoryList/cache.ts).
      if (claimed.reservedId !== undefined) await this.#store.commit(deadline);
      if (!(await this.#records.complete(claimed.key, owner, category, deadline))) {
        throw errors.idempotencyInProgress();
      }
      return { category, replayed: false };
    } catch (error) {
      // Without a reserved id nothing was written: let the next repeat start afresh at once.
      if (reservedId === undefined) await this.#releaseQuietly(claimed, deadline);
      throw error;
    }
  }

  async #claim(
    key: RecordKey,
    input: New,
    owner: string,
    deadline: number,
  ): Promise<Owned | { replay: Stored }> {
    const now = this.#now();
    // The lock outlives this request's own deadline, so only a request that is surely gone is taken over.
    const claim = { fingerprint: fingerprintOf(input), owner, lockUntil: deadline + 1000 };
    const outcome = await this.#records.claim<Stored>(key, claim, now, deadline);
    let owned: Owned;
    if (outcome.claimed) owned = { key, owner, reservedId: undefined };
    else {
      const { existing } = outcome;
      // Expired (or removed) since the claim was refused: claim again.
      if (!existing || existing.status === "expired")
        return this.#claim(key, input, owner, deadline);
      if (!fingerprintMatches(existing.fingerprint, input)) throw errors.idempotencyKeyReused();
      if (existing.status === "completed") return { replay: existing.response };
      owned = { key, owner, reservedId: existing.reservedId };
      // Unless it is our own earlier attempt that landed (its answer lost, the put retried), it is
      // another request's: taken over only once its lock has run out, and only by one repeat.
      if (existing.owner !== owner) {
        if (existing.lockUntil > now) throw errors.idempotencyInProgress();
        // Stryker disable next-line StringLiteral: every record is claimed with an owner; one without would match neither value
        if (!(await this.#records.takeOver(key, existing.owner ?? "", claim, deadline))) {
          throw errors.idempotencyInProgress();
        }
      }
    }
    // Nothing is written yet (no id reserved), however the record came to be ours: a request made
    // before records named their operation may still decide.
    const legacy = legacyKey(key);
    if (owned.reservedId !== undefined || legacy === undefined) return owned;
    let decides: boolean;
    try {
      decides = await this.#records.isLive(legacy, now, deadline);
    } catch (error) {
      await this.#releaseQuietly(owned, deadline);
      throw error;
    }
    if (!decides) return owned;
    // A request made before records named their operation: its record decides.
    await this.#records.release(key, owner, deadline);
    return this.#claim(legacy, input, owner, deadline);
  }

  async #reserveId(owned: Owned, deadline: number): Promise<number> {
    const id = await this.#store.nextId(deadline);
    if (!(await this.#records.reserveId(owned.key, owned.owner, id, deadline))) {
      throw errors.idempotencyInProgress();
    }
    return id;
  }

  /**
   * Gives a claim that reserved no id back, so the next repeat starts afresh at once. It gets a
   * moment past the request's deadline, which keeps a margin before the Lambda timeout.
   */
  async #releaseQuietly(owned: Owned, deadline: number): Promise<void> {
    try {
      const until = Math.max(deadline, this.#now() + releaseBudgetMs);
      await this.#records.release(owned.key, owned.owner, until);
    } catch {
      // The lock expires by itself; the original error is what the client must hear about.
    }
  }
}
