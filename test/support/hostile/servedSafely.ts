/**
 * The checks on one handler invocation of a hostile request: the answer keeps the invariants
 * and is documented by openapi.yaml, one log line without any secret, no write unless 201, no
 * key reaching the store, and Object.prototype untouched.
 */
import { expect } from "vitest";
import type { HttpEvent } from "../../../lib/http/message.ts";
import { header } from "../../../lib/http/message.ts";
import { bodyText } from "../../functions/harness.ts";
import { assertMatchesOpenApi } from "../openapi.ts";
import type { RecordedCall } from "../recordingDynamoProxy.ts";
import type { SecurityInvocation } from "../securityHarness.ts";
import { isRateLimitLease, writeOperations } from "../securityHarness.ts";
import { sentText } from "./handlerEvents.ts";
import {
  expectNoSecretIn,
  expectPrototypeIntact,
  expectSafeAnswer,
  keyLikeRuns,
} from "./invariants.ts";

export interface ServedOptions {
  readonly key: string;
  readonly keySecrets: readonly string[];
  /** The request's values whose key-like runs must not come back. */
  readonly presented: readonly (string | undefined)[];
  /** A repeated Idempotency-Key may claim the key (a conditional write) before the refusal. */
  readonly idempotencyKey?: boolean;
}

/** What the request was, taken before the invocation (a handler may change its event). */
export interface SentRequest {
  readonly method: string;
  readonly path: string;
  readonly authorization: string | undefined;
  /** The body as sent and as decoded from base64. */
  readonly text: string;
}

export function sentRequest(event: HttpEvent): SentRequest {
  return {
    method: event.requestContext.http.method,
    path: event.rawPath,
    authorization: header(event, "authorization"),
    text: sentText(event),
  };
}

export function expectServedSafely(
  sent: SentRequest,
  invocation: SecurityInvocation,
  options: ServedOptions,
): void {
  const { response } = invocation;
  const text = bodyText(response);
  const secrets = [...options.keySecrets, ...echoable(options.presented, sent.text)];
  expectSafeAnswer(
    {
      status: response.statusCode,
      headers: response.headers,
      text,
      isBase64Encoded: response.isBase64Encoded,
    },
    secrets,
  );
  assertMatchesOpenApi({
    method: sent.method,
    path: sent.path,
    status: response.statusCode,
    headers: response.headers,
    body: text,
  });

  expect(invocation.logLines).toHaveLength(1);
  const line = invocation.logLines[0] ?? "";
  expectNoSecretIn(line, secrets);
  expect(JSON.parse(line)).toMatchObject({ status: response.statusCode });

  const writes = invocation.calls.filter(
    (call) => writeOperations.has(call.operation) && !isRateLimitLease(call),
  );
  if (response.statusCode !== 201) {
    // Only a repeated Idempotency-Key may try a write before being refused (409 / 422): the
    // conditional claim of the key, which fails because the key is taken.
    const attempts = options.idempotencyKey
      ? writes.filter((call) => !isConditional(call))
      : writes;
    expect(attempts.map((call) => call.operation)).toEqual([]);
  }
  // The store sees the key's hash (the record's sort key, and the scope of idempotency
  // records), never the key nor anything key-like from the Authorization header.
  expectNoSecretIn(JSON.stringify(invocation.calls.map((call) => call.input)), [
    options.key,
    ...keyLikeRuns(sent.authorization),
  ]);
  expectPrototypeIntact();
}

/**
 * The key-like runs of the presented values that must not come back. A run the body also holds
 * is left out: an unknown field is named in the answer by contract, and fast-check likes to
 * draw words such as "prototype" or "constructor" for headers and field names alike.
 */
function echoable(presented: readonly (string | undefined)[], body: string): string[] {
  return keyLikeRuns(...presented).filter((run) => !body.includes(run));
}

function isConditional(call: RecordedCall): boolean {
  return (
    typeof call.input === "object" && call.input !== null && "ConditionExpression" in call.input
  );
}
