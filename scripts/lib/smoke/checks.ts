/**
 * The smoke test's checks (scripts/smoke.ts is the command): each request, what the contract
 * says the answer must be, and one PASS/FAIL result per check. Read-only unless `write` is set.
 */
import { acceptCompressed } from "../../../lib/bodyText.ts";
import type { Clock } from "../../../lib/clock.ts";
import { systemClock } from "../../../lib/clock.ts";
import { send } from "../httpClient.ts";
import type { Answer } from "./expect.ts";
import { CheckFailure, describe, expect, expectError, isRecord } from "./expect.ts";

export const smokeCategoryPrefix = "smoke-test ";

export interface CheckResult {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** A check's line on stdout, as `npm run smoke` and `npm run deploy` print it. */
export function printCheck({ name, ok, detail }: CheckResult): void {
  process.stdout.write(`${ok ? "PASS" : "FAIL"}  ${name}${detail ? `: ${detail}` : ""}\n`);
}

export interface SmokeOptions {
  readonly timeoutMs?: number;
  /** Also create one category (named smokeCategoryPrefix + time) and find it in the list. */
  readonly write?: boolean;
  readonly report?: (result: CheckResult) => void;
  /** What "now" is to the pets check, which reads the answer's Sunset date against it. */
  readonly now?: Clock;
}

export async function runChecks(
  baseUrl: string,
  apiKey: string,
  options: SmokeOptions = {},
): Promise<CheckResult[]> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const now = options.now ?? systemClock;
  const auth = { authorization: `Bearer ${apiKey}` };
  const results: CheckResult[] = [];

  async function request(
    method: string,
    path: string,
    init: { headers?: Record<string, string>; body?: string } = {},
  ): Promise<Answer> {
    const answer = await send(
      baseUrl,
      {
        method,
        path: `/v1${path}`,
        // Compressed, as clients ask: a list over Lambda's 6 MB limit comes only so (else 406),
        // and a healthy stage must not fail its smoke test for having grown. send() decodes it.
        headers: { accept: "application/json", ...acceptCompressed, ...init.headers },
        ...(init.body !== undefined && { body: init.body }),
      },
      { timeoutMs },
    );
    let json: unknown;
    try {
      json = answer.json();
    } catch {
      json = undefined;
    }
    return { status: answer.status, headers: answer.headers, text: answer.text, json };
  }

  async function check(name: string, body: () => Promise<string>): Promise<void> {
    let result: CheckResult;
    try {
      result = { name, ok: true, detail: await body() };
    } catch (error) {
      const detail =
        error instanceof CheckFailure
          ? error.message
          : `request failed: ${error instanceof Error ? `${error.message}${causeOf(error)}` : String(error)}`;
      result = { name, ok: false, detail };
    }
    results.push(result);
    options.report?.(result);
  }

  await check("GET /categories answers 200 with a JSON array", async () => {
    const answer = await request("GET", "/categories", { headers: auth });
    expect(answer.status === 200, `expected 200, got ${describe(answer)}`);
    expect(
      (answer.headers["content-type"] ?? "").startsWith("application/json"),
      `expected JSON, got Content-Type ${answer.headers["content-type"] ?? "(none)"}`,
    );
    expect(Array.isArray(answer.json), `expected an array, got ${answer.text.slice(0, 200)}`);
    return `${answer.json.length} categories`;
  });

  await check("GET /categories without a key answers 401 with WWW-Authenticate", async () => {
    const answer = await request("GET", "/categories");
    expectError(answer, 401, "unauthorized");
    const challenge = answer.headers["www-authenticate"] ?? "";
    expect(/^Bearer\b/i.test(challenge), `expected a Bearer challenge, got "${challenge}"`);
    return challenge;
  });

