/**
 * `expect(answer).toBeApiError(status, code?, message?)`: the contract's Error shape, asserted in
 * one place for every kind of answer the tests see — a handler's response (statusCode, body), an
 * HTTP answer (status, text) from the client, the raw socket client or the hostile harness.
 *
 * The rules: the HTTP status; `Content-Type: application/json; charset=utf-8`,
 * `X-Content-Type-Options: nosniff` and `Cache-Control: no-store` (the contract's headers on every
 * error); a body that is not base64-encoded; exactly the keys code, message and status;
 * body.status equal to the HTTP status; the code (any string when not given); a non-empty
 * message, matching `message` when given.
 *
 * Registered through vitest's `setupFiles` (vitest.config.ts), so every test file has it.
 */
import { expect } from "vitest";

interface ApiErrorMatchers<R = unknown> {
  toBeApiError(status: number, code?: string, message?: RegExp | string): R;
}

declare module "vitest" {
  // The type parameter must read as vitest declares it.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-explicit-any
  interface Assertion<T = any> extends ApiErrorMatchers<T> {}
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface AsymmetricMatchersContaining extends ApiErrorMatchers {}
}

const errorKeys = "code,message,status";
const contractHeaders: Readonly<Record<string, string>> = {
  "content-type": "application/json; charset=utf-8",
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
};

interface Read {
  readonly status: unknown;
  readonly headers: Readonly<Record<string, unknown>>;
  readonly text: unknown;
  readonly base64: unknown;
}

/** A handler response ({statusCode, headers, body, isBase64Encoded}) or an HTTP answer ({status, headers, text}). */
function read(received: unknown): Read | undefined {
  if (typeof received !== "object" || received === null) return undefined;
  const answer = received as Record<string, unknown>;
  const headers = (answer.headers ?? {}) as Record<string, unknown>;
  if ("statusCode" in answer) {
    return {
      status: answer.statusCode,
      headers,
      text: answer.body,
      base64: answer.isBase64Encoded,
    };
  }
  if ("status" in answer && "text" in answer) {
    return { status: answer.status, headers, text: answer.text, base64: answer.isBase64Encoded };
  }
  return undefined;
}

/** Every rule the answer breaks, as one line each ([] when it is the expected Error). */
export function apiErrorProblems(
  received: unknown,
  status: number,
  code?: string,
  message?: RegExp | string,
): string[] {
  const answer = read(received);
  if (!answer) return ["is neither a handler response nor an HTTP answer"];
  const problems: string[] = [];
  if (answer.status !== status)
    problems.push(`HTTP status is ${String(answer.status)}, not ${status}`);
  for (const [name, value] of Object.entries(contractHeaders)) {
    if (answer.headers[name] !== value) {
      problems.push(
        `${name} is ${JSON.stringify(answer.headers[name])}, not ${JSON.stringify(value)}`,
      );
    }
  }
  if (answer.base64 === true) problems.push("the body is base64-encoded");
  let body: unknown;
  try {
    body = JSON.parse(String(answer.text));
  } catch {
    return [...problems, `the body is not JSON: ${String(answer.text).slice(0, 200)}`];
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return [...problems, `the body is not a JSON object: ${JSON.stringify(body)}`];
  }
  const error = body as Record<string, unknown>;
  const keys = Object.keys(error).sort().join(",");
  if (keys !== errorKeys) problems.push(`the body's keys are {${keys}}, not {${errorKeys}}`);
  if (error.status !== answer.status) {
    problems.push(`body.status is ${JSON.stringify(error.status)}, not the HTTP status`);
  }
  if (code === undefined ? typeof error.code !== "string" : error.code !== code) {
    problems.push(`code is ${JSON.stringify(error.code)}, not ${code ?? "a string"}`);
  }
  if (typeof error.message !== "string" || error.message.length === 0) {
    problems.push(`message is ${JSON.stringify(error.message)}, not a non-empty string`);
  } else if (message !== undefined && !matches(error.message, message)) {
    problems.push(`message ${JSON.stringify(error.message)} does not match ${String(message)}`);
  }
  return problems;
}

function matches(text: string, expected: RegExp | string): boolean {
  return typeof expected === "string" ? text.includes(expected) : expected.test(text);
}

expect.extend({
  toBeApiError(received: unknown, status: number, code?: string, message?: RegExp | string) {
    const problems = apiErrorProblems(received, status, code, message);
    const wanted = `the Error ${status} ${code ?? "(any code)"}`;
    return {
      pass: problems.length === 0,
      message: () =>
        problems.length === 0
          ? `expected an answer other than ${wanted}`
          : `expected ${wanted}, but:\n  - ${problems.join("\n  - ")}`,
    };
  },
});
