/**
 * What every HTTP function shares, built once per container (at module load, outside the handler)
 * by this one builder: config, clock, metrics, request log, the table client and the key check.
 * Each function's own wiring (functions/<operation>/deps.ts) adds only the parts its operation
 * calls, on the same client and clock, so that a bundle holds no other operation's code
 * (test/infra/bundleContents.test.ts). Tests build the parts with the same functions.
 */
import type { Authenticator } from "./auth.ts";
import { ApiKeyVerifier } from "./auth.ts";
import type { Clock } from "./clock.ts";
import { systemClock } from "./clock.ts";
import type { ServiceConfig } from "./config.ts";
import { readConfig } from "./config.ts";
import { DynamoDb, environmentCredentials } from "./dynamodb.ts";
import { keyStageOf } from "./keyFormat.ts";
import type { LogSink, RequestLog } from "./log.ts";
import { RequestLogger, stdoutSink } from "./log.ts";
import type { ServiceMetrics } from "./metrics.ts";
import { createMetrics } from "./metrics.ts";
import { ApiKeyLookup } from "./repositories/keyLookup.ts";
import { RateLimitBucketStore } from "./repositories/rateLimitBuckets.ts";
import type { RateLimiting } from "./rateLimit/limiter.ts";
import { RateLimiter } from "./rateLimit/limiter.ts";

/** The envelope of every operation (lib/middleware.ts): what a handler sees of the shared parts. */
export interface ServiceDeps {
  readonly config: ServiceConfig;
  readonly now: Clock;
  readonly verifier: Authenticator;
  /** The container's share of every key's rate limit: one per container, so built here, once. */
  readonly limiter: RateLimiting;
  readonly logger: RequestLog;
  readonly metrics: ServiceMetrics;
}

/** The shared parts and the table client a function's own repositories are built on. */
export interface ServiceParts extends ServiceDeps {
  readonly db: DynamoDb;
}

export interface DepsOptions {
  /** The function these deps serve, e.g. "createCategory": the metrics' `function` dimension. */
  readonly operation: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly now?: Clock;
  readonly sink?: LogSink;
}

export function createServiceParts(options: DepsOptions): ServiceParts {
  const env = options.env ?? process.env;
  const now = options.now ?? systemClock;
  const config = readConfig(env);
  const metrics = createMetrics({
    function: options.operation,
    stage: config.stage,
    initializationType: env.AWS_LAMBDA_INITIALIZATION_TYPE,
    now,
  });
  const store = {
    region: config.region,
    endpoint: config.dynamoEndpoint,
    credentials: environmentCredentials(env),
    attemptTimeoutMs: config.storeAttemptTimeoutMs,
    now,
  };
  const db = new DynamoDb({
    ...store,
    onRetry: () => {
      metrics.count("storeRetries");
    },
    onGiveUp: () => {
      metrics.count("storeUnavailable");
    },
  });
  const keys = new ApiKeyLookup(db, config.tableName);
  // The rate limit's buckets on a client of their own, without the store metrics: a bucket out
  // of reach admits the request (RateLimitFailOpen), it is not the request's 503
  // (StoreUnavailable). Its first call opens one more keep-alive connection.
  const buckets = new RateLimitBucketStore(new DynamoDb(store), config.tableName);
  return {
    config,
    now,
    db,
    verifier: new ApiKeyVerifier(keys, now, config.keyCacheMs, keyStageOf(config.stage), {
      legacyKeys: config.allowLegacyKeys,
    }),
    limiter: new RateLimiter({ buckets, now }),
    logger: new RequestLogger(options.sink ?? stdoutSink, now),
    metrics,
  };
}
