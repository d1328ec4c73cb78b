/**
 * Retries without duplicates (contract, "Retries without duplicates"): a POST carrying an
 * Idempotency-Key creates at most one category per (API key, Idempotency-Key) for 24 hours.
 *
 *   pk "IDEMPOTENCY#<sha256 of the API key>"  sk "<Idempotency-Key>"
 *   fingerprint S   sha256 of the validated NewCategory, to tell a repeat from a reuse
 *   owner S         the request currently (or last) processing it
 *   lockUntil N     epoch ms after which a stalled owner (a crashed or timed-out Lambda) is taken over
 *   categoryId N?   the id reserved for this key before the category is stored
 *   response S?     the stored 201 body, once completed
 *   ttl N           epoch seconds; DynamoDB TTL deletes it later, reads treat it as gone at once
 *
 * The id is reserved on the record before the category is written, so a request that dies
 * between the two is finished by the next repeat under the same id: never a second category.
 */
import { createHash } from "node:crypto";
import type { DynamoDb, Item } from "./dynamodb.ts";
import { errors } from "./errors.ts";
import type { Category, CategoryStore, NewCategory } from "./store.ts";
import { isConditionFailure } from "./store.ts";

export const idempotencyWindowMs = 24 * 60 * 60 * 1000;

/** 1 to 255 printable ASCII characters (contract). */
export function parseIdempotencyKey(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^[\x20-\x7e]{1,255}$/.test(value)) {
    throw errors.invalidIdempotencyKey();
  }
  return value;
}

export interface IdempotentOutcome {
  readonly category: Category;
  /** True when this answer repeats the stored answer of an earlier request. */
  readonly replayed: boolean;
}

interface Claim {
  readonly key: Item;
  readonly owner: string;
  readonly reservedId: number | undefined;
}

export class IdempotentCreator {
  readonly #db: DynamoDb;
  readonly #table: string;
  readonly #categories: CategoryStore;
  readonly #now: () => number;

  constructor(db: DynamoDb, tableName: string, categories: CategoryStore, now: () => number) {
    this.#db = db;
    this.#table = tableName;
    this.#categories = categories;
    this.#now = now;
  }

  async create(
    scope: string,
    idempotencyKey: string,
    input: NewCategory,
    owner: string,
    deadline: number,
  ): Promise<IdempotentOutcome> {
    const key = { pk: { S: `IDEMPOTENCY#${scope}` }, sk: { S: idempotencyKey } };
    const fingerprint = fingerprintOf(input);
    const claim = await this.#claim(key, fingerprint, owner, deadline);
    if ("replay" in claim) return { category: claim.replay, replayed: true };
    let reservedId = claim.reservedId;
    try {
      const id = (reservedId ??= await this.#reserveId(claim, deadline));
      const category =
        (await this.#categories.get(id, deadline)) ??
        (await this.#categories.put(id, input, owner, deadline));
      await this.#complete(claim, category, deadline);
      return { category, replayed: false };
    } catch (error) {
      // Without a reserved id nothing was written: let the next repeat start afresh at once.
      // It gets a moment past the deadline: the deadline keeps a margin before the Lambda timeout.
      if (reservedId === undefined)
        await this.#releaseQuietly(claim, Math.max(deadline, Date.now() + 200));
      throw error;
    }
  }

  async #claim(
    key: Item,
    fingerprint: string,
    owner: string,
    deadline: number,
  ): Promise<Claim | { replay: Category }> {
    const now = this.#now();
    // The lock outlives this request's own deadline, so only a request that is surely gone is taken over.
    const lockUntil = deadline + 1000;
    try {
      await this.#db.call(
        "PutItem",
        {
          TableName: this.#table,
          Item: {
            ...key,
            fingerprint: { S: fingerprint },
            owner: { S: owner },
            lockUntil: { N: String(lockUntil) },
            ttl: { N: String(Math.floor((now + idempotencyWindowMs) / 1000)) },
          },
          ConditionExpression: "attribute_not_exists(pk) OR #ttl < :nowSeconds",
          ExpressionAttributeNames: { "#ttl": "ttl" },
          ExpressionAttributeValues: { ":nowSeconds": { N: String(Math.floor(now / 1000)) } },
        },
        deadline,
      );
      return { key, owner, reservedId: undefined };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    const existing = await this.#read(key, deadline);
    if (!existing) return this.#claim(key, fingerprint, owner, deadline); // expired and removed meanwhile
    if (existing.fingerprint?.S !== fingerprint) throw errors.idempotencyKeyReused();
    if (existing.response?.S !== undefined) {
      return { replay: JSON.parse(existing.response.S) as Category };
    }
    if (existing.owner?.S === owner) {
      // Our own earlier attempt landed (its answer was lost and the put was retried).
      return { key, owner, reservedId: numberOf(existing.categoryId) };
    }
    if (Number(existing.lockUntil?.N) > now) throw errors.idempotencyInProgress();
    return this.#takeOver(key, existing, owner, lockUntil, deadline);
  }

  async #takeOver(
    key: Item,
    existing: Item,
    owner: string,
    lockUntil: number,
    deadline: number,
  ): Promise<Claim> {
    try {
      await this.#db.call(
        "UpdateItem",
        {
          TableName: this.#table,
          Key: key,
          UpdateExpression: "SET #owner = :owner, lockUntil = :lockUntil",
          ConditionExpression: "#owner = :previous AND attribute_not_exists(#response)",
          ExpressionAttributeNames: { "#owner": "owner", "#response": "response" },
          ExpressionAttributeValues: {
            ":owner": { S: owner },
            ":lockUntil": { N: String(lockUntil) },
            ":previous": { S: existing.owner?.S ?? "" },
          },
        },
        deadline,
      );
    } catch (error) {
      // Another repeat took it over first: it is in progress again.
      if (isConditionFailure(error)) throw errors.idempotencyInProgress();
      throw error;
    }
    return { key, owner, reservedId: numberOf(existing.categoryId) };
  }

