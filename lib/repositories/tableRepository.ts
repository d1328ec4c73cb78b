/**
 * What every repository stands on: the stage's table (lib/table/table.ts) and the container's
 * clock. Repositories add only their item type's mapping and rules.
 */
import type { Clock } from "../clock.ts";
import { systemClock } from "../clock.ts";
import type { DynamoDb } from "../dynamodb.ts";
import { Table } from "../table/table.ts";

export abstract class TableRepository {
  protected readonly table: Table;
  protected readonly now: Clock;

  constructor(db: DynamoDb, tableName: string, now: Clock = systemClock) {
    this.table = new Table(db, tableName);
    this.now = now;
  }
}
