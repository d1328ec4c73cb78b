/**
 * The request log: one structured JSON line per request on stdout (CloudWatch in AWS), with the
 * request id, route, status, latency and, for errors, the error code; for the service's own
 * failures (500, 503) the detail of the cause, which never reaches the client; and never the API
 * key or its SHA-256, in the log or in any response.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashApiKey } from "../../lib/repositories/apiKeys.ts";
import type { RequestLogLine } from "../../lib/log.ts";
import { localTableName } from "../../local/localKeys.ts";
import type { Answer, Call, ErrorBody } from "../support/client.ts";
import { send } from "../support/client.ts";
import type { FaultStack } from "../support/faultStack.ts";
import { logEntries, sleep, startFaultStack, waitForLogLines } from "../support/faultStack.ts";

let stack: FaultStack;
const exchanges: { name: string; expected: number; answer: Answer; line: RequestLogLine }[] = [];
const wrongKey = "petstore_thisKeyIsWellFormedButWasNeverIssued0000000000000";

beforeAll(async () => {
  stack = await startFaultStack();
  // The tests below read these exchanges; none sends requests of its own.
  await exchangeEveryKind();
}, 90_000);
afterAll(async () => {
  console.info(
    `[reliability] request log: ${JSON.stringify({ requests: exchanges.length, lines: stack.server.logLines.length, faultsInjected: stack.injectedTotal() })}`,
  );
  await stack.stop();
});

/** Sends one request that must be answered `expected`, and pairs it with its log line. */
async function exchange(name: string, expected: number, call: Call): Promise<Answer> {
  const before = stack.server.logLines.length;
  const answer = await send(stack.baseUrl, call);
  await waitForLogLines(stack.server, before + 1);
  const line = logEntries(stack.server)[before];
  if (!line) throw new Error(`no log line for ${name}`);
  exchanges.push({ name, expected, answer, line });
  return answer;
}

const post = (body: string, headers: Record<string, string> = {}): Call => ({
  method: "POST",
  path: "/v1/categories",
  key: stack.apiKey,
  headers: { "content-type": "application/json", ...headers },
  body,
});

async function poisonCounter(value: string): Promise<void> {
  await stack.db.call(
    "PutItem",
    {
      TableName: localTableName,
      Item: { pk: { S: "COUNTER" }, sk: { S: "category" }, value: { N: value } },
    },
    Date.now() + 5_000,
  );
}

/** One request of every kind, each with the status it must get; sent once, before the tests. */
async function exchangeEveryKind(): Promise<void> {
  const list: Call = { path: "/v1/categories", key: stack.apiKey };
  const keyed = post('{"name":"keyed"}', { "idempotency-key": "log-test-1" });
  await exchange("create", 201, post('{"name":"logged"}'));
  await exchange("list", 200, list);
  await exchange("idempotent create", 201, keyed);
  await exchange("idempotent replay", 201, keyed);
  await exchange("invalid json", 400, post("{"));
  await exchange("invalid body", 400, post('{"id":1}'));
  await exchange("no key", 401, { ...post('{"name":"x"}'), key: null });
  await exchange("unknown key", 401, { ...post('{"name":"x"}'), key: wrongKey });
  await exchange("no route", 404, { path: "/v1/nothing", key: stack.apiKey });
  await exchange("wrong method", 405, { ...list, method: "DELETE" });
  await exchange("media type", 415, post('{"name":"x"}', { "content-type": "text/plain" }));
  const huge = JSON.stringify({ name: "x", description: "d".repeat(70 * 1024) });
  await exchange("too large", 413, post(huge));
  await exchange("pets", 501, { path: "/v1/pets/7", key: stack.apiKey });

  // 500: the counter holds the largest safe integer, so the next id would not be one.
  await poisonCounter(String(Number.MAX_SAFE_INTEGER));
  await exchange("internal error", 500, post('{"name":"overflow"}'));
  await poisonCounter("100");

  // 503: the list query is throttled for longer than the budget.
  stack.proxy.inject({ fault: "throttling", operation: "Query", times: Infinity });
  await exchange("store unavailable", 503, list);
  stack.proxy.clear();

  // Lines that would arrive late, after their request was paired, are counted by the tests.
  await sleep(300);
}

