/**
 * An in-memory embedded DynamoDB with the template's table, for one test file: dynalite, or AWS's
 * DynamoDB Local when PETSTORE_STORE=dynamodb-local (`.ci/run` runs the store, HTTP, idempotency
 * and reliability suites on both). dynalite starts in the file's own process in milliseconds;
 * DynamoDB Local is a JVM, started once per run (test/support/globalSetup.ts) and shared: every
 * file keeps to its own tables (`newTable()`, a fresh name each call).
 */
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, inject } from "vitest";
import type { Clock } from "../../lib/clock.ts";
import { DynamoDb } from "../../lib/dynamodb.ts";
import type { EmbeddedDynamo, StoreEngine } from "../../local/embeddedDynamo.ts";
import {
  ensureTable,
  localClient,
  startEmbeddedDynamo,
  storeEngineOf,
} from "../../local/embeddedDynamo.ts";
import { findJava } from "../../local/dynamodbLocal.ts";
import type { FaultProxy } from "./faultProxy.ts";
import type { MissingTool } from "./missingTool.ts";
import { startFaultProxy } from "./faultProxy.ts";

/**
 * The emulator this run uses. Where dynalite and DynamoDB Local answer differently, a test
 * branches on it and says which of the two matches the DynamoDB API reference.
 */
export const storeEngine: StoreEngine = storeEngineOf();

/** Java, when it is absent: DynamoDB Local runs on it (dynalite needs nothing). */
export const javaMissing: MissingTool | undefined = findJava()
  ? undefined
  : {
      tool: "Java 17 (DynamoDB Local runs on it)",
      get: "apt-get install -y openjdk-17-jre-headless",
    };

export interface TestStore {
  readonly db: DynamoDb;
  readonly endpoint: string;
  /** A fresh table per call, so tests in one file do not see each other's rows. */
  newTable(): Promise<string>;
}

/**
 * The run's store, or `engine` for a suite that needs that one whatever the run's (transactions
 * exist on DynamoDB Local alone): it starts its own unless it is the run's shared one. A suite on
 * DynamoDB Local skips where Java is absent (skipWithout(javaMissing)); nothing is started then.
 */
export function useEmbeddedDynamo(options: { readonly engine?: StoreEngine } = {}): TestStore {
  const engine = options.engine ?? storeEngine;
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
    if (engine === "dynamodb-local" && javaMissing) return;
    const shared = engine === storeEngine ? inject("sharedStoreEndpoint") : undefined;
    // The run's shared store is the run's to close (globalSetup), not this file's.
    dynamo = shared
      ? { endpoint: shared, close: () => Promise.resolve() }
      : await startEmbeddedDynamo({ engine });
    db = localClient(dynamo.endpoint);
  });
  afterAll(async () => {
    db?.close();
    await dynamo?.close();
  });
  return store;
}

export const soon = (ms = 10_000): number => Date.now() + ms;

export interface FaultyStore extends TestStore {
  /** The proxy between `client` and the store: inject faults here. */
  readonly proxy: FaultProxy;
  /** A client that talks to the store through the proxy, with short backoff for fast tests. */
  readonly client: DynamoDb;
}

/** The embedded store (the run's, or `engine` as for useEmbeddedDynamo) behind a fault-injecting proxy, for one test file. */
export function useFaultyStore(
  options: {
    engine?: StoreEngine;
    attemptTimeoutMs?: number;
    maxDelayMs?: number;
    now?: Clock;
  } = {},
): FaultyStore {
  const { engine, ...clientOptions } = options;
  const store = useEmbeddedDynamo({ ...(engine && { engine }) });
  let proxy: FaultProxy | undefined;
  let client: DynamoDb | undefined;
  beforeAll(async () => {
    if (engine === "dynamodb-local" && javaMissing) return;
    proxy = await startFaultProxy(store.endpoint);
    client = new DynamoDb({
      region: "local",
      endpoint: proxy.endpoint,
      credentials: () => Promise.resolve({ accessKeyId: "local", secretAccessKey: "local" }),
      baseDelayMs: 5,
      ...clientOptions,
    });
  });
  // A rule a failed test did not use up would fault the next test's calls: each test starts clean.
  afterEach(() => {
    proxy?.clear();
  });
  afterAll(async () => {
    client?.close();
    await proxy?.close();
  });
  return {
    get db(): DynamoDb {
      return store.db;
    },
    get endpoint(): string {
      return store.endpoint;
    },
    newTable: () => store.newTable(),
    get proxy(): FaultProxy {
      if (!proxy) throw new Error("the fault proxy is not started (beforeAll)");
      return proxy;
    },
    get client(): DynamoDb {
      if (!client) throw new Error("the fault proxy is not started (beforeAll)");
      return client;
    },
  };
}
