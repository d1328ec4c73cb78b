/**
 * The API keys' audit trail (contract: "Keys: audit"): every create, rotate, update and revoke,
 * with who made it (the operator's AWS identity for a stage, the OS user locally) and when, kept
 * in the stage's own table (keys: lib/table/schema.ts). A key's change and its event are written
 * together (ApiKeyStore, through `recordWith`): one transaction where the store has them
 * (DynamoDB, DynamoDB Local); where it has not (dynalite 4.0.0), the event first, marked
 * intended, then the change, then the event again without the mark, so that no stop at any point leaves a change
 * without its event (an event still marked intended says the change may not have been made).
 * Read by the operator's command (scripts/keys.ts `history`); no request function loads this module.
 */
import { randomBytes } from "node:crypto";
import type { Clock } from "../clock.ts";
import { systemClock } from "../clock.ts";
import type { DynamoDb, Item } from "../dynamodb.ts";
import { isConditionFailure } from "../table/errors.ts";
import { text } from "../table/item.ts";
import { keys, partitions } from "../table/schema.ts";
import type { Write } from "../table/table.ts";
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
  /**
   * Written before its change where the store has no transactions, and the change not confirmed:
   * the change may not have been made.
   */
  readonly intended?: true | undefined;
}

/** The stored value of an event's intended mark (KeyEvent.intended), written and read here. */
const intendedMark = "yes";

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

  /** An event alone, with no change of its own to make. */
  async record(event: Omit<KeyEvent, "at" | "intended">, deadline: number): Promise<KeyEvent> {
    return this.recordWith(event, [], deadline);
  }

  /**
   * Makes `changes` and records `event` with them: all or nothing in one transaction, or, where
   * the store has none, the event (marked intended) first, then each change in order, then the
   * mark removed. There, a change whose condition does not hold takes back the changes made
   * before it (their `undo`) and the event, and is thrown as the transaction's would be.
   */
  async recordWith(
    event: Omit<KeyEvent, "at" | "intended">,
    changes: readonly Write[],
    deadline: number,
  ): Promise<KeyEvent> {
    const stored = { ...event, at: new Date(this.#now()).toISOString() };
    const key = keys.keyEvent(stored.at, stored.keyId, randomBytes(4).toString("hex"));
    // An event is never overwritten, even by one of the same key in the same millisecond.
    // Stryker disable next-line ObjectLiteral: only a repeat of 32 random bits (unique) for one key in one millisecond meets the condition; no test can make one
    const neverOverwrite = { text: "attribute_not_exists(pk)" };
    const put: Write = { kind: "put", key, fields: stored, condition: neverOverwrite };
    if (await this.#table.transactWrite([...changes, put], deadline)) return stored;
    await this.#table.put(key, { ...stored, intended: intendedMark }, deadline, neverOverwrite);
    let made = 0;
    try {
      for (const change of changes) {
        await this.#table.write(change, deadline);
        made++;
      }
    } catch (error) {
      if (isConditionFailure(error)) {
        for (const change of changes.slice(0, made).reverse()) {
          if (change.undo) await this.#table.write(change.undo, deadline);
        }
        await this.#table.delete(key, deadline);
      }
      throw error;
    }
    // The event again, now without the mark: a put, the one write a writer of events already
    // has (the deploy hook's role grants no update on events).
    await this.#table.put(key, stored, deadline);
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
    ...(text(item, "intended") === intendedMark && { intended: true }),
  };
}
