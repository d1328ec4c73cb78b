/**
 * The pre-traffic hook's five requests and what each answer must be. Each only reads: none
 * creates, changes or deletes anything (the invalid create stops at validation, before any write).
 */
/** A function's answer, headers lower-cased and the body parsed from JSON. */
export interface Answer {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/** A request as a client sends it: the template's routes decide which function answers it. */
export interface Request {
  readonly method: string;
  readonly path: string;
  readonly withKey: boolean;
  readonly body?: string;
}

export interface Probe extends Request {
  readonly check: string;
  /** Throws CheckFailed when the answer is wrong. */
  readonly verify: (answer: Answer) => void;
}

export class CheckFailed extends Error {}

const list = { method: "GET", path: "/v1/categories" } as const;
const create = { method: "POST", path: "/v1/categories" } as const;

/** A probe whose answer must be the contract's Error shape with this status and code. */
function refusal(check: string, request: Request, status: number, code: string): Probe {
  return {
    check,
    ...request,
    verify: (answer) => {
      expectError(answer, status, code);
    },
  };
}

export const probes: readonly Probe[] = [
  {
    check: "GET /v1/categories with a valid key answers 200 and a JSON array",
    ...list,
    withKey: true,
    verify: (answer: Answer): void => {
      expectStatus(answer, 200);
      if (!Array.isArray(answer.body)) throw new CheckFailed("the body is not a JSON array");
    },
  },
  refusal(
    "GET /v1/categories without a key answers 401 unauthorized",
    { ...list, withKey: false },
    401,
    "unauthorized",
  ),
  // Validation comes after the key check and before any write: the table is only read.
  refusal(
    "POST /v1/categories with a valid key and no name answers 400 invalid_body",
    { ...create, withKey: true, body: "{}" },
    400,
    "invalid_body",
  ),
  refusal(
    "POST /v1/categories without a key answers 401 unauthorized",
    { ...create, withKey: false, body: '{"name":"never stored"}' },
    401,
    "unauthorized",
  ),
  refusal(
    "an unknown route answers 404 not_found",
    { method: "GET", path: "/v1/pre-traffic-check-no-such-route", withKey: true },
    404,
    "not_found",
  ),
];

function expectStatus(answer: Answer, status: number): void {
  if (answer.statusCode !== status) {
    throw new CheckFailed(`expected ${status}, got ${answer.statusCode}`);
  }
  const type = answer.headers["content-type"] ?? "";
  if (!type.startsWith("application/json")) {
    throw new CheckFailed(`expected a JSON answer, got Content-Type "${type}"`);
  }
}

/** The contract's Error shape: exactly code, message and status (= the HTTP status). */
function expectError(answer: Answer, status: number, code: string): void {
  expectStatus(answer, status);
  const body = answer.body as Record<string, unknown> | null;
  const keys = body && typeof body === "object" ? Object.keys(body).sort().join(",") : "";
  if (keys !== "code,message,status" || body?.code !== code || body.status !== status) {
    throw new CheckFailed(
      `expected the Error shape with code ${code}, got ${JSON.stringify(body)}`,
    );
  }
}
