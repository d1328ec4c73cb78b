/**
 * The idempotency record (contract, "Retries without duplicates"): what one (API key,
 * Idempotency-Key) pair has done in the last 24 hours, in one of three named states, as in
 * Powertools' idempotency package:
 *
 *   in_progress  a request owns the key; until `lockUntil` no other may take it over. It may
 *                already have reserved the category id it will store under.
 *   completed    the 201 answer is stored and every repeat replays it.
 *   expired      older than the window: as good as gone (DynamoDB TTL removes it later).
 *
 * A `fingerprint` of the validated body tells a repeat (same body) from a reuse (another body).
 */
import { createHash } from "node:crypto";
import type { Category, NewCategory } from "../repositories/categories.ts";

export const idempotencyWindowMs = 24 * 60 * 60 * 1000;

/** Where a record lives: the API key it is scoped to (its hash) and the Idempotency-Key. */
export interface RecordKey {
  readonly scope: string;
  readonly idempotencyKey: string;
}

interface Live {
  readonly fingerprint: string;
  /** The request currently (or last) processing the key. */
  readonly owner: string | undefined;
  /** Epoch ms after which a stalled owner (a crashed or timed-out Lambda) may be taken over. */
  readonly lockUntil: number;
}

export type IdempotencyRecord =
  | (Live & { readonly status: "in_progress"; readonly reservedId: number | undefined })
  | (Live & { readonly status: "completed"; readonly response: Category })
  | { readonly status: "expired" };

/** A fresh claim's expiry, in epoch seconds (the unit DynamoDB TTL reads). */
export function expiresAtSeconds(now: number): number {
  return Math.floor((now + idempotencyWindowMs) / 1000);
}

/** The same rule as the claim's condition (`ttl < now in seconds`), so the two never disagree. */
export function isExpired(ttlSeconds: number, now: number): boolean {
  return ttlSeconds < Math.floor(now / 1000);
}

export function fingerprintOf(input: NewCategory): string {
  return createHash("sha256")
    .update(JSON.stringify([input.name, input.description ?? null]))
    .digest("hex");
}
