/**
 * Administering API key records (keys: lib/table/schema.ts; the record and the lookup a request
 * makes: ./keyLookup.ts). New keys have the contract's format (lib/keyFormat.ts) and their scopes
 * (lib/scopes.ts) stored with them.
 */
import { randomBytes } from "node:crypto";
import type { Clock } from "../clock.ts";
import { systemClock } from "../clock.ts";
import type { DynamoDb, Item } from "../dynamodb.ts";
import type { KeyStage } from "../keyFormat.ts";
import { generateKey } from "../keyFormat.ts";
import type { Scope } from "../scopes.ts";
import { allScopes, scopeText, storedScopes } from "../scopes.ts";
import { text, toItem } from "../table/item.ts";
import { keys, partitions } from "../table/schema.ts";
import { Table } from "../table/table.ts";
import type { ApiKeyRecord } from "./keyLookup.ts";
import { ApiKeyLookup, hashApiKey, toRecord } from "./keyLookup.ts";

// What callers of the key store name with it; their owner is ./keyLookup.ts.
export type { ApiKeyRecord } from "./keyLookup.ts";
export { hashApiKey } from "./keyLookup.ts";

/** A key's own rate limit as stored (lib/rateLimit/policy.ts parses and checks it). */
export interface KeyRateLimit {
  readonly rate: string;
  readonly burst: number;
}

export interface IssueOptions {
  /** Default: never. */
  readonly expiresAt?: Date | undefined;
  /** The key to store (a legacy or fixed one); default: a fresh key of the stage's format. */
  readonly apiKey?: string | undefined;
  /** The key's own rate limit; default: the stage's. */
  readonly rateLimit?: KeyRateLimit | undefined;
  /** Default: every scope. */
  readonly scopes?: readonly Scope[] | undefined;
  /** The stage the new key names (lib/keyFormat.ts); default "local". */
  readonly stage?: KeyStage | undefined;
}

/** What `update` may change in place. */
export interface KeyChanges {
  readonly scopes?: readonly Scope[] | undefined;
  /** The key's own rate limit and burst. */
  readonly rateLimit?: KeyRateLimit | undefined;
}

export interface Rotation {
  /** The new key: same label, scopes and every other setting of the old one. */
  readonly issued: IssuedKey;
  /** The old key, now expiring at the end of the grace. */
  readonly previous: ApiKeyRecord;
}

/** The longest grace a rotation may give the old key (contract: at most 7 days). */
export const maxGraceMs = 7 * 24 * 3600 * 1000;

export interface IssuedKey {
  /** The key itself: shown once, never stored. */
  readonly apiKey: string;
  readonly record: ApiKeyRecord;
}

/**
 * The operator's side of the key records: issue, list, revoke, update, rotate (scripts/keys.ts,
 * the local server, the pre-traffic hook). No request function holds it: they read through
 * ApiKeyLookup (./keyLookup.ts), which this extends (test/infra/bundleContents.test.ts).
 */
export class ApiKeyStore extends ApiKeyLookup {
  readonly #table: Table;
  readonly #now: Clock;

  constructor(db: DynamoDb, tableName: string, now: Clock = systemClock) {
    super(db, tableName);
    this.#table = new Table(db, tableName);
    this.#now = now;
  }

