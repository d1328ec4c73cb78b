/**
 * Hostile requests that only the wire can carry, against the real local server (the built
 * bundles behind the local API Gateway stand-in): repeated header lines (which API Gateway joins
 * with commas), header bytes outside ASCII, raw request bodies that are not UTF-8 (sent on as
 * base64), and POSTs without Content-Type. The same invariants as the handler-level properties:
 * never a 5xx, the Error shape, an answer openapi.yaml documents, nothing stored unless 201, and
 * neither the key nor its SHA-256 nor anything key-like the request presented in any answer or
 * in any line of the server's request log. One server for the file: starting it is the cost.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  expectNoSecretIn,
  expectSafeAnswer,
  keyLikeRuns,
  sha256,
} from "../../support/hostile/invariants.ts";
import type { Header, WireCase } from "../../support/hostile/wire.ts";
import { expectedStatus, latin1, wireCaseArb } from "../../support/hostile/wire.ts";
import { localServer } from "../../support/localServer.ts";
import type { RawAnswer } from "../../support/rawHttp.ts";
import { sendRaw } from "../../support/rawHttp.ts";

const numRuns = 400;

const server = await localServer();
const key = server.apiKey;
/** Requests sent so far, the generated ones and the store checks between them. */
let requestsSent = 0;

async function send(
  method: "GET" | "POST",
  headers: readonly Header[],
  payload: Buffer | undefined,
): Promise<RawAnswer> {
  requestsSent += 1;
  return sendRaw(server.baseUrl, {
    method,
    path: "/v1/categories",
    headers,
    ...(payload && { body: payload }),
  });
}

async function storedCount(): Promise<number> {
  const answer = await send("GET", [["Authorization", latin1(`Bearer ${key}`)]], undefined);
  expect(answer.status).toBe(200);
  return (JSON.parse(answer.text) as unknown[]).length;
}

/** The server's log lines from `from` on, once `count` of them have arrived (5 s at most). */
async function logLinesSince(from: number, count: number): Promise<string[]> {
  for (let waited = 0; server.logLines.length < from + count && waited < 5_000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return server.logLines.slice(from);
}

/**
 * Sends one generated request and checks its answer, its one log line (below 500, without the
 * key, its SHA-256 or anything key-like it presented) and that the store grew only on a 201.
 */
async function checkWireCase(input: WireCase): Promise<void> {
  const stored = await storedCount();
  const headers: Header[] = [
    ...input.auth.values.map((value): Header => [input.authName, value]),
    ...input.media.values.map((value): Header => [input.mediaName, value]),
    ...input.extra,
  ];
  // Content-Type is left out: its value is the service's own ("application/json"). A run
  // the body also holds may be named back (an unknown field): left out too.
  const sentBody = `${input.body.bytes.toString("latin1")}\n${input.body.bytes.toString("utf8")}`;
  const presented = keyLikeRuns(
    ...[...input.auth.values, ...input.extra.map(([, value]) => value)].map((value) =>
      value.toString("latin1"),
    ),
  ).filter((run) => !sentBody.includes(run));
  const secrets = [key, sha256(key), ...presented];
  // Every earlier request's line first (each request is logged once, maybe after its answer).
  await logLinesSince(0, requestsSent);
  const linesBefore = server.logLines.length;
  const answer = await send(
    input.method,
    headers,
    input.method === "POST" ? input.body.bytes : undefined,
  );
  expectSafeAnswer(answer, secrets);
  const expected = expectedStatus(input);
  if (expected !== undefined)
    expect(answer.status, `${input.auth.label} / ${input.body.label}`).toBe(expected);
  const lines = await logLinesSince(linesBefore, 1);
  expect(lines).toHaveLength(1);
  expect((JSON.parse(lines[0] ?? "{}") as { status: number }).status).toBe(answer.status);
  expectNoSecretIn(lines[0] ?? "", secrets);
  expect((await storedCount()) - stored).toBe(answer.status === 201 ? 1 : 0);
}

describe("wire-only hostile requests: repeated headers, raw non-UTF-8 bytes, no Content-Type: never a 5xx, nothing stored unless 201, no key echoed or logged", () => {
  it(`holds for ${numRuns} generated requests`, async () => {
    await fc.assert(fc.asyncProperty(wireCaseArb(key), checkWireCase), { numRuns });
  });
});

describe("the server's request log has one line per request and its stderr nothing but the start banner", () => {
  it(`holds after ${numRuns / 4} generated requests`, async () => {
    const linesBefore = server.logLines.length;
    const sentBefore = requestsSent;
    await fc.assert(fc.asyncProperty(wireCaseArb(key), checkWireCase), { numRuns: numRuns / 4 });
    const sent = requestsSent - sentBefore;
    const lines = await logLinesSince(linesBefore, sent);
    expect(lines).toHaveLength(sent);
    for (const line of lines) expectNoSecretIn(line, [key, sha256(key)]);
    expect(server.stderr()).not.toMatch(/invocation failed|local server:/);
    expect(server.stderr().split(key).length - 1).toBeLessThanOrEqual(2); // the start banner only
  });
});
