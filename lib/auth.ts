/**
 * Bearer authentication (RFC 6750) against the stage's API key records.
 *
 * The presented key is hashed first and only its SHA-256 digest is compared (as the table's
 * sort key and as the cache's map key), so the time taken depends on a pseudo-random digest,
 * never on how many leading characters the key shares with a real one. Verified keys are trusted for `cacheMs` (at most 60 s, the
 * contract's revocation delay); expiry is checked on every request against the clock.
 *
 * A token of the contract's key format (lib/keyFormat.ts) whose checksum fails, or that names
 * another stage, is refused before any of that: no hash, no cache entry, no store read. So is a
 * token not of the format at all, unless the stage still allows keys issued before it
 * (ALLOW_LEGACY_KEYS, lib/config.ts): a stranger's junk costs nothing.
 *
 * The cache keeps the most recently used verdicts: a known key's for `cacheMs`, an unknown key's
 * for `negativeCacheMs` (so one junk key repeated costs one read per container per 5 s). The two
 * are kept apart and each drops its least recently used entry when full, so no flood of unknown
 * keys can push a valid key's verdict out, and neither ever empties itself.
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
  /**
   * The rate limit bucket the key counts against: its own id, or the one a rotated pair shares
   * (lib/repositories/apiKeys.ts), so a rotation's grace window does not double the quota.
   */
  readonly bucket: string;
  /**
   * Issued before the key format (looked up where AllowLegacyCredentials allows it): the request's
   * log line says so, and a stage whose lines no longer do may turn the setting off.
   */
  readonly legacyKey?: true;
}

interface CacheEntry {
  readonly record: ApiKeyRecord | undefined;
  readonly fetchedAt: number;
}

/** Verdicts kept per kind (known, unknown): about 2 MB each at most. */
const maxCacheEntries = 10_000;
/** Unknown keys are remembered briefly, so a flood of bad keys does not become a flood of reads. */
const negativeCacheMs = 5_000;

export interface VerifierOptions {
  /** Look up tokens not of the key format (keys issued before it); default: refuse them unread. */
  readonly legacyKeys?: boolean;
  /** Verdicts kept of each kind (default 10,000). */
  readonly cacheEntries?: number;
}

/**
 * A map that keeps at most `limit` entries, dropping the least recently used one to make room.
 * A Map iterates in insertion order, so reading an entry re-inserts it at the end: the first is
 * the least recently used. (Hand-written: a dozen lines where an LRU package would be one more
 * dependency in every Lambda bundle, whose import time is measured.)
 */
class RecentlyUsed<Value> {
  readonly #entries = new Map<string, Value>();
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  get(key: string): Value | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  set(key: string, value: Value): void {
    this.#entries.delete(key);
    if (this.#entries.size >= this.#limit) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, value);
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }
}

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
  readonly #legacyKeys: boolean;
  /** Verdicts on keys found, and on keys not found: apart, so the second never evicts the first. */
  readonly #known: RecentlyUsed<CacheEntry>;
  readonly #unknown: RecentlyUsed<CacheEntry>;

  /** `stage`: the stage keys of the contract's format must name (lib/keyFormat.ts). */
  constructor(
    keys: KeyLookup,
    now: Clock,
    cacheMs: number,
    stage: KeyStage = "local",
    options: VerifierOptions = {},
  ) {
    this.#keys = keys;
    this.#now = now;
    this.#cacheMs = Math.min(cacheMs, 60_000);
    this.#stage = stage;
    this.#legacyKeys = options.legacyKeys ?? false;
    this.#known = new RecentlyUsed(options.cacheEntries ?? maxCacheEntries);
    this.#unknown = new RecentlyUsed(options.cacheEntries ?? maxCacheEntries);
  }

  async authenticate(header: string | undefined, deadline: number): Promise<Principal> {
    const credentials = parseAuthorization(header);
    if (credentials.kind === "missing") throw errors.missingKey();
    if (credentials.kind === "not_bearer") throw errors.malformedAuthorization();
    const verdict = keyVerdict(credentials.token, this.#stage);
    if (verdict === "refused" || (verdict === "legacy" && !this.#legacyKeys)) {
      throw errors.keyNotAccepted();
    }
    const keyHash = hashApiKey(credentials.token);
    const record = await this.#lookup(keyHash, deadline);
    if (!record || !this.#usable(record)) throw errors.keyNotAccepted();
    return {
      keyId: record.keyId,
      keyHash,
      scopes: record.scopes,
      rateLimit: ownRateLimit(record),
      bucket: record.bucket,
      ...(verdict === "legacy" && { legacyKey: true }),
    };
  }

  #usable(record: ApiKeyRecord): boolean {
    if (record.revokedAt !== undefined) return false;
    return record.expiresAt === undefined || Date.parse(record.expiresAt) > this.#now();
  }

  async #lookup(keyHash: string, deadline: number): Promise<ApiKeyRecord | undefined> {
    const now = this.#now();
    const known = this.#known.get(keyHash);
    if (known && now - known.fetchedAt < this.#cacheMs) return known.record;
    const unknown = known ? undefined : this.#unknown.get(keyHash);
    if (unknown && now - unknown.fetchedAt < negativeCacheMs) return undefined;
    const record = await this.#keys.find(keyHash, deadline);
    if (record) {
      this.#known.set(keyHash, { record, fetchedAt: now });
      this.#unknown.delete(keyHash);
    } else {
      // A key deleted since (or never stored) is unknown from now on.
      this.#known.delete(keyHash);
      this.#unknown.set(keyHash, { record, fetchedAt: now });
    }
    return record;
  }
}
