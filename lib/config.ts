/**
 * Configuration is read once per container from the environment and checked at once: a missing
 * or malformed setting fails the Lambda init (or the local server start) with a message naming
 * the variable, instead of failing the first request that happens to need it.
 */
import type { RateLimit } from "./rateLimit/policy.ts";
import { parseRateLimit } from "./rateLimit/policy.ts";

export interface ServiceConfig {
  /** The deployment stage (infra/template.yaml sets STAGE); "local" when unset. */
  readonly stage: string;
  /** DynamoDB table holding categories, the id counter, API key hashes and idempotency records. */
  readonly tableName: string;
  readonly region: string;
  /** Set locally (embedded DynamoDB); unset in AWS, where the regional endpoint is used. */
  readonly dynamoEndpoint: string | undefined;
  /** How long a verified API key is trusted before it is looked up again (revocation delay). */
  readonly keyCacheMs: number;
  /** Upper bound on one DynamoDB attempt; slower answers are retried within the request budget. */
  readonly storeAttemptTimeoutMs: number;
  /** When GET /v1/pets/{petId} was deprecated (RFC 9745 `Deprecation`). */
  readonly petsDeprecatedAt: Date;
  /** When GET /v1/pets/{petId} goes away (RFC 8594 `Sunset`); unset means no Sunset header. */
  readonly petsSunsetAt: Date | undefined;
  /**
   * The rate limit of every key without one of its own (RATE_LIMIT `<n>/s` or `<n>/min`,
   * RATE_LIMIT_BURST; the template's DefaultRateLimit and DefaultRateLimitBurst). Unset, as
   * locally: 100/s with a burst of 200, the local default.
   */
  readonly defaultRateLimit: RateLimit;
  /**
   * Whether a token not of the key format (a key issued before it) is looked up at all
   * (ALLOW_LEGACY_KEYS `true` or `false`; the template's AllowLegacyCredentials, `false` unless a stage
   * still has such keys). Unset: only on the local stage, whose sample events and
   * PETSTORE_API_KEY may be of any shape. Refused, such a token costs no store read.
   */
  readonly allowLegacyKeys: boolean;
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}
// The bundles are minified, which renames the class, and Lambda's runtime logs an uncaught
// error's type as its constructor's name (a failed init's ERROR line said "O"). Named here:
// esbuild's keepNames would name every function of every bundle, 10 % more bundle (38.6 KB to
// 42.4 KB for listCategories), for the one error class that leaves a handler.
Object.defineProperty(ConfigError, "name", { value: "ConfigError" });

type Env = Readonly<Record<string, string | undefined>>;

export function readConfig(env: Env): ServiceConfig {
  const stage = env.STAGE?.trim() || "local";
  return {
    stage,
    tableName: required(env, "TABLE_NAME"),
    region: env.AWS_REGION ?? required(env, "AWS_DEFAULT_REGION"),
    dynamoEndpoint: optionalUrl(env, "DYNAMODB_ENDPOINT"),
    keyCacheMs: integer(env, "API_KEY_CACHE_SECONDS", 30, 0, 60) * 1000,
    storeAttemptTimeoutMs: integer(env, "STORE_ATTEMPT_TIMEOUT_MS", 2000, 50, 29_000),
    petsDeprecatedAt: date(env, "PETS_DEPRECATED_AT") ?? new Date("2026-01-01T00:00:00Z"),
    petsSunsetAt: date(env, "PETS_SUNSET_AT"),
    defaultRateLimit: rateLimit(env),
    allowLegacyKeys: flag(env, "ALLOW_LEGACY_KEYS") ?? stage === "local",
  };
}

function flag(env: Env, name: string): boolean | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  if (raw !== "true" && raw !== "false") {
    throw new ConfigError(`${name} must be true or false, got "${raw}"`);
  }
  return raw === "true";
}

export const localDefaultRateLimit = { rate: "100/s", burst: 200 } as const;

function rateLimit(env: Env): RateLimit {
  const rate = env.RATE_LIMIT?.trim() || localDefaultRateLimit.rate;
  const burst = env.RATE_LIMIT_BURST?.trim() || String(localDefaultRateLimit.burst);
  const limit = parseRateLimit(rate, burst);
  if (typeof limit === "string") throw new ConfigError(`RATE_LIMIT / RATE_LIMIT_BURST: ${limit}`);
  return limit;
}

function required(env: Env, name: string): string {
  const value = env[name]?.trim();
  if (!value) throw new ConfigError(`${name} must be set`);
  return value;
}

function optionalUrl(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  if (!value) return undefined;
  if (!URL.canParse(value)) throw new ConfigError(`${name} must be a URL, got "${value}"`);
  return value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function date(env: Env, name: string): Date | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const value = new Date(raw);
  if (Number.isNaN(value.getTime())) {
    throw new ConfigError(`${name} must be an ISO 8601 date, got "${raw}"`);
  }
  return value;
}
