/**
 * API key records as a request reads them (keys: lib/table/schema.ts): the record stored under a
 * key's hash, and nothing else, so that request functions hold no key administration
 * (./apiKeys.ts; test/infra/bundleContents.test.ts). Only the SHA-256 of a key is stored, so a
 * leaked table or backup yields no usable key. Keys carry 256 random bits, so a fast hash is as
 * safe as a slow one here: there is nothing to brute-force.
 */
import { createHash } from "node:crypto";
import type { DynamoDb, Item } from "../dynamodb.ts";
import type { Scope } from "../scopes.ts";
import { storedScopes } from "../scopes.ts";
import { num, text } from "../table/item.ts";
import { keys } from "../table/schema.ts";
import { Table } from "../table/table.ts";

export interface ApiKeyRecord {
  /** Public handle for operators and logs; reveals nothing about the key. */
  readonly keyId: string;
  readonly label: string;
  readonly createdAt: string;
  readonly expiresAt?: string | undefined;
  readonly revokedAt?: string | undefined;
  /** What the key may do; a key stored before scopes existed has both. */
  readonly scopes: readonly Scope[];
  /** For a key issued by a rotation: the id of the key it replaces. */
  readonly rotatedFrom?: string | undefined;
  /** The key's own rate limit ("50/s", "600/min") and burst; unset: the stage's default. */
  readonly rate?: string | undefined;
  readonly burst?: number | undefined;
  /** Who issued the key (the audit's `who`); unset on keys stored before it was kept. */
  readonly createdBy?: string | undefined;
  /**
   * The rate limit bucket the key counts against (lib/auth.ts, Principal): its own id, or for a
   * rotated key the bucket of the key it replaces, so the pair shares one during the grace window
   * (its idempotency records stay each key's own). Read as the key's id where a record stored
   * before it has none.
   */
  readonly bucket: string;
}

export function hashApiKey(apiKey: string): string {
  return createHash("sha256").update(apiKey, "utf8").digest("hex");
}

export class ApiKeyLookup {
  readonly #table: Table;

  constructor(db: DynamoDb, tableName: string) {
    this.#table = new Table(db, tableName);
  }

  /** The record stored under a key's hash (strongly consistent). */
  async find(keyHash: string, deadline: number): Promise<ApiKeyRecord | undefined> {
    const item = await this.#table.get(keys.apiKey(keyHash), deadline);
    return item && toRecord(item);
  }
}

/** The one place a key record is read from its item's attributes. */
export function toRecord(item: Item): ApiKeyRecord {
  return {
    keyId: text(item, "keyId") ?? "",
    label: text(item, "label") ?? "",
    createdAt: text(item, "createdAt") ?? "",
    expiresAt: text(item, "expiresAt"),
    revokedAt: text(item, "revokedAt"),
    scopes: storedScopes(text(item, "scopes")),
    rotatedFrom: text(item, "rotatedFrom"),
    rate: text(item, "rate"),
    burst: num(item, "burst"),
    createdBy: text(item, "createdBy"),
    bucket: text(item, "bucket") ?? text(item, "keyId") ?? "",
  };
}
