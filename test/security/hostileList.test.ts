/**
 * Property-based hostile input against listCategories, invoked directly with generated API
 * Gateway (payload 2.0) events built from the sample events and then mutated: every kind of wrong
 * Authorization value around one valid key, odd header spellings, Accept-Encoding values and
 * bodies. Whatever the input: 200 only for the valid key, never a 5xx, the invariants of
 * test/support/hostileHandlers.ts on every answer, one log line per invocation without the key or
 * its hash, and a store failure logged for the operator without them either.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hashApiKey } from "../../lib/repositories/apiKeys.ts";
import type { Category } from "../../lib/repositories/categories.ts";
import { bodyText, loadEvent } from "../functions/harness.ts";
import { bodyArb } from "../support/hostile/bodies.ts";
import { createCaseArbs, checkCreate } from "../support/hostile/createCases.ts";
import { commonArbs, presentedBy, withBody } from "../support/hostile/events.ts";
import { expectNoSecretIn } from "../support/hostile/invariants.ts";
import { scaledRuns, useHostileHandlers } from "../support/hostileHandlers.ts";

const runs = scaledRuns({
  list: 600,
  /** Mixed lists and creates, counted against the log. */
  logged: 200,
});

const rig = useHostileHandlers("lists");
const handlers = rig.handlers;
const common = commonArbs(rig.key);
const arbs = createCaseArbs(rig.key);
const check = checkCreate(rig);

describe("listCategories: any Authorization, Accept-Encoding, headers or body: 200 only for the valid key, never a 5xx, no key echoed or logged", () => {
  it(`holds for ${runs.list} generated requests`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ ...common, body: fc.option(bodyArb, { nil: undefined }) }),
        async (input) => {
          const event = rig.withHeaders(loadEvent("list-ok.json"), input);
          if (input.body) withBody(event, input.body);
          const { response } = await rig.serve(handlers().list, event, presentedBy(input));
          expect(response.statusCode).toBe(input.auth.verdict === "accept" ? 200 : 401);
          if (response.statusCode === 200) {
            const categories = JSON.parse(bodyText(response)) as Category[];
            const ids = categories.map((category) => category.id);
            expect(ids).toEqual([...ids].sort((a, b) => a - b));
          }
        },
      ),
      { numRuns: runs.list },
    );
  });
});

describe("every invocation writes one log line, and none holds the key or its hash", () => {
  it(`holds for ${runs.logged} generated lists and creates`, async () => {
    const linesBefore = rig.harness.logLines.length;
    const casesBefore = rig.casesRun();
    await fc.assert(
      fc.asyncProperty(fc.boolean(), arbs.any, async (listing, input) => {
        if (listing)
          await rig.serve(
            handlers().list,
            rig.withHeaders(loadEvent("list-ok.json"), input),
            presentedBy(input),
          );
        else await check(input);
      }),
      { numRuns: runs.logged },
    );
    const lines = rig.harness.logLines.slice(linesBefore);
    expect(lines).toHaveLength(rig.casesRun() - casesBefore);
    expect(lines.length).toBeGreaterThanOrEqual(runs.logged);
    for (const line of lines) expectNoSecretIn(line, rig.keySecrets);
  });
});

describe("a store failure while checking the key is logged for the operator without the key or its hash", () => {
  it("answers 500 in the Error shape; the log's detail names the failure, not the key", async () => {
    rig.harness.failCalls("GetItem");
    try {
      const event = loadEvent("list-ok.json");
      // A key the verifier has not cached, so it must be looked up.
      const unknown = `petstore_${"Zq9".repeat(14)}x`;
      event.headers.authorization = `Bearer ${unknown}`;
      const { response, logLines } = await rig.invokeUnchecked(handlers().list, event);
      expect(response).toBeApiError(500);
      const line = JSON.parse(logLines[0] ?? "{}") as { detail?: string };
      expect(line.detail).toMatch(/ValidationException/);
      const secrets = [...rig.keySecrets, unknown, hashApiKey(unknown)];
      expectNoSecretIn(`${response.body}${JSON.stringify(response.headers)}`, secrets);
      expectNoSecretIn(logLines.join("\n"), secrets);
    } finally {
      rig.harness.failCalls(undefined);
    }
  });
});
