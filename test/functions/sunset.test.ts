/**
 * The pets route's sunset (contract: "Stability"): before PETS_SUNSET_AT (the template's
 * PetsSunsetAt) it answers 501, from that moment 410 gone, both after authentication and both
 * with its Deprecation and Sunset headers. Time is the container's one injected clock.
 */
import { describe, expect, it } from "vitest";
import type { Clock } from "../../lib/clock.ts";
import { expectContractHeaders, expectOneLogLine, loadEvent, useHarness } from "./harness.ts";

const harness = useHarness();
const hour = 3_600_000;
const sunset = new Date(Math.ceil((Date.now() + 24 * hour) / 1000) * 1000);

/** GET /v1/pets/42 on a container whose clock reads `offset` ms from the sunset. */
async function petsAt(offset: number, withKey = true) {
  // Held still, so that "1 ms before" stays before while the request runs.
  const now: Clock = () => sunset.getTime() + offset;
  const fallback = await harness.handler(
    "routeFallback",
    { PETS_SUNSET_AT: sunset.toISOString() },
    { now },
  );
  const event = loadEvent("pets-get.json");
  if (!withKey) delete event.headers.authorization;
  const invocation = await harness.invoke(fallback, event);
  expectOneLogLine(invocation, event);
  return invocation.response;
}

describe("the pets route answers 501 until its sunset and 410 gone from then on", () => {
  it("flips from 501 to 410 at the configured moment", async () => {
    expect(await petsAt(-1)).toBeApiError(501, "not_implemented");
    const gone = await petsAt(0);
    expect(gone).toBeApiError(410, "gone");
    expect(await petsAt(365 * 24 * hour)).toBeApiError(410, "gone");
  });

  it("carries Deprecation and Sunset on the 410, as on the 501", async () => {
    const gone = await petsAt(hour);
    expectContractHeaders(gone);
    expect(gone.headers.deprecation).toMatch(/^@\d+$/);
    expect(gone.headers.sunset).toBe(sunset.toUTCString());
    expect((JSON.parse(gone.body) as { message: string }).message).toContain(sunset.toISOString());
  });

  it("still authenticates first: no key after the sunset is 401, with the headers", async () => {
    const refused = await petsAt(hour, false);
    expect(refused).toBeApiError(401, "unauthorized");
    expect(refused.headers.sunset).toBe(sunset.toUTCString());
  });

  it("never answers 410 when no sunset is configured", async () => {
    const event = loadEvent("pets-get.json");
    const invocation = await harness.invoke(await harness.handler("routeFallback"), event);
    expect(invocation.response).toBeApiError(501, "not_implemented");
    expect(invocation.response.headers).not.toHaveProperty("sunset");
  });
});