  await check("POST /categories with an invalid body answers 400 invalid_body", async () => {
    const answer = await request("POST", "/categories", {
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ description: "no name" }),
    });
    expectError(answer, 400, "invalid_body");
    return messageOf(answer);
  });

  await check("an unknown route answers 404 not_found", async () => {
    const answer = await request("GET", "/smoke-test-no-such-route", { headers: auth });
    expectError(answer, 404, "not_found");
    return messageOf(answer);
  });

  await check("DELETE /categories answers 405 with Allow", async () => {
    const answer = await request("DELETE", "/categories", { headers: auth });
    expectError(answer, 405, "method_not_allowed");
    const allow = (answer.headers.allow ?? "")
      .split(",")
      .map((method) => method.trim())
      .sort()
      .join(", ");
    expect(allow === "GET, POST", `expected Allow: GET, POST, got "${allow}"`);
    return allow;
  });

  await check("GET /categories with a key the stage does not know answers 401", async () => {
    const answer = await request("GET", "/categories", {
      headers: { authorization: "Bearer petstore_smoke-test-key-that-was-never-issued" },
    });
    expectError(answer, 401, "unauthorized");
    return messageOf(answer);
  });

  // The contract: 501 until the stage's sunset date (PetsSunsetAt), 410 gone from it on, both with
  // Deprecation, and Sunset whenever a date is set. The date is read from the answer's own Sunset
  // header, not from the stage's settings: the check then holds for any address (npm start, a
  // stage) and judges what clients are told. A 410 before that date, or without one, fails; so
  // does a 501 after it.
  await check("GET /pets/{petId} answers 501, or 410 gone once its Sunset has passed", async () => {
    const answer = await request("GET", "/pets/1", { headers: auth });
    const sunset = answer.headers.sunset;
    const sunsetAt = sunset === undefined ? undefined : Date.parse(sunset);
    expect(sunsetAt === undefined || !Number.isNaN(sunsetAt), `Sunset "${sunset}" is no date`);
    const gone = sunsetAt !== undefined && sunsetAt <= now();
    const [status, code] = gone ? [410, "gone"] : [501, "not_implemented"];
    const why =
      sunset === undefined
        ? "no Sunset header"
        : `Sunset ${sunset} ${gone ? "has passed" : "is ahead"}`;
    expect(answer.status === status, `${why}: expected ${status} ${code}, got ${describe(answer)}`);
    expectError(answer, status, code);
    const deprecation = answer.headers.deprecation ?? "";
    expect(/^@\d+$/.test(deprecation), `expected Deprecation: @<epoch>, got "${deprecation}"`);
    return `${status} ${code}; Deprecation: ${deprecation}; ${why}`;
  });

  if (options.write) {
    let created: { id: number; name: string } | undefined;

    await check("POST /categories creates a category (201)", async () => {
      const name = `${smokeCategoryPrefix}${new Date().toISOString()}`;
      const answer = await request("POST", "/categories", {
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({
          name,
          description: "Created by npm run smoke (scripts/smoke.ts); safe to ignore.",
        }),
      });
      expect(answer.status === 201, `expected 201, got ${describe(answer)}`);
      const body = answer.json;
      expect(isRecord(body), `expected a Category, got ${answer.text.slice(0, 200)}`);
      expect(Number.isSafeInteger(body.id), `expected an integer id, got ${String(body.id)}`);
      expect(body.name === name, `expected name "${name}", got ${JSON.stringify(body.name)}`);
      created = { id: Number(body.id), name };
      return `id ${created.id}, "${name}"`;
    });

    await check("GET /categories lists the new category", async () => {
      expect(created !== undefined, "nothing to look for: the create check failed");
      const { id, name } = created;
      const answer = await request("GET", "/categories", { headers: auth });
      expect(answer.status === 200, `expected 200, got ${describe(answer)}`);
      const list: unknown = answer.json;
      expect(Array.isArray(list), "expected an array");
      const found: unknown = (list as unknown[]).find((item) => isRecord(item) && item.id === id);
      expect(found !== undefined, `id ${id} is not in the list`);
      expect(isRecord(found) && found.name === name, `id ${id} is listed with another name`);
      return `id ${id} listed`;
    });
  }

  return results;
}

function causeOf(error: Error): string {
  return error.cause instanceof Error ? ` (${error.cause.message})` : "";
}

/**
 * What a PASS line shows for an Error answer: the service's own message, which says more than the
 * code the check's name already gives ("404 not_found: not_found" said nothing).
 */
function messageOf(answer: Answer): string {
  return `"${String((answer.json as Record<string, unknown>).message)}"`;
}
