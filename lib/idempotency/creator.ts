/**
 * Creating a resource's item (a category) at most once per (client, operation, Idempotency-Key)
 * for 24 hours, a client being an API key and the keys that replaced it by rotation: claim the
 * record, reserve an id on it, store the item, store the answer. The id is reserved on the record
 * before the item is written, so a request that dies between the two is finished by the next
 * repeat under the same id: never a second item.
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
 * and its use in `earlierKeys` go 24 hours after the release that made the change.
 */
const legacyOperation = "createCategory";

export interface CreateOptions {
  /** The creating API key's id, stored with the item (audit). */
  readonly keyId?: string | undefined;
  /**
   * Where the same client's records were scoped before (the API key's hash, before records were
   * scoped to its rotation chain): read until they have expired, 24 hours after the release
   * that made the change, when this option goes.
   */
  readonly formerScope?: string | undefined;
}

/**
 * Where earlier releases kept a record of this key, newest layout first: under the former scope,
 * and there, for the operation that once named none, without the operation. A repeat of a
 * request made before a change of layout finds its record there. Both layouts are only under the
 * former scope: an operation-less key never shares a partition with today's records, where an
 * Idempotency-Key "createCategory#k" would read as the record of "k".
 */
function earlierKeys(key: RecordKey, formerScope: string | undefined): RecordKey[] {
  // Stryker disable next-line ConditionalExpression: without it the reads go to partition "IDEMPOTENCY#undefined", where nothing is ever written: the same answers, at one read more
  if (formerScope === undefined) return [];
  const former = { ...key, scope: formerScope };
  return key.operation === legacyOperation
    ? [former, { ...former, operation: undefined }]
    : [former];
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
    { keyId, formerScope }: CreateOptions = {},
  ): Promise<IdempotentOutcome<Stored>> {
    const key = { scope, operation: this.#operation, idempotencyKey };
    const claimed = await this.#claim(key, input, owner, deadline, earlierKeys(key, formerScope));
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
      // It gets a moment past the deadline: the deadline keeps a margin before the Lambda timeout.
      if (reservedId === undefined) {
        await this.#releaseQuietly(claimed, Math.max(deadline, this.#now() + releaseBudgetMs));
      }
      throw error;
    }
  }

  /** `earlier`: where earlier releases kept this key's record (`earlierKeys`). */
  async #claim(
    key: RecordKey,
    input: New,
    owner: string,
    deadline: number,
    earlier: readonly RecordKey[],
  ): Promise<Owned | { replay: Stored }> {
    const now = this.#now();
    // The lock outlives this request's own deadline, so only a request that is surely gone is taken over.
    const claim = { fingerprint: fingerprintOf(input), owner, lockUntil: deadline + 1000 };
    const outcome = await this.#records.claim<Stored>(key, claim, now, deadline);
    if (outcome.claimed) {
      // Read at once, not one after the other: a first request pays one round trip for them.
      const live = await Promise.all(earlier.map((k) => this.#records.isLive(k, now, deadline)));
      const decides = earlier.find((_, i) => live[i]);
      if (decides === undefined) return { key, owner, reservedId: undefined };
      // A request made before a change of layout: its record decides.
      await this.#records.release(key, owner, deadline);
      // Stryker disable next-line ArrayDeclaration: what is not a record key reads no record (an "IDEMPOTENCY#undefined" partition), so the earlier record still decides: the same answers, at a read more
      return this.#claim(decides, input, owner, deadline, []);
    }
    const { existing } = outcome;
    // Expired (or removed) since the claim was refused: claim again.
    if (!existing || existing.status === "expired") {
      return this.#claim(key, input, owner, deadline, earlier);
    }
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
    const id = await this.#store.nextId(deadline);
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
