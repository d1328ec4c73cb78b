/**
 * The API keys' audit trail (contract: "Keys: audit"): every create, rotate, update and revoke,
 * with who made it (the operator's AWS identity for a stage, the OS user locally) and when, kept
 * in the stage's own table (keys: lib/table/schema.ts). Written and read by the operator's
 * command only (scripts/keys.ts); no function loads this module.
 */
import { randomBytes } from "node:crypto";
import type { Clock } from "../clock.ts";
import { systemClock } from "../clock.ts";
import type { DynamoDb, Item } from "../dynamodb.ts";
import { text } from "../table/item.ts";
import { keys, partitions } from "../table/schema.ts";
import { Table } from "../table/table.ts";

export type KeyEventKind = "create" | "rotate" | "update" | "revoke";

export interface KeyEvent {
  readonly event: KeyEventKind;
  readonly keyId: string;
  /** Who made the change: an AWS principal's ARN, or `local:<OS user>`. */
  readonly who: string;
  /** When, ISO 8601. */
  readonly at: string;
  /** What changed, for a person: "scopes categories:read", "new key key_…, grace 24h", … */
  readonly detail?: string | undefined;
}

const kinds: readonly KeyEventKind[] = ["create", "rotate", "update", "revoke"];

function isKind(value: string | undefined): value is KeyEventKind {
  return (kinds as readonly (string | undefined)[]).includes(value);
}

export class KeyEventStore {
  readonly #table: Table;
  readonly #now: Clock;

  constructor(db: DynamoDb, tableName: string, now: Clock = systemClock) {
    this.#table = new Table(db, tableName);
    this.#now = now;
  }

  async record(event: Omit<KeyEvent, "at">, deadline: number): Promise<KeyEvent> {
    const stored: KeyEvent = { ...event, at: new Date(this.#now()).toISOString() };
    const unique = randomBytes(4).toString("hex");
    // An event is never overwritten, even by one of the same key in the same millisecond.
    // Stryker disable next-line ObjectLiteral: only a repeat of 32 random bits (unique) for one key in one millisecond meets the condition; no test can make one
    const neverOverwrite = { text: "attribute_not_exists(pk)" };
    await this.#table.put(
      keys.keyEvent(stored.at, stored.keyId, unique),
      { ...stored },
      deadline,
      neverOverwrite,
    );
    return stored;
  }

  /** Every event, oldest first; only those naming one key when `keyId` is given. */
  async list(keyId: string | undefined, deadline: number): Promise<KeyEvent[]> {
    const items = await this.#table.queryAll(
      {
        partition: partitions.keyEvent,
        consistent: true,
        ...(keyId !== undefined && {
          // A rotation is recorded under the old key and names the new one in its detail.
          filter: { text: "keyId = :id OR contains(detail, :id)", values: { ":id": keyId } },
        }),
      },
      deadline,
    );
    return items.map(toEvent);
  }
}

function toEvent(item: Item): KeyEvent {
  const event = text(item, "event");
  return {
    event: isKind(event) ? event : "update",
    keyId: text(item, "keyId") ?? "",
    who: text(item, "who") ?? "",
    at: text(item, "at") ?? "",
    detail: text(item, "detail"),
  };
}
