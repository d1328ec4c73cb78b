/**
 * The single-table design: one DynamoDB table per stage, string keys `pk` (partition) and `sk`
 * (sort). This is the one place that says what the keys hold for each item type:
 *
 *   item type     pk                                  sk                                   attributes
 *   resource      the name in capitals ("CATEGORY")   id, 16 digits zero-padded            id N, each field of its model, createdAt S, requestId S
 *   id counter    "COUNTER"                           the name ("category")                value N (last id handed out), version N, epoch S
 *   withdrawal    "COUNTER"                           name, "#withdrawn#", 15 digits       id N, at N, ttl N
 *                                                     (10^15-1 − ms), "#", id
 *   API key       "APIKEY"                            sha256 hex of the key                keyId S, label S, createdAt S, createdBy S?, expiresAt S?, revokedAt S?, bucket S?
 *   idempotency   "IDEMPOTENCY#<sha256 of API key>"   operation, "#", the Idempotency-Key  fingerprint S, owner S, lockUntil N, categoryId N?, response S?, ttl N
 *   key event     "KEYEVENT"                          ISO time, "#", keyId, "#", random    event S, keyId S, who S, at S, detail S?, intended S?
 *   rate bucket   "RATELIMIT#<key's bucket>"          "bucket"                             tat N (epoch ms the bucket is full again), ttl N
 *
 * A resource (lib/resource.ts; today only categories) is named by lower-case letters. All its
 * items share one partition so a single Query reads them in id order (16 digits hold every safe
 * integer). Its counter's sort key is its name, and each of its withdrawals' sort keys starts with
 * that name and "#": the counter is the least key of its block, and no other resource's key falls
 * inside it ("#" sorts below every letter). Withdrawal times count down, so the newest sort first:
 * one consistent Query from the counter up to the moment a list needs reads the counter and every
 * withdrawal since then (`listVersionRange`): a list's first step, one read unit while they come
 * to under 4 KB (lib/categoryList/cache.ts). test/lib/table/schema.test.ts holds this for any name.
 *
 * Only the hash of an API key is stored. Idempotency records are scoped per API key by their
 * partition and per operation by their sort key (operation names have no "#", so the first "#"
 * ends it), and DynamoDB TTL (`ttl`, epoch seconds) deletes them later.
 * Key events (the operator's audit trail: create, rotate, update, revoke) share one partition in
 * time order, each written with its key's change (the operator's command, `npm start`, the deploy
 * hook's probe key); no request function reads or writes them.
 * A key's rate limit bucket (lib/repositories/rateLimitBuckets.ts) has a partition of its own, so
 * one key's writes never heat another's; its `ttl` removes it once it would be full again anyway.
 * A key's bucket is its keyId, or (`bucket`) the one of the key a rotation replaced: the pair
 * shares it. A key event's `intended` marks one written before its change where the store has
 * no transactions (lib/repositories/keyEvents.ts).
 *
 * Earlier layouts, read until the records they wrote have expired (24 hours after the release
 * that stopped writing them; then their lines go): idempotency records keyed by the
 * Idempotency-Key alone (`legacyIdempotency`), and category withdrawals under
 * "cat#withdrawn#<ms>#<id>", which sorted just below the counter "category" (`listVersionRange`
 * starts there for categories).
 *
 * A new item type gets a partition (or partition prefix) and a key function here, and nothing
 * else in the table layer changes; IAM's `dynamodb:LeadingKeys` conditions match these prefixes.
 */
export interface Key {
  readonly pk: string;
  readonly sk: string;
}

export const partitions = {
  /** A resource's items: its name in capitals ("category": "CATEGORY"). */
  resource: (name: string): string => resourceName(name).toUpperCase(),
  counter: "COUNTER",
  apiKey: "APIKEY",
  keyEvent: "KEYEVENT",
  idempotency: (scope: string): string => `IDEMPOTENCY#${scope}`,
  rateLimit: (keyId: string): string => `RATELIMIT#${keyId}`,
} as const;

/**
 * A resource's name as the keys use it: lower-case letters only, so that its blocks in the
 * counter partition never interleave with another's (see above). Any other name is a mistake in
 * the code that declares the resource, found when its first key is built.
 */
