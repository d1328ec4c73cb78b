/**
 * A store that keeps throttling, failing, resetting or stalling for longer than the request's
 * time budget (the Lambda timeout, 10 s, less the 300 ms kept for answering): the request ends
 * in 503 service_unavailable with Retry-After, within the budget, in the Error shape with no
 * detail; the cause is in the request's log line; and a create that failed left nothing listed.
 *
 * Each case runs on its own server, store and proxy, all at once: a case waits out a whole
 * budget, and a fault "forever" on one operation would stall the other cases.
 */
import { describe, it } from "vitest";
import type { Category } from "../support/client.ts";
import { createCategory, listCategories, send } from "../support/client.ts";
import type { Fault } from "../support/faultProxy.ts";
import {
  expectConsistent,
  lambdaTimeoutMs,
  logEntries,
  startFaultStack,
  waitForLogLines,
} from "../support/faultStack.ts";
import { hashApiKey } from "../../lib/repositories/apiKeys.ts";
import { scaled } from "../support/speed.ts";

/** [request, fault, operation (undefined: every one), what the log's detail names as the cause]. */
const cases: readonly (readonly ["create" | "list", Fault, string | undefined, string])[] = [
  ["create", "provisioned_throughput_exceeded", "PutItem", "ProvisionedThroughputExceeded"],
  ["create", "server_error", "UpdateItem", "InternalServerError"],
  ["create", "reset", undefined, "TransportError"],
  ["create", "slow", undefined, "TransportError: no answer within"],
  ["list", "throttling", "Query", "ThrottlingException"],
  ["list", "service_unavailable", "GetItem", "ServiceUnavailable"],
];

describe("a store faulting for longer than the budget: 503 service_unavailable with Retry-After, within the budget, the cause only in the log", () => {
  it.concurrent.for(cases)(
    "%s, %s on %s (undefined: every operation), forever",
    async ([request, fault, operation, cause], { expect }) => {
      const label = `${request}, ${fault} on ${operation ?? "every operation"}`;
      const stack = await startFaultStack();
      try {
        // A category stored before the outage stays listed through it and after it.
        const before = await createCategory(stack.baseUrl, stack.apiKey, { name: "before" });
        expect(before.status).toBe(201);
        const linesBefore = stack.server.logLines.length;

        stack.proxy.inject({
          fault,
          ...(operation !== undefined && { operation }),
          times: Infinity,
          ...(fault === "slow" && { delayMs: stack.slowDelayMs }),
        });
        const started = Date.now();
        const answer =
          request === "create"
            ? await createCategory(stack.baseUrl, stack.apiKey, { name: "during the outage" })
            : await send(stack.baseUrl, { path: "/v1/categories", key: stack.apiKey });
        const elapsed = Date.now() - started;
        const faultsInjected = stack.injectedTotal();
        stack.proxy.clear();

        expect(answer).toBeApiError(503, "service_unavailable");
        expect(answer.headers["retry-after"]).toBe("1");
        const words = [
          "DynamoDB",
          "Exception",
          "Error",
          "caused by",
          "injected",
          "attempt",
          " at ",
        ];
        for (const leak of [...words, stack.apiKey, hashApiKey(stack.apiKey)]) {
          expect(answer.text).not.toContain(leak);
        }
        // Many attempts over most of the budget, then given up before the Lambda timeout; the
        // answer's way back takes longer on a busy machine (test/support/speed.ts).
        expect(faultsInjected).toBeGreaterThan(3);
        expect(elapsed).toBeGreaterThan(lambdaTimeoutMs / 2);
        expect(elapsed).toBeLessThan(lambdaTimeoutMs + scaled(2_000));

        await waitForLogLines(stack.server, linesBefore + 1);
        const line = logEntries(stack.server)[linesBefore];
        expect(line).toMatchObject({
          status: 503,
          code: "service_unavailable",
          route: request === "create" ? "POST /v1/categories" : "GET /v1/categories",
        });
        expect(line?.detail).toContain(`StoreUnavailableError: DynamoDB ${operation ?? "GetItem"}`);
        expect(line?.detail).toContain(cause);
        expect(line?.latencyMs).toBeLessThanOrEqual(lambdaTimeoutMs);
        expect(typeof line?.requestId).toBe("string");

        // The store is back: only the category answered 201 is listed.
        const listed = await listCategories(stack.baseUrl, stack.apiKey);
        expectConsistent([before.json<Category>()], listed);
        const figures = { requests: stack.server.logLines.length, faultsInjected, elapsed };
        console.info(`[reliability] outlasting: ${label}: ${JSON.stringify(figures)}`);
      } finally {
        await stack.stop();
      }
    },
  );
});
