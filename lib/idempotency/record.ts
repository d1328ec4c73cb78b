/**
 * The idempotency record (contract, "Retries without duplicates"): what one (API key, operation,
 * Idempotency-Key) has done in the last 24 hours, in one of three named states, as in
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
import { fingerprintV1Fields } from "../category.ts";

export const idempotencyWindowMs = 24 * 60 * 60 * 1000;

/**
 * Where a record lives: the API key it is scoped to (its hash), the operation (its function's
 * name) and the Idempotency-Key, so one key sent to two operations names two records. No
 * operation: a record written before records named theirs (lib/table/schema.ts), read until
 * those have expired.
 */
export interface RecordKey {
  readonly scope: string;
  readonly operation: string | undefined;
  readonly idempotencyKey: string;
}

interface Live {
  readonly fingerprint: string;
  /** The request currently (or last) processing the key. */
  readonly owner: string | undefined;
  /** Epoch ms after which a stalled owner (a crashed or timed-out Lambda) may be taken over. */
  readonly lockUntil: number;
}

/** `Answer`: what the operation answers (a category), stored once completed. */
export type IdempotencyRecord<Answer = unknown> =
  | (Live & { readonly status: "in_progress"; readonly reservedId: number | undefined })
  | (Live & { readonly status: "completed"; readonly response: Answer })
  | { readonly status: "expired" };

/** A fresh claim's expiry, in epoch seconds (the unit DynamoDB TTL reads). */
export function expiresAtSeconds(now: number): number {
  return Math.floor((now + idempotencyWindowMs) / 1000);
}

/** The same rule as the claim's condition (`ttl < now in seconds`), so the two never disagree. */
export function isExpired(ttlSeconds: number, now: number): boolean {
  return ttlSeconds < Math.floor(now / 1000);
}

/**
 * The fingerprint of a validated request (v2): SHA-256 of its canonical JSON (keys sorted, absent
 * fields left out), so every field of the model is covered, a field added later included.
 * It is stored with its version, `v2:<hex>`; a record without one was written by v1.
 */
export function fingerprintOf(input: object): string {
  return `v2:${sha256(canonicalJson(input))}`;
}

/**
 * Whether `stored` is the fingerprint of `input`, by the algorithm that wrote it. v1 (before
 * v2; its records are kept 24 hours) hashed the JSON array of `fingerprintV1Fields`' values,
 * null for an absent one; it goes once no record it wrote is live.
 */
export function fingerprintMatches(stored: string, input: object): boolean {
  if (stored.startsWith("v2:")) return stored === fingerprintOf(input);
  // v1 knew only its fields: a request with another one is no repeat of a record it wrote.
  // (Only categories' records, written before records named their operation, can be v1.)
  const fields = input as Readonly<Record<string, unknown>>;
  const known = new Set<string>(fingerprintV1Fields);
  if (Object.keys(fields).some((field) => fields[field] !== undefined && !known.has(field))) {
    return false;
  }
  return (
    stored === sha256(JSON.stringify(fingerprintV1Fields.map((field) => fields[field] ?? null)))
  );
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * The request as JSON with its fields in sorted order and absent ones left out: one text per
 * request, however it was built. (Field names are never integer-like, which objects reorder.)
 */
export function canonicalJson(input: object): string {
  // Stryker disable next-line MethodExpression: equivalent, JSON.stringify leaves out undefined values too; the filter states the rule
  const fields = Object.entries(input).filter(([, value]) => value !== undefined);
  return JSON.stringify(Object.fromEntries(fields.sort(([a], [b]) => (a < b ? -1 : 1))));
}
