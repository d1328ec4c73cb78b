/**
 * Property-based hostile input against listCategories, invoked directly with generated API
 * Gateway (payload 2.0) events: every kind of wrong Authorization value around one valid key,
 * odd header spellings and Accept-Encoding values, and bodies it must ignore. The invariants of
 * every answer are checked by the rig (test/support/hostile/handlerRig.ts), and in its afterAll
 * what hostile requests leave behind: the store holds exactly what the 201s returned, and one log
 * line per invocation, none holding the key or its hash; here also when the store fails while
 * the key is checked.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Category } from "../../../../lib/category.ts";
import { hashApiKey } from "../../../../lib/repositories/apiKeys.ts";
import { bodyText, loadEvent } from "../../../functions/harness.ts";
import { bodyArb } from "../../../support/hostile/bodies.ts";
import {
  commonArbs,
  presentedBy,
  scaledRuns,
  useHostileHandlers,
  withBody,
} from "../../../support/hostile/handlerRig.ts";
import { expectNoSecretIn } from "../../../support/hostile/invariants.ts";

const runs = scaledRuns({ list: 600 });
const rig = useHostileHandlers();

describe("listCategories: any Authorization, Accept-Encoding, headers or body: 200 only for the valid key, never a 5xx, no key echoed or logged", () => {
  it(`holds for ${runs.list} generated requests`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ ...commonArbs(rig.key), body: fc.option(bodyArb, { nil: undefined }) }),
        async (input) => {
          const event = rig.withHeaders(loadEvent("list-ok.json"), input);
          if (input.body) withBody(event, input.body);
          const { response } = await rig.serve(rig.list(), event, presentedBy(input));
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

describe("a store failure while checking the key is logged for the operator without the key or its hash", () => {
  it("answers 500 in the Error shape; the log's detail names the failure, not the key", async () => {
    rig.harness.failCalls("GetItem");
    try {
      const event = loadEvent("list-ok.json");
      // A key the verifier has not cached, so it must be looked up.
      const unknown = `petstore_${"Zq9".repeat(14)}x`;
      event.headers.authorization = `Bearer ${unknown}`;
      const { response, logLines } = await rig.invokeUnchecked(rig.list(), event);
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
