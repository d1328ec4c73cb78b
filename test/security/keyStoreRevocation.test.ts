/**
 * Revocation and expiry through the real key store (ApiKeyStore on the embedded DynamoDB), on an
 * injected clock: a revocation in the store reaches every verifier within the cache time, and an
 * expiry holds to the millisecond. keyRevocation.test.ts proves the rule for every schedule and
 * setting with a store of one record.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ApiKeyVerifier } from "../../lib/auth.ts";
import { readConfig } from "../../lib/config.ts";
import { ApiKeyStore } from "../../lib/repositories/apiKeys.ts";
import { soon, useEmbeddedDynamo } from "../support/dynamo.ts";
import { accepted, baseEnv, contractLimitMs, start } from "../support/keyClock.ts";

describe("with the real key store: revoke and expire through ApiKeyStore, verify on an injected clock", () => {
  const store = useEmbeddedDynamo();

  it("a key revoked by the operator is refused by every verifier 30 s later, and at once by a fresh one (25 schedules)", async () => {
    const table = await store.newTable();
    const keys = new ApiKeyStore(store.db, table);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 29_999 }), async (lastUse) => {
        const { apiKey, record } = await keys.issue("revocation", undefined, soon());
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
    const { apiKey } = await keys.issue("expiring", expiresAt, soon());
    let now = start;
    const verifier = new ApiKeyVerifier(keys, () => now, readConfig(baseEnv).keyCacheMs);
    expect(await accepted(verifier, apiKey)).toBe(true);
    now = start + 44_999;
    expect(await accepted(verifier, apiKey)).toBe(true);
    now = start + 45_000;
    expect(await accepted(verifier, apiKey)).toBe(false);
  });
});
