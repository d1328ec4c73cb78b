/**
 * Idempotency records in the table (keys: lib/table/schema.ts; states: lib/idempotency/record.ts).
 * Every write but the first claim is conditional on the caller still owning the record, so a
 * request that was taken over can change nothing; each answers false when its condition failed.
 */
import type { DynamoDb, Item } from "../dynamodb.ts";
import type { IdempotencyRecord, RecordKey } from "../idempotency/record.ts";
import { expiresAtSeconds, isExpired } from "../idempotency/record.ts";
import { conditionHeld, isConditionFailure } from "../table/errors.ts";
import { num, text } from "../table/item.ts";
import type { Key } from "../table/schema.ts";
import { keys, ttlAttribute } from "../table/schema.ts";
import type { Expression } from "../table/table.ts";
import { Table } from "../table/table.ts";

export interface Claim {
  readonly fingerprint: string;
  readonly owner: string;
  readonly lockUntil: number;
}

/** A claim made, or the live record that refused it (none when it was gone by the time it was read). */
export type ClaimOutcome<Answer = unknown> =
  | { readonly claimed: true }
  | { readonly claimed: false; readonly existing: IdempotencyRecord<Answer> | undefined };

const ownedBy = (owner: string, extra = ""): Expression => ({
  text: `#owner = :me${extra}`,
  names: { "#owner": "owner" },
  values: { ":me": owner },
});

export class IdempotencyRecordStore {
  readonly #table: Table;

  constructor(db: DynamoDb, tableName: string) {
    this.#table = new Table(db, tableName);
  }

  /**
   * Creates an in-progress record unless a live one exists; then answers that one. `Answer` is
   * what the record's operation stores as its response (what `complete` was given).
   */
  async claim<Answer>(
    key: RecordKey,
    claim: Claim,
    now: number,
    deadline: number,
  ): Promise<ClaimOutcome<Answer>> {
    const fields = { ...claim, [ttlAttribute]: expiresAtSeconds(now) };
    try {
      await this.#table.put(keyOf(key), fields, deadline, {
        text: "attribute_not_exists(pk) OR #ttl < :nowSeconds",
        names: { "#ttl": ttlAttribute },
        values: { ":nowSeconds": Math.floor(now / 1000) },
      });
      return { claimed: true };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const item = await this.#table.collidedWith(error, keyOf(key), deadline);
      return { claimed: false, existing: item && toRecord<Answer>(item, now) };
    }
  }

  /** Whether a live record (not expired) is stored under `key` (strongly consistent). */
  async isLive(key: RecordKey, now: number, deadline: number): Promise<boolean> {
    const item = await this.#table.get(keyOf(key), deadline);
    return item !== undefined && toRecord(item, now).status !== "expired";
  }

  /** Takes an unfinished record over from `previousOwner`; false when another got there first. */
  takeOver(
    key: RecordKey,
    previousOwner: string,
    claim: Claim,
    deadline: number,
  ): Promise<boolean> {
    return conditionHeld(
      this.#table.update(
        keyOf(key),
        {
          text: "SET #owner = :owner, lockUntil = :lockUntil",
          names: { "#owner": "owner" },
          values: { ":owner": claim.owner, ":lockUntil": claim.lockUntil },
        },
        deadline,
        {
          condition: {
            text: "#owner = :previous AND attribute_not_exists(#response)",
            names: { "#response": "response" },
            values: { ":previous": previousOwner },
          },
        },
      ),
    );
  }

  /** Notes the category id the owner will store under; false when the owner lost the record. */
  reserveId(key: RecordKey, owner: string, id: number, deadline: number): Promise<boolean> {
    const update = { text: "SET categoryId = :id", values: { ":id": id } };
    return this.#ownedUpdate(key, owner, update, deadline);
  }

  /** Stores the answer; false when the owner lost the record. */
  complete(key: RecordKey, owner: string, answer: unknown, deadline: number): Promise<boolean> {
    const update = {
      text: "SET #response = :response",
      names: { "#response": "response" },
      values: { ":response": JSON.stringify(answer) },
    };
    return this.#ownedUpdate(key, owner, update, deadline);
  }

  /** Removes an owned record that reserved no id yet, so a repeat can start afresh at once. */
  async release(key: RecordKey, owner: string, deadline: number): Promise<void> {
    await this.#table.delete(
      keyOf(key),
      deadline,
      ownedBy(owner, " AND attribute_not_exists(categoryId)"),
    );
  }

  #ownedUpdate(
    key: RecordKey,
    owner: string,
    update: Expression,
    deadline: number,
  ): Promise<boolean> {
    return conditionHeld(
      this.#table.update(keyOf(key), update, deadline, { condition: ownedBy(owner) }),
    );
  }
}

function keyOf({ scope, operation, idempotencyKey }: RecordKey): Key {
  return operation === undefined
    ? keys.legacyIdempotency(scope, idempotencyKey)
    : keys.idempotency(scope, operation, idempotencyKey);
}

/** The one place a record's state is read from its attributes. */
function toRecord<Answer>(item: Item, now: number): IdempotencyRecord<Answer> {
  if (isExpired(num(item, ttlAttribute) ?? Number.NaN, now)) return { status: "expired" };
  const live = {
    // Stryker disable next-line StringLiteral: every record is written with its fingerprint; no request's fingerprint (a hash, or "v2:" and one) matches "" or any other non-hash alike
    fingerprint: text(item, "fingerprint") ?? "",
    owner: text(item, "owner"),
    lockUntil: num(item, "lockUntil") ?? Number.NaN,
  };
  const response = text(item, "response");
  if (response !== undefined) {
    return { ...live, status: "completed", response: JSON.parse(response) as Answer };
  }
  return { ...live, status: "in_progress", reservedId: num(item, "categoryId") };
}