  /** Stores a new key (a fresh one unless `apiKey` is given) and answers it once. */
  async issue(label: string, deadline: number, options: IssueOptions = {}): Promise<IssuedKey> {
    const { expiresAt, rateLimit } = options;
    const key = options.apiKey ?? generateKey(options.stage ?? "local");
    const record: ApiKeyRecord = {
      keyId: newKeyId(),
      label,
      createdAt: new Date(this.#now()).toISOString(),
      expiresAt: expiresAt?.toISOString(),
      scopes: options.scopes ?? allScopes,
      rate: rateLimit?.rate,
      burst: rateLimit?.burst,
    };
    await this.#table.put(keys.apiKey(hashApiKey(key)), toFields(record), deadline);
    return { apiKey: key, record };
  }

  /** Every key record, oldest first. */
  async list(deadline: number): Promise<ApiKeyRecord[]> {
    const items = await this.#table.queryAll({ partition: partitions.apiKey }, deadline);
    return items.map(toRecord).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** Marks the key revoked; false when no key has that id. Revoking twice keeps the first time. */
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

  /** The record of the key with this id, if any. */
  async byId(keyId: string, deadline: number): Promise<ApiKeyRecord | undefined> {
    const item = await this.#itemOf(keyId, deadline);
    return item && toRecord(item);
  }

  /** Changes a key in place; the updated record, or undefined when no key has that id. */
  async update(
    keyId: string,
    changes: KeyChanges,
    deadline: number,
  ): Promise<ApiKeyRecord | undefined> {
    const keyHash = await this.#hashOf(keyId, deadline);
    if (keyHash === undefined) return undefined;
    const { scopes, rateLimit } = changes;
    const set = {
      ...(scopes && { scopes: scopeText(scopes) }),
      ...(rateLimit && { rate: rateLimit.rate, burst: rateLimit.burst }),
    };
    const entries = Object.entries(set);
    if (entries.length > 0) {
      // Every attribute through a name placeholder: a later one may be a reserved word.
      await this.#table.update(
        keys.apiKey(keyHash),
        {
          text: `SET ${entries.map(([name]) => `#${name} = :${name}`).join(", ")}`,
          names: Object.fromEntries(entries.map(([name]) => [`#${name}`, name])),
          values: Object.fromEntries(entries.map(([name, value]) => [`:${name}`, value])),
        },
        deadline,
      );
    }
    const item = await this.#table.get(keys.apiKey(keyHash), deadline);
    return item && toRecord(item);
  }

  /**
   * The new key copies every attribute of the old record (label, scopes, a rate limit, and
   * whatever a key gains later) but its own id, times and revocation; the old key's expiry moves
   * to the end of the grace (never later than it already was). The new key is stored first, so
   * a failure between the two writes leaves the old key as it was and one extra key to revoke.
   */
  async rotate(
    keyId: string,
    graceMs: number,
    deadline: number,
    stage: KeyStage = "local",
  ): Promise<Rotation | undefined> {
    const old = await this.#itemOf(keyId, deadline);
    const oldHash = old && text(old, "sk");
    // Stryker disable next-line ConditionalExpression,LogicalOperator: an item the query answers always has its sort key (the hash), so oldHash is undefined exactly when old is; both are tested for the type checker
    if (!old || oldHash === undefined) return undefined;
    const now = this.#now();
    const apiKey = generateKey(stage);
    const inherited = Object.fromEntries(
      Object.entries(old).filter(([name]) => !notInherited.has(name)),
    );
    const created = new Date(now).toISOString();
    const oldExpiry = text(old, "expiresAt");
    const newItem: Item = {
      ...inherited,
      ...toItem({
        keyId: newKeyId(),
        createdAt: created,
        expiresAt: oldExpiry,
        rotatedFrom: keyId,
        scopes: scopeText(storedScopes(text(old, "scopes"))),
      }),
    };
    await this.#table.put(keys.apiKey(hashApiKey(apiKey)), fieldsOf(newItem), deadline);
    const graceEnd = now + Math.min(Math.max(graceMs, 0), maxGraceMs);
    const oldEnd = oldExpiry === undefined ? Infinity : Date.parse(oldExpiry);
    const expiresAt = new Date(Math.min(oldEnd, graceEnd)).toISOString();
    await this.#table.update(
      keys.apiKey(oldHash),
      { text: "SET expiresAt = :at", values: { ":at": expiresAt } },
      deadline,
    );
    return {
      issued: { apiKey, record: toRecord(newItem) },
      previous: { ...toRecord(old), expiresAt },
    };
  }

  /** The stored hash (sort key) of the key with this id, reading pages only until it is found. */
  async #hashOf(keyId: string, deadline: number): Promise<string | undefined> {
    const item = await this.#itemOf(keyId, deadline);
    return item && text(item, "sk");
  }

  /** The stored item of the key with this id, reading pages only until it is found. */
  async #itemOf(keyId: string, deadline: number): Promise<Item | undefined> {
    const pages = this.#table.queryPages(
      {
        partition: partitions.apiKey,
        filter: { text: "keyId = :id", values: { ":id": keyId } },
      },
      deadline,
    );
    for await (const page of pages) {
      if (page[0]) return page[0];
    }
    return undefined;
  }
}

/** What a rotated key never takes from the key it replaces. */
const notInherited = new Set(["pk", "sk", "keyId", "createdAt", "expiresAt", "revokedAt"]);

function newKeyId(): string {
  return `key_${randomBytes(6).toString("hex")}`;
}

function toFields(record: ApiKeyRecord): Record<string, string | number | undefined> {
  return { ...record, scopes: scopeText(record.scopes) };
}

/** An item's attributes (strings and numbers: lib/table/item.ts) as fields to put. */
function fieldsOf(item: Item): Record<string, string | number> {
  const fields: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(item)) {
    if (value.S !== undefined) fields[name] = value.S;
    else if (value.N !== undefined) fields[name] = Number(value.N);
  }
  return fields;
}
