/**
 * Alphabets and key-shaped strings for the hostile-input generators (test/security/hostile/):
 * the characters a bearer token or a key may hold, and the near misses of one key.
 */
import fc from "fast-check";

export const b64tokenChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/";
export const base64urlChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** A string of `length` characters drawn from `alphabet`. */
export function stringOf(
  alphabet: string,
  minLength: number,
  maxLength: number,
): fc.Arbitrary<string> {
  return fc
    .array(fc.constantFrom(...alphabet.split("")), { minLength, maxLength })
    .map((chars) => chars.join(""));
}

/** A key-shaped string that is not a valid key: what a guessing client would send. */
export const randomKeyLike = stringOf(base64urlChars, 43, 43).map((rest) => `petstore_${rest}`);

/** The key with one character changed at `position` (mod its length). */
export function nearMiss(key: string, position: number, replacement: string): string {
  const index = position % key.length;
  const current = key[index] ?? "";
  const other =
    replacement === current
      ? (base64urlChars[(base64urlChars.indexOf(current) + 1) % base64urlChars.length] ?? "A")
      : replacement;
  return `${key.slice(0, index)}${other}${key.slice(index + 1)}`;
}
