/**
 * The pre-traffic hook's requests and what each answer must be. Each only reads: none creates,
 * changes or deletes anything (the invalid create stops at validation, before any write). Every
 * operation gets one without its own code here: each route a function of its own serves must
 * refuse a request without a key (probesFor, from the template's routes), so each new version is
 * invoked at least once.
 */
import type { RouteFunctions } from "./targets.ts";
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

/** The checks that read what an operation answers, beside the derived ones. */
const answers: readonly Probe[] = [
  {
    check: "GET /v1/categories with a valid key answers 200 and a JSON array",
    ...list,
    withKey: true,
    verify: (answer: Answer): void => {
      expectStatus(answer, 200);
      if (!Array.isArray(answer.body)) throw new CheckFailed("the body is not a JSON array");
    },
  },
  // Validation comes after the key check and before any write: the table is only read.
  refusal(
    "POST /v1/categories with a valid key and no name answers 400 invalid_body",
    { ...create, withKey: true, body: "{}" },
    400,
    "invalid_body",
  ),
  refusal(
    "an unknown route answers 404 not_found",
    { method: "GET", path: "/v1/pre-traffic-check-no-such-route", withKey: true },
    404,
    "not_found",
  ),
];

/**
 * The probes for these routes: the answers above, and for each route served by a function other
 * than the fallback (`$default`'s), a request without a key, which must be refused with 401.
 */
export function probesFor(routes: RouteFunctions): Probe[] {
  const keyless = Object.entries(routes)
    .filter(([routeKey, name]) => routeKey !== "$default" && name !== routes.$default)
    .map(([routeKey]) => {
      const [method = "", pattern = ""] = routeKey.split(" ");
      const request: Request = {
        method,
        path: pattern.replaceAll(/\{[^}]+\}/g, "1"),
        withKey: false,
        ...(method === "POST" && { body: '{"name":"never stored"}' }),
      };
      return refusal(
        `${routeKey} without a key answers 401 unauthorized`,
        request,
        401,
        "unauthorized",
      );
    });
  return [...answers, ...keyless];
}

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
