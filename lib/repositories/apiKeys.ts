/**
 * API key records (keys: lib/table/schema.ts). Only the SHA-256 of a key is stored, so a leaked
 * table or backup yields no usable key. Keys carry 256 random bits, so a fast hash is as safe as
 * a slow one here: there is nothing to brute-force. New keys have the contract's format
 * (lib/keyFormat.ts) and their scopes (lib/scopes.ts) stored with them.
 */
import { randomBytes } from "node:crypto";
import type { Clock } from "../clock.ts";
import { systemClock } from "../clock.ts";
import type { DynamoDb, Item } from "../dynamodb.ts";
import type { KeyStage } from "../keyFormat.ts";
import { generateKey } from "../keyFormat.ts";
import type { Scope } from "../scopes.ts";
import { allScopes, scopeText, storedScopes } from "../scopes.ts";
import { isConditionFailure } from "../table/errors.ts";
import { text, toItem } from "../table/item.ts";
import { keys, partitions, ttlAttribute } from "../table/schema.ts";
import type { Write } from "../table/table.ts";
import { Table } from "../table/table.ts";
import type { KeyEventKind } from "./keyEvents.ts";
import { KeyEventStore } from "./keyEvents.ts";

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
  /**
   * When the table may delete the key's record (its TTL attribute): for keys made only to be
   * used and revoked at once, which would otherwise pile up. Its events stay. Default: never.
   */
  readonly removeAt?: Date | undefined;
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

/** Who a store makes its changes as when its maker names no one (tests, benches, seeds). */
export const unattributed = "unattributed";

/**
 * Why a change to a key (rotate, update) was refused: the key can no longer be used, so nothing
 * can replace or change it.
 */
export interface KeyRefused {
  readonly refused: "revoked" | "expired";
  readonly record: ApiKeyRecord;
}

/**
 * The operator's side of the key records: issue, list, revoke, update, rotate (scripts/keys.ts,
 * the local server, the pre-traffic hook). No request function holds it: they read through
 * ApiKeyLookup (./keyLookup.ts), which this extends (test/infra/bundleContents.test.ts).
 */
export class ApiKeyStore extends ApiKeyLookup {
  readonly #db: DynamoDb;
  readonly #tableName: string;
  readonly #table: Table;
  readonly #events: KeyEventStore;
  readonly #now: Clock;
  readonly #who: string;

  /**
   * `who`: the operator, the local server or the deploy hook, named in the audit event every
   * change is written with (lib/repositories/keyEvents.ts).
   */
  constructor(db: DynamoDb, tableName: string, now: Clock = systemClock, who = unattributed) {
    super(db, tableName);
    this.#db = db;
    this.#tableName = tableName;
    this.#table = new Table(db, tableName);
    this.#events = new KeyEventStore(db, tableName, now);
    this.#now = now;
    this.#who = who;
  }

