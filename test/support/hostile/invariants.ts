/**
 * The properties every answer to a hostile request keeps, whatever the input: never a 5xx (but
 * the contract's 501), the Error shape, no key, no hash and no presented token echoed back or
 * logged, and Object.prototype untouched.
 */
import { createHash } from "node:crypto";
import { expect } from "vitest";

export const sha256 = (text: string): string =>
  createHash("sha256").update(text, "utf8").digest("hex");

/**
 * Runs of RFC 6750 b64token characters longer than 8 in what a request presented: anything that
 * could be a key. Runs of fewer than 4 distinct characters ("AAAAAAAAAA", "/////////") carry no
 * key's entropy and could match an answer by chance, so they are left out.
 */
export function keyLikeRuns(...values: readonly (string | undefined)[]): string[] {
  return values
    .flatMap((value) => value?.match(/[A-Za-z0-9\-._~+/=]{9,}/g) ?? [])
    .filter((run) => new Set(run).size >= 4);
}

export interface AnswerView {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | number | boolean>>;
  /** The body decoded from base64 and Content-Encoding. */
  readonly text: string;
  readonly isBase64Encoded?: boolean | undefined;
}

/**
 * The invariants of every answer to any request: below 500 (but the contract's 501), JSON with the contract's
 * Content-Type, the exact Error shape from 400 up, and none of `secrets` (the valid key, its
 * hash, and every key-like run the request presented) anywhere in the status line's body or
 * headers.
 */
export function expectSafeAnswer(answer: AnswerView, secrets: readonly string[]): void {
  const body = JSON.parse(answer.text) as unknown;
  // 501 is the contract's answer for the named-but-unspecified routes, not a failure.
  const notImplemented =
    answer.status === 501 && (body as { code?: unknown } | null)?.code === "not_implemented";
  if (!notImplemented) expect(answer.status, answer.text).toBeLessThan(500);
  expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
  if (answer.status >= 400) expect(answer).toBeApiError(answer.status);
  expectNoSecretIn(`${answer.text}\n${JSON.stringify(answer.headers)}`, secrets);
}

export function expectNoSecretIn(haystack: string, secrets: readonly string[]): void {
  for (const secret of secrets) {
    if (haystack.includes(secret)) {
      throw new Error(`a secret (${secret.slice(0, 12)}…) appears in: ${haystack.slice(0, 300)}`);
    }
  }
}

/** Object.prototype has gained no property: no `__proto__` body polluted the process. */
export function expectPrototypeIntact(): void {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(pristinePrototype);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}
const pristinePrototype = Object.getOwnPropertyNames(Object.prototype).sort();