function resourceName(name: string): string {
  if (!/^[a-z]+$/.test(name)) {
    throw new Error(`a resource name is lower-case letters only (got ${JSON.stringify(name)})`);
  }
  return name;
}

/** Zero-padded, so string order of sort keys is id order. */
export function idSortKey(id: number): string {
  return String(id).padStart(16, "0");
}

/** The latest time a withdrawal key can hold (epoch ms): 15 digits, past the year 33,000. */
const lastMs = 999_999_999_999_999;

/** Epoch ms counted down from `lastMs`, 15 digits: string order of these keys is newest first. */
function countdownKey(at: number): string {
  const ms = Math.min(lastMs, Math.max(0, Math.floor(at)));
  return String(lastMs - ms).padStart(15, "0");
}

const withdrawalBlock = (name: string): string => `${resourceName(name)}#withdrawn#`;

/**
 * The attribute the table's time to live reads (infra/template.yaml, TimeToLiveSpecification):
 * epoch seconds after which DynamoDB may delete the item. Idempotency records, rate limit
 * buckets, withdrawal records and the deploy hook's check keys carry it.
 */
export const ttlAttribute = "ttl";

/** How long withdrawal records are kept (their DynamoDB TTL: deleted some time after). */
export const withdrawalRecordMs = 24 * 60 * 60 * 1000;

/** Categories' withdrawals before the layout above (read until theirs have expired, see above). */
const legacyWithdrawalsFrom = (since: number): string =>
  `cat#withdrawn#${String(Math.floor(since)).padStart(15, "0")}`;

/**
 * The sort key range, in the counter partition, of a list's first read: the resource's counter
 * and every withdrawal of it recorded at or after `since` (epoch ms), and nothing else.
 */
export function listVersionRange(name: string, since: number): readonly [string, string] {
  // "~" sorts above every digit: every id of the last time counted in.
  const upTo = `${withdrawalBlock(name)}${countdownKey(since)}#~`;
  return [name === "category" ? legacyWithdrawalsFrom(since) : name, upTo];
}

/** Whether `sk`, in a list's first read, is a withdrawal of the resource `name`. */
export function isWithdrawalOf(name: string, sk: string): boolean {
  return (
    sk.startsWith(withdrawalBlock(name)) || (name === "category" && sk.startsWith("cat#withdrawn#"))
  );
}

export const keys = {
  /** The item of a resource's `id`. */
  resource: (name: string, id: number): Key => ({
    pk: partitions.resource(name),
    sk: idSortKey(id),
  }),
  /** A resource's id counter and list version. */
  counter: (name: string): Key => ({ pk: partitions.counter, sk: resourceName(name) }),
  /** Newest first beside the counter, so lists read the withdrawals since a moment with it. */
  withdrawal: (name: string, at: number, id: number): Key => ({
    pk: partitions.counter,
    sk: `${withdrawalBlock(name)}${countdownKey(at)}#${id}`,
  }),
  apiKey: (keyHash: string): Key => ({ pk: partitions.apiKey, sk: keyHash }),
  /** Time first, so one Query reads the trail in order; the suffix keeps two events apart. */
  keyEvent: (at: string, keyId: string, unique: string): Key => ({
    pk: partitions.keyEvent,
    sk: `${at}#${keyId}#${unique}`,
  }),
  /** One operation's record of one Idempotency-Key, under the API key it is scoped to. */
  idempotency: (scope: string, operation: string, idempotencyKey: string): Key => ({
    pk: partitions.idempotency(scope),
    sk: `${operationName(operation)}#${idempotencyKey}`,
  }),
  /** The record of an Idempotency-Key before records named their operation (see above). */
  legacyIdempotency: (scope: string, idempotencyKey: string): Key => ({
    pk: partitions.idempotency(scope),
    sk: idempotencyKey,
  }),
  rateLimitBucket: (keyId: string): Key => ({ pk: partitions.rateLimit(keyId), sk: "bucket" }),
};

/** An operation's name (its function's, "createCategory"): letters only, so no "#" in it. */
function operationName(operation: string): string {
  if (!/^[A-Za-z]+$/.test(operation)) {
    throw new Error(`an operation name is letters only (got ${JSON.stringify(operation)})`);
  }
  return operation;
}
