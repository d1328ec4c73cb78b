/**
 * What a function needs, built once per container (at module load, outside the handler) and
 * handed to the handler factories, so tests can hand in the same parts wired to a local store.
 */
import { ApiKeyStore } from "./apiKeyStore.ts";
import { ApiKeyVerifier } from "./auth.ts";
import type { ServiceConfig } from "./config.ts";
import { readConfig } from "./config.ts";
import { DynamoDb, environmentCredentials } from "./dynamodb.ts";
import { IdempotentCreator } from "./idempotency.ts";
import type { LogSink } from "./log.ts";
import { RequestLogger, stdoutSink } from "./log.ts";
import { CategoryStore } from "./store.ts";

export interface ServiceDeps {
  readonly config: ServiceConfig;
  readonly now: () => number;
  readonly categories: CategoryStore;
  readonly idempotency: IdempotentCreator;
  readonly verifier: ApiKeyVerifier;
  readonly logger: RequestLogger;
}

export interface DepsOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly now?: () => number;
  readonly sink?: LogSink;
}

export function createServiceDeps(options: DepsOptions = {}): ServiceDeps {
  const env = options.env ?? process.env;
  const now = options.now ?? Date.now;
  const config = readConfig(env);
  const db = new DynamoDb({
    region: config.region,
    endpoint: config.dynamoEndpoint,
    credentials: environmentCredentials(env),
    attemptTimeoutMs: config.storeAttemptTimeoutMs,
    now,
  });
  const keys = new ApiKeyStore(db, config.tableName, now);
  const categories = new CategoryStore(db, config.tableName, now);
  return {
    config,
    now,
    categories,
    idempotency: new IdempotentCreator(db, config.tableName, categories, now),
    verifier: new ApiKeyVerifier(keys, now, config.keyCacheMs),
    logger: new RequestLogger(options.sink ?? stdoutSink, now),
  };
}
