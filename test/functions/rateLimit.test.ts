/**
 * A 429 from the handlers themselves (the same middy chain the bundles run), on the embedded store
 * through a recording proxy: over the limit, nothing else happens (no category, no idempotency
 * record, no write for the request), and the answer is the contract's, documented by openapi.yaml.
 */
import { describe, expect, it } from "vitest";
import type { HttpEvent } from "../../lib/http/message.ts";
import {
  isRateLimitLease,
  useSecurityHarness,
  writeOperations,
} from "../support/securityHarness.ts";
import { assertMatchesOpenApi } from "../support/openapi.ts";
import { bodyText, loadEvent } from "./harness.ts";

const harness = useSecurityHarness();
const limit = { RATE_LIMIT: "1/min", RATE_LIMIT_BURST: "2" };

function create(name: string, idempotencyKey: string): HttpEvent {
  const event = loadEvent("create-ok.json");
  event.headers = {
    ...event.headers,
    authorization: `Bearer ${harness.validKey}`,
    "idempotency-key": idempotencyKey,
  };
  event.body = JSON.stringify({ name });
  event.isBase64Encoded = false;
  return event;
}

describe("over the limit, a create does nothing but answer 429", () => {
  it("no category, no idempotency record, no write; a fresh container's refused lease writes nothing either", async () => {
    const handler = await harness.handler("createCategory", limit);
    const before = (await harness.stored()).length;
    for (const key of ["first", "second"]) {
      expect((await harness.invoke(handler, create(key, key))).response.statusCode).toBe(201);
    }
    const refused = await harness.invoke(handler, create("third", "third"));
    expect(refused.response).toBeApiError(429, "rate_limited");
    expect(Number(refused.response.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    assertMatchesOpenApi({
      method: "POST",
      path: "/v1/categories",
      status: 429,
      headers: refused.response.headers,
      body: bodyText(refused.response),
    });
    // This container knew the bucket was empty: not one store call.
    expect(refused.calls).toEqual([]);
    expect(JSON.parse(refused.logLines[0] ?? "{}")).toMatchObject({
      status: 429,
      code: "rate_limited",
    });

    // Another container has not looked yet: its lease is refused by the bucket's condition.
    const fresh = await harness.handler("createCategory", limit);
    const elsewhere = await harness.invoke(fresh, create("fourth", "third"));
    expect(elsewhere.response).toBeApiError(429, "rate_limited");
    expect(
      elsewhere.calls.filter((call) => !isRateLimitLease(call) && call.operation !== "GetItem"),
    ).toEqual([]);
    expect(
      elsewhere.calls.filter(
        (call) => writeOperations.has(call.operation) && !isRateLimitLease(call),
      ),
    ).toEqual([]);
    // "third" was never claimed: the same Idempotency-Key, once allowed, creates (not 409/422).
    expect((await harness.stored()).length).toBe(before + 2);
    const claimed = harness
      .calls()
      .filter((call) => JSON.stringify(call.input).includes('"third"'))
      .map((call) => call.operation);
    expect(claimed.filter((operation) => writeOperations.has(operation))).toEqual([]);
  });
});
