/**
 * The local store's keys, shared by `npm start` and `npm run keys`: the key the server prints
 * (kept in the data folder, so it survives a restart) and how the keys command finds the store
 * a running server holds (its endpoint, written in the same folder). Each data folder has its
 * own files, so two servers over two folders never see each other's.
 */
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import { relative, resolve } from "node:path";
import { ApiKeyStore, hashApiKey } from "../lib/repositories/apiKeys.ts";
import { KeyEventStore } from "../lib/repositories/keyEvents.ts";
import type { DynamoDb } from "../lib/dynamodb.ts";
import type { StoreEngine } from "./embeddedDynamo.ts";
import { ensureTable, localClient, startEmbeddedDynamo } from "./embeddedDynamo.ts";
import { assertStoreReachable } from "./storeCheck.ts";

export const localTableName = "petstore-local";
export const localKeyLabel = "local-server";

/** While a server runs it holds the folder's lock; this file names its store's endpoint. */
export function endpointFile(dataDir: string): string {
  return resolve(dataDir, "server-endpoint");
}

/** The key `npm start` prints, readable by its owner only. */
export function localKeyFile(dataDir: string): string {
  return resolve(dataDir, "local-api-key");
}

export function writeEndpointFile(dataDir: string, endpoint: string): void {
  writeFileSync(endpointFile(dataDir), endpoint);
}

export function removeEndpointFile(dataDir: string): void {
  rmSync(endpointFile(dataDir), { force: true });
}

/** The local operator, `local:<OS user>`; undefined when the OS names no user. */
export function localOperator(): string | undefined {
  let name: string | undefined;
  try {
    name = userInfo().username;
  } catch {
    name = process.env.USER ?? process.env.USERNAME;
  }
  return name ? `local:${name}` : undefined;
}

export interface LocalKey {
  readonly apiKey: string;
  /** How the key came about, for the start banner. */
  readonly origin: "PETSTORE_API_KEY" | "kept" | "new" | "per-run";
}

/**
 * PETSTORE_API_KEY when given. Otherwise the key kept in the data folder while it is still
 * valid, else a new one (kept for next time). Without a data folder every start has a new key,
 * and the previous start's key is revoked so that keys do not pile up in a shared store. Each
 * of these changes is in the key history (`npm run keys -- history`), made by the OS user.
 */
export async function prepareLocalKey(
  store: ApiKeyStore,
  options: { dataDir?: string | undefined; fixedKey?: string | undefined },
): Promise<LocalKey> {
  const deadline = Date.now() + 10_000;
  const keys = store.actingAs(`${localOperator() ?? "local:unknown"} (npm start)`);
  if (options.fixedKey) {
    if (!(await keys.find(hashApiKey(options.fixedKey), deadline)))
      await keys.issue("PETSTORE_API_KEY", deadline, { apiKey: options.fixedKey });
    return { apiKey: options.fixedKey, origin: "PETSTORE_API_KEY" };
  }
  if (options.dataDir) {
    const file = localKeyFile(options.dataDir);
    const kept = existsSync(file) ? readFileSync(file, "utf8").trim() : "";
    const record = kept ? await keys.find(hashApiKey(kept), deadline) : undefined;
    const valid =
      record &&
      !record.revokedAt &&
      !(record.expiresAt && Date.parse(record.expiresAt) <= Date.now());
    if (valid) return { apiKey: kept, origin: "kept" };
    const { apiKey } = await keys.issue(localKeyLabel, deadline);
    writeFileSync(file, `${apiKey}\n`, { mode: 0o600 });
    chmodSync(file, 0o600); // the mode above applies only when the file is created
    return { apiKey, origin: "new" };
  }
  for (const record of await keys.list(deadline)) {
    if (record.label === localKeyLabel && !record.revokedAt)
      await keys.revoke(record.keyId, deadline);
  }
  const { apiKey } = await keys.issue(localKeyLabel, deadline);
  return { apiKey, origin: "per-run" };
}

export interface LocalStore {
  readonly keys: ApiKeyStore;
  /** The keys' audit trail (create, rotate, update, revoke). */
  readonly events: KeyEventStore;
  /** Which store this is, in words, for the command's output. */
  readonly where: string;
  close(): Promise<void>;
}

/**
 * The local store `npm start` would use: the one at DYNAMODB_ENDPOINT when given (checked within
 * 3 s, as the server checks it), else the data folder's, through its running server's endpoint
 * or opened here.
 */
export async function openLocalStore(options: {
  readonly dataDir: string;
  readonly endpoint?: string | undefined;
  readonly engine?: StoreEngine;
}): Promise<LocalStore> {
  const { dataDir, endpoint, engine } = options;
  const table = `table ${localTableName}`;
  if (endpoint) {
    await assertStoreReachable(endpoint);
    const db = localClient(endpoint);
    await ensureTable(db, localTableName);
    return storeOf(db, `the store at ${endpoint} (DYNAMODB_ENDPOINT), ${table}`, () =>
      Promise.resolve(),
    );
  }
  const inside = relative(process.cwd(), dataDir);
  const folder = inside === "" || inside.startsWith("..") ? dataDir : inside;
  const running = existsSync(endpointFile(dataDir))
    ? readFileSync(endpointFile(dataDir), "utf8").trim()
    : undefined;
  if (running) {
    const db = localClient(running);
    try {
      await assertStoreReachable(running, 1000);
      await ensureTable(db, localTableName);
      const where = `the store of ${folder} (through its running server, ${running}), ${table}`;
      return storeOf(db, where, () => Promise.resolve());
    } catch {
      db.close(); // a stale file from a server that did not stop cleanly: open the folder here
    }
  }
  const dynamo = await startEmbeddedDynamo({ dataDir, ...(engine && { engine }) });
  const db = localClient(dynamo.endpoint);
  await ensureTable(db, localTableName);
  return storeOf(db, `the store of ${folder}, ${table}`, () => dynamo.close());
}

function storeOf(db: DynamoDb, where: string, closeStore: () => Promise<void>): LocalStore {
  return {
    keys: new ApiKeyStore(db, localTableName),
    events: new KeyEventStore(db, localTableName),
    where,
    close: async () => {
      db.close();
      await closeStore();
    },
  };
}
