/**
 * The key format (contract: "Keys: format"): petstore_<stage>_<random>_<check>, the check being
 * 6 base62 characters of the CRC32 of everything before it.
 */
import { crc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  checksumOf,
  generateKey,
  keyPattern,
  keyStageOf,
  keyVerdict,
} from "../../lib/keyFormat.ts";
import { parseAuthorization } from "../../lib/auth.ts";

describe("new keys have the contract's shape, name their stage and end in their checksum", () => {
  it("makes keys of at least 128 random bits (43 base62 characters) for each stage", () => {
    for (const stage of ["local", "staging", "prod"] as const) {
      const keys = new Set(Array.from({ length: 50 }, () => generateKey(stage)));
      expect(keys.size).toBe(50);
      for (const key of keys) {
        expect(key).toMatch(keyPattern);
        expect(key).toMatch(new RegExp(`^petstore_${stage}_[0-9A-Za-z]{43}_[0-9A-Za-z]{6}$`));
        expect(keyVerdict(key, stage)).toBe("valid");
        expect(parseAuthorization(`Bearer ${key}`)).toEqual({ kind: "bearer", token: key });
      }
    }
  });

  it("the check is the CRC32 of the rest, in base62", () => {
    const key = generateKey("local");
    const body = key.slice(0, -7);
    let value = 0n;
    for (const c of key.slice(-6))
      value =
        value * 62n +
        BigInt("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".indexOf(c));
    expect(value).toBe(BigInt(crc32(body)));
    expect(checksumOf(body)).toBe(key.slice(-6));
  });

  it("the stage named production is prod in a key; anything else not deployed is local", () => {
    expect(keyStageOf("production")).toBe("prod");
    expect(keyStageOf("staging")).toBe("staging");
    expect(keyStageOf("local")).toBe("local");
  });
});

describe("a key of the format is refused before any lookup when it cannot be right", () => {
  it("refuses a key whose checksum does not match (one character changed anywhere)", () => {
    const key = generateKey("staging");
    for (const at of [17, 30, key.length - 9, key.length - 1]) {
      const c = key[at] === "a" ? "b" : "a";
      expect(keyVerdict(`${key.slice(0, at)}${c}${key.slice(at + 1)}`, "staging")).toBe("refused");
    }
  });

  it("refuses a key of another stage, even with a right checksum", () => {
    expect(keyVerdict(generateKey("prod"), "staging")).toBe("refused");
    expect(keyVerdict(generateKey("local"), "prod")).toBe("refused");
  });

  it("leaves keys not of the format (issued before it, PETSTORE_API_KEY) to the lookup", () => {
    for (const key of [
      "petstore_sample-key-for-local-invoke-only",
      "petstore_dev-key",
      "petstore_local_abc_12345", // a check of 5 characters: not the shape
      "PETSTORE_local_abc_123456",
      "my-own-token",
    ])
      expect(keyVerdict(key, "local")).toBe("legacy");
  });

  it("takes only a whole token for a key of the format: one inside a longer token is not", () => {
    const key = generateKey("local");
    for (const token of [`x${key}`, `${key}x`, `old-${key}`, `${key}_abcdef`])
      expect(keyVerdict(token, "local")).toBe("legacy");
  });
});
