/**
 * What hostile requests leave behind, besides their answers: the store gains exactly what the
 * 201s returned, every invocation writes one log line, and no log line holds the key or its
 * hash, not even when the store fails while the key is checked.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hashApiKey } from "../../../../lib/repositories/apiKeys.ts";
import { loadEvent } from "../../../functions/harness.ts";
import { checkCreate, createBodyCaseArb, createCaseArb } from "../../../support/hostile/cases.ts";
import {
  presentedBy,
  scaledRuns,
  useHostileHandlers,
} from "../../../support/hostile/handlerRig.ts";
import { expectNoSecretIn } from "../../../support/hostile/invariants.ts";

const runs = scaledRuns({
  /** Creates (accepted key, any body) whose 201s must be exactly what the store gained. */
  ledger: 300,
  /** Mixed lists and creates, counted against the log. */
  logged: 200,
});
const rig = useHostileHandlers();
const { harness, answered201, keySecrets } = rig;

describe("nothing is stored but what was answered 201", () => {
  it(`the store gains exactly the categories the 201s of ${runs.ledger} generated creates returned`, async () => {
    const before = new Set((await harness.stored()).map((category) => category.id));
    const answeredBefore = new Set(answered201.keys());
    await fc.assert(
      fc.asyncProperty(createBodyCaseArb(rig.key), (input) => checkCreate(rig, input)),
      { numRuns: runs.ledger },
    );
    const gained = (await harness.stored()).filter((category) => !before.has(category.id));
    const answered = [...answered201.values()].filter(({ id }) => !answeredBefore.has(id));
    expect(gained).toEqual(answered.sort((a, b) => a.id - b.id));
    expect(answered.length).toBeGreaterThan(0);
  });
});

describe("every invocation writes one log line, and none holds the key or its hash", () => {
  it(`holds for ${runs.logged} generated lists and creates`, async () => {
    const linesBefore = harness.logLines.length;
    const casesBefore = rig.casesRun();
    await fc.assert(
      fc.asyncProperty(fc.boolean(), createCaseArb(rig.key), async (listing, input) => {
        if (listing) {
          const event = rig.withHeaders(loadEvent("list-ok.json"), input);
          await rig.serve(rig.list(), event, presentedBy(input));
        } else await checkCreate(rig, input);
      }),
      { numRuns: runs.logged },
    );
    const lines = harness.logLines.slice(linesBefore);
    expect(lines).toHaveLength(rig.casesRun() - casesBefore);
    expect(lines.length).toBeGreaterThanOrEqual(runs.logged);
    for (const line of lines) expectNoSecretIn(line, keySecrets);
  });
});

describe("a store failure while checking the key is logged for the operator without the key or its hash", () => {
  it("answers 500 in the Error shape; the log's detail names the failure, not the key", async () => {
    harness.failCalls("GetItem");
    try {
      const event = loadEvent("list-ok.json");
      // A key the verifier has not cached, so it must be looked up.
      const unknown = `petstore_${"Zq9".repeat(14)}x`;
      event.headers.authorization = `Bearer ${unknown}`;
      const { response, logLines } = await rig.invokeUnchecked(rig.list(), event);
      expect(response).toBeApiError(500);
      const line = JSON.parse(logLines[0] ?? "{}") as { detail?: string };
      expect(line.detail).toMatch(/ValidationException/);
      const secrets = [...keySecrets, unknown, hashApiKey(unknown)];
      expectNoSecretIn(`${response.body}${JSON.stringify(response.headers)}`, secrets);
      expectNoSecretIn(logLines.join("\n"), secrets);
    } finally {
      harness.failCalls(undefined);
    }
  });
});
