/**
 * API key records in the stage's table. Only the SHA-256 of a key is stored (as the sort key), so
 * a leaked table or backup yields no usable key. Keys carry 256 random bits, so a fast hash is as
 * safe as a slow one here: there is nothing to brute-force.
 *
 *   pk "APIKEY"  sk "<sha256 hex of the key>"  keyId S, label S, createdAt S, expiresAt S?, revokedAt S?
 */
import { createHash, randomBytes } from "node:crypto";
import type { DynamoDb, Item } from "./dynamodb.ts";

export interface ApiKeyRecord {
  /** Public handle for operators and logs; reveals nothing about the key. */
  readonly keyId: string;
  readonly label: string;
  readonly createdAt: string;
  readonly expiresAt?: string | undefined;
  readonly revokedAt?: string | undefined;
}

export interface IssuedKey {
  /** The key itself: shown once, never stored. */
  readonly apiKey: string;
  readonly record: ApiKeyRecord;
}

/** Keys are `petstore_` + 43 base64url characters: RFC 6750 b64token characters only. */
export function generateApiKey(): string {
  return `petstore_${randomBytes(32).toString("base64url")}`;
}

export function hashApiKey(apiKey: string): string {
  return createHash("sha256").update(apiKey, "utf8").digest("hex");
}

const partition = { S: "APIKEY" };

export class ApiKeyStore {
  readonly #db: DynamoDb;
  readonly #table: string;
  readonly #now: () => number;

  constructor(db: DynamoDb, tableName: string, now: () => number = Date.now) {
    this.#db = db;
    this.#table = tableName;
    this.#now = now;
  }

  async find(keyHash: string, deadline: number): Promise<ApiKeyRecord | undefined> {
    const output: { Item?: Item } = await this.#db.call(
      "GetItem",
      { TableName: this.#table, Key: { pk: partition, sk: { S: keyHash } }, ConsistentRead: true },
      deadline,
    );
    return output.Item && toRecord(output.Item);
  }

  async issue(
    label: string,
    expiresAt: Date | undefined,
    deadline: number,
    apiKey = generateApiKey(),
  ): Promise<IssuedKey> {
    const record: ApiKeyRecord = {
      keyId: `key_${randomBytes(6).toString("hex")}`,
      label,
      createdAt: new Date(this.#now()).toISOString(),
      expiresAt: expiresAt?.toISOString(),
    };
    await this.#db.call(
      "PutItem",
      {
        TableName: this.#table,
        Item: { pk: partition, sk: { S: hashApiKey(apiKey) }, ...toItem(record) },
      },
      deadline,
    );
    return { apiKey, record };
  }

  async list(deadline: number): Promise<ApiKeyRecord[]> {
    const records: ApiKeyRecord[] = [];
    let startKey: Item | undefined;
    do {
      const page: { Items?: Item[]; LastEvaluatedKey?: Item } = await this.#db.call(
        "Query",
        {
          TableName: this.#table,
          KeyConditionExpression: "pk = :pk",
          ExpressionAttributeValues: { ":pk": partition },
          ...(startKey && { ExclusiveStartKey: startKey }),
        },
        deadline,
      );
      for (const item of page.Items ?? []) records.push(toRecord(item));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return records.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** Marks the key revoked; false when no key has that id. Revoking twice keeps the first time. */
  async revoke(keyId: string, deadline: number): Promise<boolean> {
    const found = await this.#sortKeyOf(keyId, deadline);
    if (found === undefined) return false;
    await this.#db.call(
      "UpdateItem",
      {
        TableName: this.#table,
        Key: { pk: partition, sk: { S: found } },
        UpdateExpression: "SET revokedAt = if_not_exists(revokedAt, :now)",
        ExpressionAttributeValues: { ":now": { S: new Date(this.#now()).toISOString() } },
      },
      deadline,
    );
    return true;
  }

  async #sortKeyOf(keyId: string, deadline: number): Promise<string | undefined> {
    let startKey: Item | undefined;
    do {
      const page: { Items?: Item[]; LastEvaluatedKey?: Item } = await this.#db.call(
        "Query",
        {
          TableName: this.#table,
          KeyConditionExpression: "pk = :pk",
          FilterExpression: "keyId = :id",
          ExpressionAttributeValues: { ":pk": partition, ":id": { S: keyId } },
          ...(startKey && { ExclusiveStartKey: startKey }),
        },
        deadline,
      );
      const match = page.Items?.[0]?.sk?.S;
      if (match !== undefined) return match;
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return undefined;
  }
}

function toItem(record: ApiKeyRecord): Item {
  return {
    keyId: { S: record.keyId },
    label: { S: record.label },
    createdAt: { S: record.createdAt },
    ...(record.expiresAt !== undefined && { expiresAt: { S: record.expiresAt } }),
    ...(record.revokedAt !== undefined && { revokedAt: { S: record.revokedAt } }),
  };
}

function toRecord(item: Item): ApiKeyRecord {
  return {
    keyId: item.keyId?.S ?? "",
    label: item.label?.S ?? "",
    createdAt: item.createdAt?.S ?? "",
    expiresAt: item.expiresAt?.S,
    revokedAt: item.revokedAt?.S,
  };
}
