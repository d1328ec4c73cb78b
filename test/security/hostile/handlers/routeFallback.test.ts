/**
 * Property-based hostile input against the route fallback: any path (odd segments, the key in
 * the path, encoded dots and slashes) and method, with any headers and body, on `$default` and
 * on the named-but-unspecified routes. The invariants of every answer are checked by the rig.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fallbackCaseArb, fallbackEvent, knownPathOf } from "../../../support/hostile/cases.ts";
import {
  presentedBy,
  scaledRuns,
  useHostileHandlers,
} from "../../../support/hostile/handlerRig.ts";

const runs = scaledRuns({ fallback: 900 });
const rig = useHostileHandlers();

describe("routeFallback: 404 / 405 before any key, 401 or 501 after it, on any path, method, header or body", () => {
  it(`holds for ${runs.fallback} generated requests`, async () => {
    await fc.assert(
      fc.asyncProperty(fallbackCaseArb(rig.key), async (input) => {
        const { response } = await rig.serve(
          rig.fallback(),
          fallbackEvent(rig, input),
          // Path segments as long as a key; shorter runs ("categories") are the route's own words.
          presentedBy(input, ...input.path.split("/").filter((part) => part.length >= 20)),
        );
        if (input.route !== "$default") {
          expect(response.statusCode).toBe(input.auth.verdict === "accept" ? 501 : 401);
          if (input.route === "GET /v1/pets/{petId}") {
            expect(response.headers.deprecation).toMatch(/^@\d+$/);
          }
          return;
        }
        const known = knownPathOf(input.path);
        expect(response.statusCode).toBe(known ? 405 : 404);
        if (known) expect(response.headers.allow).toBe(known.allow);
      }),
      {
        numRuns: runs.fallback,
        // Found by a run: a `?` sent as `%3F` is part of the path the gateway hands over, not a
        // query's start (the pet's id is "?a"): 401 for a bad key, as for any pet.
        examples: [
          [
            {
              auth: { value: "Bearer p", verdict: "refuse", label: "truncated" },
              authName: "authorization",
              acceptEncoding: undefined,
              extra: {},
              route: "GET /v1/pets/{petId}",
              method: "GET",
              path: "/v1/pets/%3fa",
              body: undefined,
            },
          ],
        ],
      },
    );
  });
});
