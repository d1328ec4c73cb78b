/**
 * Revoked and expired keys stop working within 60 seconds at the deployed setting, without
 * sleeping: the verifier runs on an injected clock. test/http/keys.test.ts shows the same over
 * HTTP with a 1 s cache; here it is the setting the template deploys (API_KEY_CACHE_SECONDS),
 * read the way lib/config.ts reads it, and every setting the configuration accepts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ApiKeyStore } from "../../lib/repositories/apiKeys.ts";
import { generateKey } from "../../lib/keyFormat.ts";
import { ApiKeyVerifier } from "../../lib/auth.ts";
import { ConfigError, readConfig } from "../../lib/config.ts";
import { soon, useEmbeddedDynamo } from "../support/dynamo.ts";
import {
  accepted,
  baseEnv,
  contractLimitMs,
  deployedCacheSettings,
  OneKey,
  start,
} from "../support/keyClock.ts";

/** Request times (ms after the first, accepted, request), sorted. */
const requestTimes = fc
  .array(fc.integer({ min: 1, max: 180_000 }), { minLength: 1, maxLength: 40 })
  .map((times) => [...new Set(times)].sort((a, b) => a - b));

/**
 * The key is used at `start`, revoked `revokeAfter` ms later, and presented at each of `times`:
 * accepted before the revocation, refused from `cacheMs` after it on, whatever was cached.
 */
async function checkRevocation(
  cacheMs: number,
  revokeAfter: number,
  times: readonly number[],
): Promise<void> {
  const lookup = new OneKey(generateKey("local"));
  let now = start;
  const verifier = new ApiKeyVerifier(lookup, () => now, cacheMs);
  expect(await accepted(verifier, lookup.key)).toBe(true);
  for (const at of times) {
    now = start + at;
    if (at >= revokeAfter && lookup.current.revokedAt === undefined) {
      lookup.current = {
        ...lookup.current,
        revokedAt: new Date(start + revokeAfter).toISOString(),
      };
    }
    const ok = await accepted(verifier, lookup.key);
    if (at < revokeAfter) expect(ok, `at +${at} ms, revoked at +${revokeAfter} ms`).toBe(true);
    if (at >= revokeAfter + Math.min(cacheMs, contractLimitMs)) {
      expect(ok, `at +${at} ms, revoked at +${revokeAfter} ms`).toBe(false);
    }
  }
}

describe("the deployed key cache keeps a revoked key working for less than 60 seconds", () => {
  it("every function of the template runs with a cache the configuration accepts, at most 60 s", () => {
    const settings = deployedCacheSettings();
    expect(settings.size).toBeGreaterThan(0);
    for (const [id, value] of settings) {
      const { keyCacheMs } = readConfig({
        ...baseEnv,
        ...(value !== undefined && { API_KEY_CACHE_SECONDS: value }),
      });
      expect(keyCacheMs, id).toBeLessThanOrEqual(contractLimitMs);
    }
  });

  it("the configuration refuses a cache longer than 60 s, and defaults to 30 s", () => {
    expect(readConfig(baseEnv).keyCacheMs).toBe(30_000);
    for (const value of ["61", "3600", "-1", "30.5", "1e3"]) {
      expect(() => readConfig({ ...baseEnv, API_KEY_CACHE_SECONDS: value })).toThrow(ConfigError);
    }
  });
});

describe("a revoked key is refused within 60 s of its revocation, however it was used before", () => {
  // The deployed setting is one of these (the first describe reads it from the template).
  it("at every cache setting the configuration accepts (0 to 60 s) (500 schedules)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 120_000 }),
        requestTimes,
        async (seconds, revokeAfter, times) => {
          const { keyCacheMs } = readConfig({ ...baseEnv, API_KEY_CACHE_SECONDS: String(seconds) });
          await checkRevocation(keyCacheMs, revokeAfter, times);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("the boundary: still accepted 1 ms before the cached verdict lapses, refused at 30 s", async () => {
    const lookup = new OneKey(generateKey("local"));
    let now = start;
    const verifier = new ApiKeyVerifier(lookup, () => now, readConfig(baseEnv).keyCacheMs);
    expect(await accepted(verifier, lookup.key)).toBe(true);
    lookup.current = { ...lookup.current, revokedAt: new Date(start).toISOString() };
    now = start + 29_999;
    expect(await accepted(verifier, lookup.key)).toBe(true);
    now = start + 30_000;
    expect(await accepted(verifier, lookup.key)).toBe(false);
    expect(lookup.lookups).toBe(2);
  });
});

describe("an expired key is refused from its expiry on, cached or not", () => {
  it("accepted strictly before expiresAt, refused at and after it (500 schedules)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 120_000 }),
        requestTimes,
        async (expiresAfter, times) => {
          const lookup = new OneKey(generateKey("local"), {
            expiresAt: new Date(start + expiresAfter).toISOString(),
          });
          let now = start;
          const verifier = new ApiKeyVerifier(lookup, () => now, readConfig(baseEnv).keyCacheMs);
          expect(await accepted(verifier, lookup.key)).toBe(true);
          for (const at of times) {
            now = start + at;
            expect(
              await accepted(verifier, lookup.key),
              `at +${at}, expires +${expiresAfter}`,
            ).toBe(at < expiresAfter);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("with the real key store: revoke and expire through ApiKeyStore, verify on an injected clock", () => {
  const store = useEmbeddedDynamo();

  it("a key revoked by the operator is refused by every verifier 30 s later, and at once by a fresh one (25 schedules)", async () => {
    const table = await store.newTable();
    const keys = new ApiKeyStore(store.db, table);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 29_999 }), async (lastUse) => {
        const { apiKey, record } = await keys.issue("revocation", soon());
        let now = start;
        const { keyCacheMs } = readConfig(baseEnv);
        const warm = new ApiKeyVerifier(keys, () => now, keyCacheMs);
        expect(await accepted(warm, apiKey)).toBe(true);
        now = start + lastUse;
        expect(await accepted(warm, apiKey)).toBe(true);
        expect(await keys.revoke(record.keyId, soon())).toBe(true);
        // A container that has not cached the key refuses it at once.
        expect(await accepted(new ApiKeyVerifier(keys, () => now, keyCacheMs), apiKey)).toBe(false);
        // One that has, within its cache time of its last lookup (at `start`), then never again.
        now = start + keyCacheMs;
        expect(await accepted(warm, apiKey)).toBe(false);
        now = start + contractLimitMs;
        expect(await accepted(warm, apiKey)).toBe(false);
      }),
      { numRuns: 25 },
    );
  });

  it("a key issued with an expiry stops at that instant even while its verdict is cached", async () => {
    const table = await store.newTable();
    const keys = new ApiKeyStore(store.db, table);
    const expiresAt = new Date(start + 45_000);
    const { apiKey } = await keys.issue("expiring", soon(), { expiresAt });
    let now = start;
    const verifier = new ApiKeyVerifier(keys, () => now, readConfig(baseEnv).keyCacheMs);
    expect(await accepted(verifier, apiKey)).toBe(true);
    now = start + 44_999;
    expect(await accepted(verifier, apiKey)).toBe(true);
    now = start + 45_000;
    expect(await accepted(verifier, apiKey)).toBe(false);
  });
});
