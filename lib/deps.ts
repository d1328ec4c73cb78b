/**
 * What a function needs, built once per container (at module load, outside the handler) and
 * handed to the handler factories, so tests can hand in the same parts wired to a local store.
 * Handlers see only the interfaces; this is the one place that picks the implementations, and
 * the one place the clock and the metrics are created: every part gets the same ones.
 */
import type { Authenticator } from "./auth.ts";
import type { CategoryListing } from "./categoryList/reader.ts";
import { CategoryList } from "./categoryList/reader.ts";
import { ApiKeyVerifier } from "./auth.ts";
import type { Clock } from "./clock.ts";
import { systemClock } from "./clock.ts";
import type { ServiceConfig } from "./config.ts";
import { readConfig } from "./config.ts";
import { DynamoDb, environmentCredentials } from "./dynamodb.ts";
import type { IdempotentCreation } from "./idempotency/creator.ts";
import { IdempotentCreator } from "./idempotency/creator.ts";
import type { LogSink, RequestLog } from "./log.ts";
import { RequestLogger, stdoutSink } from "./log.ts";
import type { ServiceMetrics } from "./metrics.ts";
import { createMetrics } from "./metrics.ts";
import { ApiKeyStore } from "./repositories/apiKeys.ts";
import type { CategoryRepository } from "./repositories/categories.ts";
import { CategoryStore } from "./repositories/categories.ts";
import { CategoryReader } from "./repositories/categoryReads.ts";
import { IdempotencyRecordStore } from "./repositories/idempotencyRecords.ts";
import { RateLimitBucketStore } from "./repositories/rateLimitBuckets.ts";
import type { RateLimiting } from "./rateLimit/limiter.ts";
import { RateLimiter } from "./rateLimit/limiter.ts";

export interface ServiceDeps {
  readonly config: ServiceConfig;
  readonly now: Clock;
  readonly categories: CategoryRepository;
  /** The container's list cache: one per container, so built here, once. */
  readonly categoryList: CategoryListing;
  readonly idempotency: IdempotentCreation;
  readonly verifier: Authenticator;
  /** The container's share of every key's rate limit: one per container, so built here, once. */
  readonly limiter: RateLimiting;
  readonly logger: RequestLog;
  readonly metrics: ServiceMetrics;
}

export interface DepsOptions {
  /** The operation these deps serve, e.g. "createCategory": the metrics' `function` dimension. */
  readonly operation: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly now?: Clock;
  readonly sink?: LogSink;
}

export function createServiceDeps(options: DepsOptions): ServiceDeps {
  const env = options.env ?? process.env;
  const now = options.now ?? systemClock;
  const config = readConfig(env);
  const metrics = createMetrics({
    function: options.operation,
    stage: config.stage,
    initializationType: env.AWS_LAMBDA_INITIALIZATION_TYPE,
    now,
  });
  const db = new DynamoDb({
    region: config.region,
    endpoint: config.dynamoEndpoint,
    credentials: environmentCredentials(env),
    attemptTimeoutMs: config.storeAttemptTimeoutMs,
    now,
    onRetry: () => {
      metrics.storeRetry();
    },
    onGiveUp: () => {
      metrics.storeUnavailable();
    },
  });
  const keys = new ApiKeyStore(db, config.tableName, now);
  const categories = new CategoryStore(db, config.tableName, now);
  const records = new IdempotencyRecordStore(db, config.tableName, now);
  return {
    config,
    now,
    categories,
    categoryList: new CategoryList(new CategoryReader(db, config.tableName), now),
    idempotency: new IdempotentCreator(records, categories, now),
    verifier: new ApiKeyVerifier(keys, now, config.keyCacheMs),
    limiter: new RateLimiter({ buckets: new RateLimitBucketStore(db, config.tableName, now), now }),
    logger: new RequestLogger(options.sink ?? stdoutSink, now),
    metrics,
  };
}
