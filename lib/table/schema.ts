/**
 * The single-table design: one DynamoDB table per stage, string keys `pk` (partition) and `sk`
 * (sort). This is the one place that says what the keys hold for each item type:
 *
 *   item type     pk                                  sk                                 attributes
 *   category      "CATEGORY"                          id, 16 digits zero-padded          id N, each field of lib/category.ts S, createdAt S, requestId S
 *   id counter    "COUNTER"                           "category"                         value N (last id handed out), version N, epoch S
 *   withdrawal    "COUNTER"                           "cat#withdrawn#", ms (15 digits), "#", id   id N, at N, ttl N
 *   API key       "APIKEY"                            sha256 hex of the key              keyId S, label S, createdAt S, createdBy S?, expiresAt S?, revokedAt S?, bucket S?
 *   idempotency   "IDEMPOTENCY#<sha256 of API key>"   the Idempotency-Key                fingerprint S, owner S, lockUntil N, categoryId N?, response S?, ttl N
 *   key event     "KEYEVENT"                          ISO time, "#", keyId, "#", random  event S, keyId S, who S, at S, detail S?, intended S?
 *   rate bucket   "RATELIMIT#<key's bucket>"          "bucket"                           tat N (epoch ms the bucket is full again), ttl N
 *
 * All categories share one partition so a single Query reads them in id order (16 digits hold
 * every safe integer). Withdrawals sort just below the counter in its partition ("cat#" < "cate"),
 * so one consistent Query from a moment up to the counter reads both: a list's first step, one
 * read unit while the two come to under 4 KB (lib/categoryList/cache.ts). Only the hash of an API key is stored. Idempotency records are scoped per
 * API key by their partition, and DynamoDB TTL (`ttl`, epoch seconds) deletes them later.
 * Key events (the operator's audit trail: create, rotate, update, revoke) share one partition in
 * time order, each written with its key's change (the operator's command, `npm start`, the deploy
 * hook's probe key); no request function reads or writes them.
 * A key's rate limit bucket (lib/repositories/rateLimitBuckets.ts) has a partition of its own, so
 * one key's writes never heat another's; its `ttl` removes it once it would be full again anyway.
 * A key's bucket is its keyId, or (`bucket`) the one of the key a rotation replaced: the pair
 * shares it. A key event's `intended` marks one written before its change where the store has
 * no transactions (lib/repositories/keyEvents.ts).
 *
 * A new item type gets a partition (or partition prefix) and a key function here, and nothing
 * else in the table layer changes; IAM's `dynamodb:LeadingKeys` conditions match these prefixes.
 */
export interface Key {
  readonly pk: string;
  readonly sk: string;
}

export const partitions = {
  category: "CATEGORY",
  counter: "COUNTER",
  apiKey: "APIKEY",
  keyEvent: "KEYEVENT",
  idempotency: (scope: string): string => `IDEMPOTENCY#${scope}`,
  rateLimit: (keyId: string): string => `RATELIMIT#${keyId}`,
} as const;

/** Zero-padded, so string order of sort keys is id order. */
export function categorySortKey(id: number): string {
  return String(id).padStart(16, "0");
}

/** Zero-padded epoch ms, so string order of withdrawal sort keys is time order. */
function withdrawalTimeKey(at: number): string {
  return String(Math.max(0, Math.floor(at))).padStart(15, "0");
}

const withdrawalPrefix = "cat#withdrawn#";

/** How long withdrawal records are kept (their DynamoDB TTL: deleted some time after). */
export const withdrawalRecordMs = 24 * 60 * 60 * 1000;

/** The sort key of the first withdrawal recorded at or after `since` (epoch ms). */
export function withdrawalsFrom(since: number): string {
  return `${withdrawalPrefix}${withdrawalTimeKey(since)}`;
}

export const keys = {
  category: (id: number): Key => ({ pk: partitions.category, sk: categorySortKey(id) }),
  categoryCounter: { pk: partitions.counter, sk: "category" } as Key,
  apiKey: (keyHash: string): Key => ({ pk: partitions.apiKey, sk: keyHash }),
  /** Time first, so lists read the withdrawals since a moment with the counter. */
  withdrawal: (at: number, id: number): Key => ({
    pk: partitions.counter,
    sk: `${withdrawalsFrom(at)}#${id}`,
  }),
  /** Time first, so one Query reads the trail in order; the suffix keeps two events apart. */
  keyEvent: (at: string, keyId: string, unique: string): Key => ({
    pk: partitions.keyEvent,
    sk: `${at}#${keyId}#${unique}`,
  }),
  idempotency: (scope: string, idempotencyKey: string): Key => ({
    pk: partitions.idempotency(scope),
    sk: idempotencyKey,
  }),
  rateLimitBucket: (keyId: string): Key => ({ pk: partitions.rateLimit(keyId), sk: "bucket" }),
};
