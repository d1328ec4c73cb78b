/** An in-memory embedded DynamoDB (dynalite) with the template's table, for one test file. */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import type { DynamoDb } from "../../lib/dynamodb.ts";
import type { EmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import { ensureTable, localClient, startEmbeddedDynamo } from "../../local/embeddedDynamo.ts";

export interface TestStore {
  readonly db: DynamoDb;
  readonly endpoint: string;
  /** A fresh table per call, so tests in one file do not see each other's rows. */
  newTable(): Promise<string>;
}

export function useEmbeddedDynamo(): TestStore {
  let dynamo: EmbeddedDynamo | undefined;
  let db: DynamoDb | undefined;
  const store = {
    get db(): DynamoDb {
      if (!db) throw new Error("the embedded store is not started (beforeAll)");
      return db;
    },
    get endpoint(): string {
      if (!dynamo) throw new Error("the embedded store is not started (beforeAll)");
      return dynamo.endpoint;
    },
    async newTable(): Promise<string> {
      const name = `test-${randomUUID()}`;
      await ensureTable(store.db, name);
      return name;
    },
  };
  beforeAll(async () => {
    dynamo = await startEmbeddedDynamo();
    db = localClient(dynamo.endpoint);
  });
  afterAll(async () => {
    db?.close();
    await dynamo?.close();
  });
  return store;
}

export const soon = (ms = 10_000): number => Date.now() + ms;
