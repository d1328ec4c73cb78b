/**
 * Key verification on an injected clock, for the revocation and expiry tests: a one-record key
 * lookup the test changes at will, "was the key accepted", and the key cache setting each
 * function of infra/template.yaml deploys with.
 */
import { expect } from "vitest";
import type { KeyLookup } from "../../lib/auth.ts";
import type { ApiKeyVerifier } from "../../lib/auth.ts";
import type { ApiKeyRecord } from "../../lib/repositories/apiKeys.ts";
import { hashApiKey } from "../../lib/repositories/apiKeys.ts";
import { allScopes } from "../../lib/scopes.ts";
import { environmentOf, functions } from "./templateResources.ts";
import { soon } from "./dynamo.ts";

/** The contract: a revoked key stops working within this long. */
export const contractLimitMs = 60_000;
export const start = Date.parse("2026-03-01T12:00:00.000Z");
export const baseEnv = { TABLE_NAME: "petstore-test", AWS_REGION: "eu-west-1" };

/** API_KEY_CACHE_SECONDS of each function in infra/template.yaml, Globals applied. */
export function deployedCacheSettings(): Map<string, string | undefined> {
  return new Map(
    functions.map(([id]) => {
      const value = environmentOf(id).API_KEY_CACHE_SECONDS;
      if (value !== undefined && typeof value !== "string") {
        throw new Error(`${id}: API_KEY_CACHE_SECONDS must be a literal string to be checked here`);
      }
      return [id, value];
    }),
  );
}

/** A key store of one record that the test changes at will. */
export class OneKey implements KeyLookup {
  readonly key: string;
  readonly hash: string;
  current: ApiKeyRecord;
  lookups = 0;
  constructor(key: string, record: Partial<ApiKeyRecord> = {}) {
    this.key = key;
    this.hash = hashApiKey(key);
    this.current = {
      keyId: "key_revocation",
      label: "t",
      createdAt: "2026-01-01T00:00:00Z",
      scopes: allScopes,
      bucket: "key_revocation",
      ...record,
    };
  }
  find(keyHash: string): Promise<ApiKeyRecord | undefined> {
    this.lookups += 1;
    return Promise.resolve(keyHash === this.hash ? this.current : undefined);
  }
}

/** Whether `verifier` accepts `key`; a refusal must be the contract's 401. */
export async function accepted(verifier: ApiKeyVerifier, key: string): Promise<boolean> {
  try {
    await verifier.authenticate(`Bearer ${key}`, soon());
    return true;
  } catch (error) {
    expect(error).toMatchObject({ status: 401, code: "unauthorized" });
    return false;
  }
}
