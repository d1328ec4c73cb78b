/**
 * The API key format (contract: "Keys: format"): `petstore_<stage>_<random>_<check>`, like
 * GitHub's tokens. The prefix lets a secret scanner recognise a leaked key; the checksum (6 base62
 * characters of the CRC32 of everything before it) lets the service refuse a mistyped key, or a
 * key of another stage, without reading the store. Keys not of this shape (issued before it, or
 * the local server's PETSTORE_API_KEY) are looked up only where the stage allows them
 * (ALLOW_LEGACY_KEYS, lib/config.ts); elsewhere they are refused unread like a wrong checksum.
 */
import { randomBytes } from "node:crypto";
import { crc32 } from "node:zlib";

/** The stage names a key carries: the deployed stage `production` is `prod` in a key. */
export type KeyStage = "local" | "staging" | "prod";

/** The contract's shape: what a scanner (or this service) takes for a key of the format. */
export const keyPattern = /^petstore_(local|staging|prod)_([0-9A-Za-z]+)_([0-9A-Za-z]{6})$/;

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** The stage name a key of this deployment carries (lib/config.ts's STAGE, "local" unset). */
export function keyStageOf(stage: string): KeyStage {
  if (stage === "production") return "prod";
  if (stage === "staging") return "staging";
  return "local";
}

/** `value` in base62, left-padded with "0" to `width` characters. */
function toBase62(value: bigint, width: number): string {
  let digits = "";
  let rest = value;
  do {
    digits = base62.charAt(Number(rest % 62n)) + digits;
    rest /= 62n;
  } while (rest > 0n);
  return digits.padStart(width, "0");
}

/** 6 base62 characters of the CRC32 of `body` (62^6 > 2^32, so every CRC32 fits). */
export function checksumOf(body: string): string {
  return toBase62(BigInt(crc32(body)), 6);
}

/** A new key for `stage`: 32 random bytes (256 bits) as 43 base62 characters, then the checksum. */
export function generateKey(stage: KeyStage): string {
  const random = toBase62(BigInt(`0x${randomBytes(32).toString("hex")}`), 43);
  const body = `petstore_${stage}_${random}`;
  return `${body}_${checksumOf(body)}`;
}

/**
 * What the format says of a presented token, before any store read:
 *   - "legacy": not of the format: look it up where the stage allows such keys, else refuse;
 *   - "valid": of the format, for this stage, checksum right: look it up;
 *   - "refused": of the format but the checksum fails or it names another stage: 401, no read.
 */
export function keyVerdict(token: string, stage: KeyStage): "legacy" | "valid" | "refused" {
  const match = keyPattern.exec(token);
  if (!match) return "legacy";
  if (match[1] !== stage) return "refused";
  const body = token.slice(0, token.length - 7);
  return checksumOf(body) === match[3] ? "valid" : "refused";
}
