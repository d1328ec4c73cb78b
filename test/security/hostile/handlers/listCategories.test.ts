/**
 * Property-based hostile input against listCategories, invoked directly with generated API
 * Gateway (payload 2.0) events: every kind of wrong Authorization value around one valid key,
 * odd header spellings and Accept-Encoding values, and bodies it must ignore. The invariants of
 * every answer are checked by the rig (test/support/hostile/handlerRig.ts).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Category } from "../../../../lib/category.ts";
import { bodyText, loadEvent } from "../../../functions/harness.ts";
import { bodyArb } from "../../../support/hostile/bodies.ts";
import {
  commonArbs,
  presentedBy,
  scaledRuns,
  useHostileHandlers,
  withBody,
} from "../../../support/hostile/handlerRig.ts";

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