describe("every request writes exactly one JSON log line: requestId, route, status, latencyMs, and code for errors", () => {
  it("answers a request of every kind with its status", () => {
    const answered = exchanges.map(({ name, answer }) => [name, answer.status]);
    expect(answered).toEqual(exchanges.map(({ name, expected }) => [name, expected]));
    expect(answered).toHaveLength(15);
  });

  it("wrote one line per request, and no more arrived later", () => {
    expect(stack.server.logLines).toHaveLength(exchanges.length);
  });
});

describe("each log line matches its request: the answered status, the error code, a latency", () => {
  it("pairs every answer with its line", () => {
    expect(exchanges.length).toBeGreaterThan(10);
    const ids = new Set<string>();
    for (const { name, answer, line } of exchanges) {
      expect(line, name).toMatchObject({ status: answer.status });
      expect(typeof line.requestId, name).toBe("string");
      expect(line.requestId.length, name).toBeGreaterThan(0);
      ids.add(line.requestId);
      expect(typeof line.route, name).toBe("string");
      expect(line.route.length, name).toBeGreaterThan(0);
      expect(Number.isFinite(line.latencyMs) && line.latencyMs >= 0, name).toBe(true);
      if (answer.status >= 400) expect(line.code, name).toBe(answer.json<ErrorBody>().code);
      else expect(line.code, name).toBeUndefined();
    }
    expect(ids.size).toBe(exchanges.length);
    const routes = Object.fromEntries(exchanges.map(({ name, line }) => [name, line.route]));
    expect(routes).toMatchObject({
      create: "POST /v1/categories",
      list: "GET /v1/categories",
      pets: "GET /v1/pets/{petId}",
    });
  });
});

describe("a 500 or 503 carries its cause in the log's detail, never in the response", () => {
  it("has a detail exactly for the service's own failures", () => {
    for (const { name, answer, line } of exchanges) {
      const fault = answer.status === 500 || answer.status === 503;
      expect(line.detail !== undefined, name).toBe(fault);
    }
  });

  it("logs the 500's cause and answers only the generic Error shape", () => {
    const failed = exchanges.find(({ name }) => name === "internal error");
    expect(failed?.line.detail).toMatch(/unusable id/);
    expect(failed?.answer).toBeApiError(500, "internal_error");
    expect(failed?.line.code).toBe("internal_error");
    expect(failed?.answer.json()).toEqual({
      code: "internal_error",
      message: "the service failed unexpectedly; try again later",
      status: 500,
    });
  });

  it("logs the 503's cause and answers only the generic Error shape with Retry-After", () => {
    const failed = exchanges.find(({ name }) => name === "store unavailable");
    expect(failed?.line.detail).toMatch(/StoreUnavailableError[^]*ThrottlingException/);
    expect(failed?.answer.headers["retry-after"]).toBe("1");
    expect(failed?.answer).toBeApiError(503);
  });

  it("puts no detail, stack or store wording in any response", () => {
    for (const { name, answer } of exchanges) {
      for (const leak of ["caused by", "    at ", "DynamoDB", "Exception", "unusable id"]) {
        expect(answer.text, name).not.toContain(leak);
      }
    }
  });
});

describe("no log line and no response contains an API key or its SHA-256", () => {
  it("never writes the valid key, the unknown key, or their hashes", () => {
    const secrets = [stack.apiKey, hashApiKey(stack.apiKey), wrongKey, hashApiKey(wrongKey)];
    const logText = stack.server.logLines.join("\n");
    for (const secret of secrets) {
      expect(logText).not.toContain(secret);
      for (const { name, answer } of exchanges) {
        expect(answer.text, name).not.toContain(secret);
        expect(JSON.stringify(answer.headers), name).not.toContain(secret);
      }
    }
  });
});
