/**
 * Bearer authentication (RFC 6750) against the stage's API key records.
 *
 * The presented key is hashed first and only its SHA-256 digest is compared (as the table's
 * sort key and as the cache's map key), so the time taken depends on a pseudo-random digest,
 * never on how many leading characters the key shares with a real one. Verified keys are trusted for `cacheMs` (at most 60 s, the
 * contract's revocation delay); expiry is checked on every request against the clock.
 *
 * A token of the contract's key format (lib/keyFormat.ts) whose checksum fails, or that names
 * another stage, is refused before any of that: no hash, no cache entry, no store read.
 */
import type { Clock } from "./clock.ts";
import { errors } from "./errors.ts";
import type { KeyStage } from "./keyFormat.ts";
import { keyVerdict } from "./keyFormat.ts";
import type { Scope } from "./scopes.ts";
import type { RateLimit } from "./rateLimit/policy.ts";
import { parseRateLimit } from "./rateLimit/policy.ts";
import type { ApiKeyRecord } from "./repositories/keyLookup.ts";
import { hashApiKey } from "./repositories/keyLookup.ts";

export type Credentials =
  | { readonly kind: "missing" }
  | { readonly kind: "not_bearer" }
  | { readonly kind: "bearer"; readonly token: string };

// RFC 6750 §2.1: credentials = "Bearer" 1*SP b64token; the scheme is case-insensitive (RFC 7235).
const bearerPattern = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const bearerScheme = /^bearer(?: |$)/i;

export function parseAuthorization(header: string | undefined): Credentials {
  const value = header?.trim() ?? "";
  if (value === "" || /^bearer$/i.test(value)) return { kind: "missing" };
  const match = bearerPattern.exec(value);
  if (match?.[1] !== undefined) return { kind: "bearer", token: match[1] };
  // "Bearer <something that is not a b64token>" still presented a key: it is just not accepted.
  return bearerScheme.test(value) ? { kind: "bearer", token: "" } : { kind: "not_bearer" };
}

export interface KeyLookup {
  find(keyHash: string, deadline: number): Promise<ApiKeyRecord | undefined>;
}

export interface Authenticator {
  /** The principal for a valid Authorization header; otherwise throws the matching 401. */
  authenticate(header: string | undefined, deadline: number): Promise<Principal>;
}

export interface Principal {
  readonly keyId: string;
  /** The hash scopes per-key state (idempotency records); it never leaves the process. */
  readonly keyHash: string;
  /** What the key may do (lib/scopes.ts); checked after the rate limit (lib/middleware.ts). */
  readonly scopes: readonly Scope[];
  /** The key's own rate limit; undefined: the stage's default (lib/rateLimit/). */
  readonly rateLimit?: RateLimit | undefined;
}

interface CacheEntry {
  readonly record: ApiKeyRecord | undefined;
  readonly fetchedAt: number;
}

const maxCacheEntries = 10_000;
/** Unknown keys are remembered briefly, so a flood of bad keys does not become a flood of reads. */
const negativeCacheMs = 5_000;

function ownRateLimit(record: ApiKeyRecord): RateLimit | undefined {
  if (record.rate === undefined || record.burst === undefined) return undefined;
  const limit = parseRateLimit(record.rate, record.burst);
  return typeof limit === "string" ? undefined : limit;
}

export class ApiKeyVerifier implements Authenticator {
  readonly #keys: KeyLookup;
  readonly #now: Clock;
  readonly #cacheMs: number;
  readonly #stage: KeyStage;
  readonly #cache = new Map<string, CacheEntry>();

  /** `stage`: the stage keys of the contract's format must name (lib/keyFormat.ts). */
  constructor(keys: KeyLookup, now: Clock, cacheMs: number, stage: KeyStage = "local") {
    this.#keys = keys;
    this.#now = now;
    this.#cacheMs = Math.min(cacheMs, 60_000);
    this.#stage = stage;
  }

  async authenticate(header: string | undefined, deadline: number): Promise<Principal> {
    const credentials = parseAuthorization(header);
    if (credentials.kind === "missing") throw errors.missingKey();
    if (credentials.kind === "not_bearer") throw errors.malformedAuthorization();
    if (keyVerdict(credentials.token, this.#stage) === "refused") throw errors.keyNotAccepted();
    const keyHash = hashApiKey(credentials.token);
    const record = await this.#lookup(keyHash, deadline);
    if (!record || !this.#usable(record)) throw errors.keyNotAccepted();
    return {
      keyId: record.keyId,
      keyHash,
      scopes: record.scopes,
      rateLimit: ownRateLimit(record),
    };
  }

  #usable(record: ApiKeyRecord): boolean {
    if (record.revokedAt !== undefined) return false;
    return record.expiresAt === undefined || Date.parse(record.expiresAt) > this.#now();
  }

  async #lookup(keyHash: string, deadline: number): Promise<ApiKeyRecord | undefined> {
    const now = this.#now();
    const cached = this.#cache.get(keyHash);
    if (cached && now - cached.fetchedAt < (cached.record ? this.#cacheMs : negativeCacheMs)) {
      return cached.record;
    }
    const record = await this.#keys.find(keyHash, deadline);
    if (this.#cache.size >= maxCacheEntries) this.#cache.clear();
    this.#cache.set(keyHash, { record, fetchedAt: now });
    return record;
  }
}
