/**
 * The embedded DynamoDB-compatible server used by `npm start`, `npm run invoke`, the keys command
 * and the tests: in memory, or persisted under a folder. PETSTORE_STORE picks it: dynalite (the
 * default, in this process, no dependencies beyond npm) or dynamodb-local (AWS's DynamoDB Local in
 * a JVM, see dynamodbLocal.ts). The table is created from infra/template.yaml's definition, so
 * local and deployed tables have the same keys.
 */
import type { Server } from "node:http";
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { DynamoDb } from "../lib/dynamodb.ts";
import { DynamoDbError } from "../lib/table/errors.ts";
import { startDynamodbLocal } from "./dynamodbLocal.ts";
import { SetupError } from "./setupError.ts";
import { assertStoreFree } from "./storeLock.ts";
import { tableOf } from "./template.ts";

type DynaliteFactory = (options: { path?: string; createTableMs?: number }) => Server;
const dynalite = createRequire(import.meta.url)("dynalite") as DynaliteFactory;

export const localRegion = "local";
export const localCredentials = { AWS_ACCESS_KEY_ID: "local", AWS_SECRET_ACCESS_KEY: "local" };

export interface EmbeddedDynamo {
  readonly endpoint: string;
  close(): Promise<void>;
}

export const storeEngines = ["dynalite", "dynamodb-local"] as const;
export type StoreEngine = (typeof storeEngines)[number];

/** The engine PETSTORE_STORE names (dynalite when unset or empty). */
export function storeEngineOf(env: NodeJS.ProcessEnv = process.env): StoreEngine {
  const value = env.PETSTORE_STORE || "dynalite";
  const engine = storeEngines.find((name) => name === value);
  if (!engine) {
    throw new SetupError(
      `PETSTORE_STORE must be ${storeEngines.join(" or ")}, not ${JSON.stringify(value)}`,
    );
  }
  return engine;
}

/** Where an engine keeps its store when DATA_DIR does not say (npm start, npm run keys). */
export const defaultDataDir = (engine: StoreEngine): string =>
  engine === "dynamodb-local" ? ".data/dynamodb-local" : ".data/dynamodb";

/**
 * An embedded store, in memory or persisted in `dataDir`. A dynalite folder another process
 * holds is refused first (StoreLockedError), before dynalite fails on it outside any handler.
 */
export async function startEmbeddedDynamo(
  options: { dataDir?: string; engine?: StoreEngine } = {},
): Promise<EmbeddedDynamo> {
  const engine = options.engine ?? storeEngineOf();
  // The lock check opens dynalite's LevelDB folder; DynamoDB Local keeps a SQLite file there.
  if (options.dataDir && engine === "dynalite") await assertStoreFree(options.dataDir);
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  if (engine === "dynamodb-local") {
    const dynamo = await startDynamodbLocal(options);
    return warmUp(dynamo);
  }
  const server = dynalite({ createTableMs: 0, ...(options.dataDir && { path: options.dataDir }) });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}

/**
 * DynamoDB Local's first request loads its request path and SQLite, which takes seconds on a busy
 * machine: pay that here, not out of the first caller's deadline (the server's 3 s store check).
 */
async function warmUp(dynamo: EmbeddedDynamo): Promise<EmbeddedDynamo> {
  const db = localClient(dynamo.endpoint);
  try {
    await db.call("ListTables", { Limit: 1 }, Date.now() + 60_000);
    return dynamo;
  } catch (error) {
    await dynamo.close();
    throw error;
  } finally {
    db.close();
  }
}

export function localClient(endpoint: string): DynamoDb {
  return new DynamoDb({
    region: localRegion,
    endpoint,
    credentials: () =>
      Promise.resolve({
        accessKeyId: localCredentials.AWS_ACCESS_KEY_ID,
        secretAccessKey: localCredentials.AWS_SECRET_ACCESS_KEY,
      }),
  });
}

/** Creates the table as the template declares it, unless it exists already (persisted data). */
export async function ensureTable(db: DynamoDb, tableName: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  try {
    await db.call("DescribeTable", { TableName: tableName }, deadline);
    return;
  } catch (error) {
    if (!(error instanceof DynamoDbError && error.type === "ResourceNotFoundException"))
      throw error;
  }
  await db.call(
    "CreateTable",
    { TableName: tableName, BillingMode: "PAY_PER_REQUEST", ...tableOf() },
    deadline,
  );
  // A new table answers ResourceNotFoundException until it is ACTIVE, as in DynamoDB itself.
  for (;;) {
    const { Table }: { Table?: { TableStatus?: string } } = await db.call(
      "DescribeTable",
      { TableName: tableName },
      deadline,
    );
    if (Table?.TableStatus === "ACTIVE") return;
    if (Date.now() > deadline) throw new Error(`table ${tableName} did not become ACTIVE`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
