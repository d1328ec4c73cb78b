/**
 * The smoke checks' assertions: a failed one throws CheckFailure with what was expected and what
 * came, which the check reports as its FAIL line.
 */

export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
  readonly json: unknown;
}

export class CheckFailure extends Error {}

export function expect(condition: boolean, message: string): asserts condition {
  if (!condition) throw new CheckFailure(message);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The contract's Error shape: exactly code, message, status (= HTTP status), JSON media type. */
export function expectError(answer: Answer, status: number, code: string): void {
  expect(answer.status === status, `expected ${status} ${code}, got ${describe(answer)}`);
  expect(
    (answer.headers["content-type"] ?? "").startsWith("application/json"),
    `expected a JSON body, got Content-Type ${answer.headers["content-type"] ?? "(none)"}`,
  );
  const body = answer.json;
  expect(isRecord(body), `expected an Error object, got ${answer.text.slice(0, 200)}`);
  const keys = Object.keys(body).sort().join(",");
  expect(keys === "code,message,status", `expected fields code, message, status; got ${keys}`);
  expect(body.code === code, `expected code ${code}, got ${String(body.code)}`);
  expect(body.status === status, `body status ${String(body.status)} is not ${status}`);
  expect(typeof body.message === "string" && body.message !== "", "message is empty");
}

/** An answer as a FAIL line shows it: the status and at most 200 characters of the body. */
export function describe(answer: Answer): string {
  const body = answer.text.length > 200 ? `${answer.text.slice(0, 200)}…` : answer.text;
  return `${answer.status} ${body}`;
}