  async #reserveId(claim: Claim, deadline: number): Promise<number> {
    const id = await this.#categories.nextId(deadline);
    await this.#ownedUpdate(claim, "SET categoryId = :id", { ":id": { N: String(id) } }, deadline);
    return id;
  }

  async #complete(claim: Claim, category: Category, deadline: number): Promise<void> {
    await this.#ownedUpdate(
      claim,
      "SET #response = :response",
      { ":response": { S: JSON.stringify(category) } },
      deadline,
      { "#response": "response" },
    );
  }

  /** An update that only the current owner may make; a lost ownership means another request took over. */
  async #ownedUpdate(
    claim: Claim,
    expression: string,
    values: Record<string, { S?: string; N?: string }>,
    deadline: number,
    names: Record<string, string> = {},
  ): Promise<void> {
    try {
      await this.#db.call(
        "UpdateItem",
        {
          TableName: this.#table,
          Key: claim.key,
          UpdateExpression: expression,
          ConditionExpression: "#owner = :me",
          ExpressionAttributeNames: { "#owner": "owner", ...names },
          ExpressionAttributeValues: { ":me": { S: claim.owner }, ...values },
        },
        deadline,
      );
    } catch (error) {
      if (isConditionFailure(error)) throw errors.idempotencyInProgress();
      throw error;
    }
  }

  async #releaseQuietly(claim: Claim, deadline: number): Promise<void> {
    try {
      await this.#db.call(
        "DeleteItem",
        {
          TableName: this.#table,
          Key: claim.key,
          ConditionExpression: "#owner = :me AND attribute_not_exists(categoryId)",
          ExpressionAttributeNames: { "#owner": "owner" },
          ExpressionAttributeValues: { ":me": { S: claim.owner } },
        },
        deadline,
      );
    } catch {
      // The lock expires by itself; the original error is what the client must hear about.
    }
  }

  async #read(key: Item, deadline: number): Promise<Item | undefined> {
    const output: { Item?: Item } = await this.#db.call(
      "GetItem",
      { TableName: this.#table, Key: key, ConsistentRead: true },
      deadline,
    );
    const item = output.Item;
    if (!item) return undefined;
    return isExpired(item, this.#now()) ? undefined : item;
  }
}

/** The same rule as the claim's condition (`ttl < now in seconds`), so the two never disagree. */
function isExpired(item: Item, now: number): boolean {
  return Number(item.ttl?.N) < Math.floor(now / 1000);
}

function fingerprintOf(input: NewCategory): string {
  return createHash("sha256")
    .update(JSON.stringify([input.name, input.description ?? null]))
    .digest("hex");
}

function numberOf(value: { N?: string } | undefined): number | undefined {
  return value?.N === undefined ? undefined : Number(value.N);
}
