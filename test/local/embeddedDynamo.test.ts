/**
 * The two embedded stores, and the places where they disagree. The service uses none of these
 * features (it waits for ACTIVE tables, reads no item from a failed condition, runs no
 * transaction); each test pins down both emulators' answers, says which matches the DynamoDB API
 * reference, and so warns anyone about to rely on one of them.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  PutItemCommand,
  TransactWriteItemsCommand,
} from "@aws-sdk/client-dynamodb";
import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmbeddedDynamo, StoreEngine } from "../../local/embeddedDynamo.ts";
import { startEmbeddedDynamo, storeEngineOf } from "../../local/embeddedDynamo.ts";
import { javaMissing } from "../support/dynamo.ts";
import { skipWithout } from "../support/missingTool.ts";

describe("PETSTORE_STORE picks the embedded store", () => {
  it("is dynalite when unset or empty", () => {
    expect(storeEngineOf({})).toBe("dynalite");
    expect(storeEngineOf({ PETSTORE_STORE: "" })).toBe("dynalite");
  });

  it("is DynamoDB Local when it says dynamodb-local", () => {
    expect(storeEngineOf({ PETSTORE_STORE: "dynamodb-local" })).toBe("dynamodb-local");
  });

  it("refuses any other value, naming the choices", () => {
    expect(() => storeEngineOf({ PETSTORE_STORE: "dynamodb" })).toThrow(
      'PETSTORE_STORE must be dynalite or dynamodb-local, not "dynamodb"',
    );
  });
});

describe("where dynalite and DynamoDB Local disagree", () => {
  skipWithout(javaMissing);
  const stores = new Map<StoreEngine, { dynamo: EmbeddedDynamo; client: DynamoDBClient }>();
  beforeAll(async () => {
    if (javaMissing) return;
    for (const engine of ["dynalite", "dynamodb-local"] as const) {
      const dynamo = await startEmbeddedDynamo({ engine });
      const client = new DynamoDBClient({
        endpoint: dynamo.endpoint,
        region: "local",
        credentials: { accessKeyId: "local", secretAccessKey: "local" },
        maxAttempts: 1,
      });
      stores.set(engine, { dynamo, client });
    }
  });
  afterAll(async () => {
    for (const { dynamo, client } of stores.values()) {
      client.destroy();
      await dynamo.close();
    }
  });

  let tables = 0;
  /** A fresh table holding one item { pk: "a", v: 1 }, once it is ACTIVE. */
  async function tableWithItem(engine: StoreEngine): Promise<{ name: string; status?: string }> {
    const client = clientOf(engine);
    const name = `emulators-${engine}-${++tables}`;
    const created = await client.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: "PAY_PER_REQUEST",
        AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
        KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
      }),
    );
    await waitActive(client, name);
    await client.send(new PutItemCommand({ TableName: name, Item: item }));
    return {
      name,
      ...(created.TableDescription?.TableStatus && {
        status: created.TableDescription.TableStatus,
      }),
    };
  }
  const clientOf = (engine: StoreEngine): DynamoDBClient => {
    const store = stores.get(engine);
    if (!store) throw new Error(`${engine} is not started (beforeAll)`);
    return store.client;
  };
  const item: Record<string, AttributeValue> = { pk: { S: "a" }, v: { N: "1" } };

  // API reference, CreateTable: "Upon receiving a CreateTable request, DynamoDB immediately
  // returns a response with a TableStatus of CREATING." (ensureTable waits for ACTIVE either way.)
  it("CreateTable answers CREATING: dynalite matches the API reference; DynamoDB Local says ACTIVE at once", async () => {
    expect((await tableWithItem("dynalite")).status).toBe("CREATING");
    expect((await tableWithItem("dynamodb-local")).status).toBe("ACTIVE");
  });

  // API reference, PutItem: with ReturnValuesOnConditionCheckFailure ALL_OLD, a failed condition's
  // ConditionalCheckFailedException carries the item as it was ("Item which caused the
  // ConditionalCheckFailedException").
  it("a failed condition returns the old item on request: DynamoDB Local matches the API reference; dynalite leaves it out", async () => {
    const failedItem = async (engine: StoreEngine): Promise<unknown> => {
      const { name } = await tableWithItem(engine);
      const put = new PutItemCommand({
        TableName: name,
        Item: { pk: { S: "a" }, v: { N: "2" } },
        ConditionExpression: "attribute_not_exists(pk)",
        ReturnValuesOnConditionCheckFailure: "ALL_OLD",
      });
      const error = await clientOf(engine)
        .send(put)
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ name: "ConditionalCheckFailedException" });
      return (error as { Item?: unknown }).Item;
    };
    expect(await failedItem("dynamodb-local")).toEqual(item);
    expect(await failedItem("dynalite")).toBeUndefined();
  });

  // API reference, TransactWriteItems: an all-or-nothing group of up to 100 writes; a failed
  // condition cancels all of them with TransactionCanceledException and per-item reasons.
  it("TransactWriteItems: DynamoDB Local matches the API reference; dynalite does not know it", async () => {
    const transact = async (engine: StoreEngine): Promise<unknown> => {
      const { name } = await tableWithItem(engine);
      const write = new TransactWriteItemsCommand({
        TransactItems: [
          { Put: { TableName: name, Item: { pk: { S: "b" } } } },
          {
            ConditionCheck: {
              TableName: name,
              Key: { pk: { S: "a" } },
              ConditionExpression: "v = :nine",
              ExpressionAttributeValues: { ":nine": { N: "9" } },
            },
          },
        ],
      });
      return clientOf(engine)
        .send(write)
        .catch((e: unknown) => e);
    };
    expect(await transact("dynamodb-local")).toMatchObject({
      name: "TransactionCanceledException",
      CancellationReasons: [{ Code: "None" }, { Code: "ConditionalCheckFailed" }],
    });
    expect(await transact("dynalite")).toMatchObject({ name: "UnknownOperationException" });
  });
});

async function waitActive(client: DynamoDBClient, name: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
    if (Table?.TableStatus === "ACTIVE") return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`table ${name} did not become ACTIVE`);
}