  /** The same store, making its changes as `who`. */
  actingAs(who: string): ApiKeyStore {
    return new ApiKeyStore(this.#db, this.#tableName, this.#now, who);
  }

  /**
   * Stores a new key (a fresh one unless `apiKey` is given) with its "create" event, and answers
   * it once. A key already stored under that hash is never overwritten.
   */
  async issue(label: string, deadline: number, options: IssueOptions = {}): Promise<IssuedKey> {
    const { expiresAt, rateLimit } = options;
    const key = options.apiKey ?? generateKey(options.stage ?? "local");
    const keyId = newKeyId();
    const record: ApiKeyRecord = {
      keyId,
      label,
      createdAt: new Date(this.#now()).toISOString(),
      createdBy: this.#who,
      expiresAt: expiresAt?.toISOString(),
      scopes: options.scopes ?? allScopes,
      rate: rateLimit?.rate,
      burst: rateLimit?.burst,
      bucket: keyId,
    };
    await this.#changeWithEvent(
      "create",
      keyId,
      `label ${label}, scopes ${scopeText(record.scopes)}`,
      [
        {
          kind: "put",
          key: keys.apiKey(hashApiKey(key)),
          // No bucket stored: a key's own id is its bucket until a rotation names another.
          fields: {
            ...record,
            bucket: undefined,
            scopes: scopeText(record.scopes),
            [ttlAttribute]: options.removeAt && Math.floor(options.removeAt.getTime() / 1000),
          },
          condition: { text: "attribute_not_exists(pk)" },
        },
      ],
      deadline,
    );
    return { apiKey: key, record };
  }

  /** Every key record, oldest first. */
  async list(deadline: number): Promise<ApiKeyRecord[]> {
    const items = await this.#table.queryAll({ partition: partitions.apiKey }, deadline);
    return items.map(toRecord).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /**
   * Marks the key revoked, with its "revoke" event; false when no key has that id or it was
   * revoked already (it keeps its first time and gains no second event).
   */
  async revoke(keyId: string, deadline: number): Promise<boolean> {
    const keyHash = await this.#hashOf(keyId, deadline);
    if (keyHash === undefined) return false;
    return this.#revokeAt(keyHash, keyId, undefined, deadline);
  }

  /**
   * Revokes a key this store's `who` issued, addressed by the key itself (no read: the deploy
   * hook may not read or list keys). False when it is not one of theirs or is revoked already.
   */
  async revokeOwn(
    key: { readonly apiKey: string; readonly keyId: string },
    deadline: number,
  ): Promise<boolean> {
    return this.#revokeAt(hashApiKey(key.apiKey), key.keyId, this.#who, deadline);
  }

  async #revokeAt(
    keyHash: string,
    keyId: string,
    createdBy: string | undefined,
    deadline: number,
  ): Promise<boolean> {
    const mine = createdBy === undefined ? "" : " AND createdBy = :by";
    try {
      await this.#changeWithEvent(
        "revoke",
        keyId,
        undefined,
        [
          {
            kind: "update",
            key: keys.apiKey(keyHash),
            update: {
              text: "SET revokedAt = :now",
              values: { ":now": new Date(this.#now()).toISOString() },
            },
            condition: {
              text: `keyId = :id AND attribute_not_exists(revokedAt)${mine}`,
              values: { ":id": keyId, ":by": createdBy },
            },
          },
        ],
        deadline,
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** The record of the key with this id, if any. */
  async byId(keyId: string, deadline: number): Promise<ApiKeyRecord | undefined> {
    const item = await this.#itemOf(keyId, deadline);
    return item && toRecord(item);
  }

  /**
   * Changes a key in place, with its "update" event; the updated record, or undefined when no key
   * has that id.
   */
  async update(
    keyId: string,
    changes: KeyChanges,
    deadline: number,
  ): Promise<ApiKeyRecord | KeyRefused | undefined> {
    const keyHash = await this.#hashOf(keyId, deadline);
    if (keyHash === undefined) return undefined;
    const { scopes, rateLimit } = changes;
    const set = {
      ...(scopes && { scopes: scopeText(scopes) }),
      ...(rateLimit && { rate: rateLimit.rate, burst: rateLimit.burst }),
    };
    const entries = Object.entries(set);
    if (entries.length > 0) {
      const detail = [
        ...(scopes ? [`scopes ${scopeText(scopes)}`] : []),
        ...(rateLimit ? [`rate limit ${rateLimit.rate}, burst ${rateLimit.burst}`] : []),
      ].join("; ");
      // Every attribute through a name placeholder: a later one may be a reserved word.
      try {
        await this.#changeWithEvent(
          "update",
          keyId,
          detail,
          [
            {
              kind: "update",
              key: keys.apiKey(keyHash),
              update: {
                text: `SET ${entries.map(([name]) => `#${name} = :${name}`).join(", ")}`,
                names: Object.fromEntries(entries.map(([name]) => [`#${name}`, name])),
                values: Object.fromEntries(entries.map(([name, value]) => [`:${name}`, value])),
              },
              condition: inUse(keyId, new Date(this.#now()).toISOString()),
            },
          ],
          deadline,
        );
      } catch (error) {
        return this.#refusal(error, keyId, deadline);
      }
    }
    const item = await this.#table.get(keys.apiKey(keyHash), deadline);
    return item && toRecord(item);
  }

  /**
   * The new key copies every attribute of the old record (label, scopes, a rate limit, its rate
   * limit bucket, and whatever a key gains later) but its own id, times and revocation; the old
   * key's expiry moves to the end of the grace (never later than it already was). Both writes and
   * the "rotate" event are made together, and only while the old key is neither revoked nor
   * expired (a condition on the write, so a revoke between the read and the write is seen).
   * The pair shares the old key's bucket, so the grace window does not double its rate limit.
   */
  async rotate(
    keyId: string,
    graceMs: number,
    deadline: number,
    stage: KeyStage = "local",
  ): Promise<Rotation | KeyRefused | undefined> {
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
    const newKeyIdValue = newKeyId();
    const newItem: Item = {
      ...inherited,
      ...toItem({
        keyId: newKeyIdValue,
        createdAt: created,
        createdBy: this.#who,
        expiresAt: oldExpiry,
        rotatedFrom: keyId,
        scopes: scopeText(storedScopes(text(old, "scopes"))),
        bucket: text(old, "bucket") ?? keyId,
      }),
    };
    const graceEnd = now + Math.min(Math.max(graceMs, 0), maxGraceMs);
    const oldEnd = oldExpiry === undefined ? Infinity : Date.parse(oldExpiry);
    const expiresAt = new Date(Math.min(oldEnd, graceEnd)).toISOString();
    const newKey = keys.apiKey(hashApiKey(apiKey));
    try {
      await this.#changeWithEvent(
        "rotate",
        keyId,
        `new key ${newKeyIdValue}, old one expires ${expiresAt}`,
        [
          {
            kind: "put",
            key: newKey,
            fields: fieldsOf(newItem),
            condition: { text: "attribute_not_exists(pk)" },
            undo: { kind: "delete", key: newKey },
          },
          {
            kind: "update",
            key: keys.apiKey(oldHash),
            update: { text: "SET expiresAt = :at", values: { ":at": expiresAt } },
            condition: inUse(keyId, created),
          },
        ],
        deadline,
      );
    } catch (error) {
      return this.#refusal(error, keyId, deadline);
    }
    return {
      issued: { apiKey, record: toRecord(newItem) },
      previous: { ...toRecord(old), expiresAt },
    };
  }

  /**
   * Why a change made under `inUse` failed its condition: the key is revoked or expired (or gone:
   * undefined). Any other error is thrown on.
   */
  async #refusal(error: unknown, keyId: string, deadline: number): Promise<KeyRefused | undefined> {
    if (!isConditionFailure(error)) throw error;
    const record = await this.byId(keyId, deadline);
    // Stryker disable next-line ConditionalExpression: a key that vanished between the read and the write is as gone as one never there
    if (!record) return undefined;
    return { refused: record.revokedAt === undefined ? "expired" : "revoked", record };
  }

  /** Makes `changes` together with their event, as this store's `who`. */
  async #changeWithEvent(
    event: KeyEventKind,
    keyId: string,
    detail: string | undefined,
    changes: readonly Write[],
    deadline: number,
  ): Promise<void> {
    await this.#events.recordWith({ event, keyId, who: this.#who, detail }, changes, deadline);
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

/**
 * The condition a change to a key is made under: it is still this key, neither revoked nor
 * expired at `now`. ISO 8601 times in one format (toISOString) compare as strings in time order.
 */
function inUse(keyId: string, now: string): { text: string; values: Record<string, string> } {
  return {
    text: "keyId = :id AND attribute_not_exists(revokedAt) AND (attribute_not_exists(expiresAt) OR expiresAt > :now)",
    values: { ":id": keyId, ":now": now },
  };
}

/** What a rotated key never takes from the key it replaces. */
const notInherited = new Set([
  "pk",
  "sk",
  "keyId",
  "createdAt",
  "createdBy",
  "expiresAt",
  "revokedAt",
]);

function newKeyId(): string {
  return `key_${randomBytes(6).toString("hex")}`;
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
