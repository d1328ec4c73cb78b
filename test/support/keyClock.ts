/**
 * Key verdicts on an injected clock, for the revocation tests in test/security/: a fixed start,
 * the contract's 60 s limit, the configuration's minimal environment, and whether a verifier
 * accepts a key now (a refusal must be the contract's 401).
 */
import { expect } from "vitest";
import type { ApiKeyVerifier } from "../../lib/auth.ts";
import { soon } from "./dynamo.ts";

/** A revoked key works for at most this long (the contract). */
export const contractLimitMs = 60_000;
export const start = Date.parse("2026-03-01T12:00:00.000Z");
/** What lib/config.ts needs besides the setting under test. */
export const baseEnv = { TABLE_NAME: "petstore-test", AWS_REGION: "eu-west-1" };

export async function accepted(verifier: ApiKeyVerifier, key: string): Promise<boolean> {
  try {
    await verifier.authenticate(`Bearer ${key}`, soon());
    return true;
  } catch (error) {
    expect(error).toMatchObject({ status: 401, code: "unauthorized" });
    return false;
  }
}
