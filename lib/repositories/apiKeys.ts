/**
 * API key records (keys: lib/table/schema.ts). Only the SHA-256 of a key is stored, so a leaked
 * table or backup yields no usable key. Keys carry 256 random bits, so a fast hash is as safe as
 * a slow one here: there is nothing to brute-force.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Clock } from "../clock.ts";
import { systemClock } from "../clock.ts";
import type { DynamoDb, Item } from "../dynamodb.ts";
import { num, text } from "../table/item.ts";
import { keys, partitions } from "../table/schema.ts";
import { Table } from "../table/table.ts";

export interface ApiKeyRecord {
  /** Public handle for operators and logs; reveals nothing about the key. */
  readonly keyId: string;
  readonly label: string;
  readonly createdAt: string;
  readonly expiresAt?: string | undefined;
  readonly revokedAt?: string | undefined;
  /** The key's own rate limit ("50/s", "600/min") and burst; unset: the stage's default. */
  readonly rate?: string | undefined;
  readonly burst?: number | undefined;
}

/** A key's own rate limit as stored (lib/rateLimit/policy.ts parses and checks it). */
export interface KeyRateLimit {
  readonly rate: string;
  readonly burst: number;
}

export interface IssuedKey {
  /** The key itself: shown once, never stored. */
  readonly apiKey: string;
  readonly record: ApiKeyRecord;
}

export interface ApiKeyRepository {
  /** The record stored under a key's hash (strongly consistent). */
  find(keyHash: string, deadline: number): Promise<ApiKeyRecord | undefined>;
  /** Stores a new key (a fresh one unless `apiKey` is given) and answers it once. */
  issue(
    label: string,
    expiresAt: Date | undefined,
    deadline: number,
    apiKey?: string,
    rateLimit?: KeyRateLimit,
  ): Promise<IssuedKey>;
  /** Every key record, oldest first. */
  list(deadline: number): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked; false when no key has that id. Revoking twice keeps the first time. */
  revoke(keyId: string, deadline: number): Promise<boolean>;
  /** Sets the key's own rate limit; false when no key has that id. */
  setRateLimit(keyId: string, rateLimit: KeyRateLimit, deadline: number): Promise<boolean>;
}

/** Keys are `petstore_` + 43 base64url characters: RFC 6750 b64token characters only. */
export function generateApiKey(): string {
  return `petstore_${randomBytes(32).toString("base64url")}`;
}

export function hashApiKey(apiKey: string): string {
  return createHash("sha256").update(apiKey, "utf8").digest("hex");
}

export class ApiKeyStore implements ApiKeyRepository {
  readonly #table: Table;
  readonly #now: Clock;

  constructor(db: DynamoDb, tableName: string, now: Clock = systemClock) {
    this.#table = new Table(db, tableName);
    this.#now = now;
  }

  async find(keyHash: string, deadline: number): Promise<ApiKeyRecord | undefined> {
    const item = await this.#table.get(keys.apiKey(keyHash), deadline);
    return item && toRecord(item);
  }

  async issue(
    label: string,
    expiresAt: Date | undefined,
    deadline: number,
    apiKey = generateApiKey(),
    rateLimit?: KeyRateLimit,
  ): Promise<IssuedKey> {
    const record: ApiKeyRecord = {
      keyId: `key_${randomBytes(6).toString("hex")}`,
      label,
      createdAt: new Date(this.#now()).toISOString(),
      expiresAt: expiresAt?.toISOString(),
      rate: rateLimit?.rate,
      burst: rateLimit?.burst,
    };
    await this.#table.put(keys.apiKey(hashApiKey(apiKey)), { ...record }, deadline);
    return { apiKey, record };
  }

  async list(deadline: number): Promise<ApiKeyRecord[]> {
    const items = await this.#table.queryAll({ partition: partitions.apiKey }, deadline);
    return items.map(toRecord).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async revoke(keyId: string, deadline: number): Promise<boolean> {
    const keyHash = await this.#hashOf(keyId, deadline);
    if (keyHash === undefined) return false;
    await this.#table.update(
      keys.apiKey(keyHash),
      {
        text: "SET revokedAt = if_not_exists(revokedAt, :now)",
        values: { ":now": new Date(this.#now()).toISOString() },
      },
      deadline,
    );
    return true;
  }

  async setRateLimit(keyId: string, rateLimit: KeyRateLimit, deadline: number): Promise<boolean> {
    const keyHash = await this.#hashOf(keyId, deadline);
    if (keyHash === undefined) return false;
    await this.#table.update(
      keys.apiKey(keyHash),
      {
        text: "SET rate = :rate, burst = :burst",
        values: { ":rate": rateLimit.rate, ":burst": rateLimit.burst },
      },
      deadline,
    );
    return true;
  }

  /** The stored hash (sort key) of the key with this id, reading pages only until it is found. */
  async #hashOf(keyId: string, deadline: number): Promise<string | undefined> {
    const pages = this.#table.queryPages(
      {
        partition: partitions.apiKey,
        filter: { text: "keyId = :id", values: { ":id": keyId } },
      },
      deadline,
    );
    for await (const page of pages) {
      const match = page[0] && text(page[0], "sk");
      if (match !== undefined) return match;
    }
    return undefined;
  }
}

function toRecord(item: Item): ApiKeyRecord {
  return {
    keyId: text(item, "keyId") ?? "",
    label: text(item, "label") ?? "",
    createdAt: text(item, "createdAt") ?? "",
    expiresAt: text(item, "expiresAt"),
    revokedAt: text(item, "revokedAt"),
    rate: text(item, "rate"),
    burst: num(item, "burst"),
  };
}
