import { describe, expect, it } from "vitest";
import type { HttpEvent } from "../../lib/http/message.ts";
import { expectContractHeaders, expectOneLogLine, loadEvent, useHarness } from "./harness.ts";

const harness = useHarness();
// Every answer writes one JSON log line holding neither the key nor its hash (expectOneLogLine).
const fallback = async (event: HttpEvent, env: Record<string, string> = {}) => {
  const invocation = await harness.invoke(await harness.handler("routeFallback", env), event);
  expectOneLogLine(invocation, event);
  return invocation;
};
/** The sample key, no key, and a key that was never issued. */
const keyVariants = (name: string): [string, HttpEvent][] => {
  const noKey = loadEvent(name);
  delete noKey.headers.authorization;
  const badKey = loadEvent(name);
  badKey.headers.authorization = "Bearer petstore_not-a-key";
  return [
    ["the sample key", loadEvent(name)],
    ["no key", noKey],
    ["an unknown key", badKey],
  ];
};

describe("an unknown route answers 404 not_found, with or without a key", () => {
  it.each(keyVariants("unknown-route.json"))("with %s", async (_, event) => {
    const { response } = await fallback(event);
    expect(response).toBeApiError(404, "not_found");
    expect(response.body).not.toContain(event.rawPath);
    expect(response.headers).not.toHaveProperty("www-authenticate");
  });
});

describe("another method on /v1/categories answers 405 with Allow: GET, POST, with or without a key", () => {
  it.each(keyVariants("method-not-allowed.json"))("with %s", async (_, event) => {
    const { response } = await fallback(event);
    expect(response).toBeApiError(405, "method_not_allowed");
    expect(response.headers.allow).toBe("GET, POST");
  });
});

describe("the deprecated pets route answers 501 with Deprecation (and Sunset when configured), after authentication", () => {
  it("answers pets-get with 501 and an RFC 9745 Deprecation date, and no Sunset by default", async () => {
    const { response } = await fallback(loadEvent("pets-get.json"));
    expect(response).toBeApiError(501, "not_implemented");
    expect(response.headers.deprecation).toBe(`@${Date.parse("2026-01-01T00:00:00Z") / 1000}`);
    expect(response.headers).not.toHaveProperty("sunset");
  });

  it("adds an RFC 8594 Sunset header when PETS_SUNSET_AT is configured", async () => {
    const sunset = "2027-06-30T00:00:00Z";
    const { response } = await fallback(loadEvent("pets-get.json"), {
      PETS_SUNSET_AT: sunset,
      PETS_DEPRECATED_AT: "2026-03-01T00:00:00Z",
    });
    expect(response).toBeApiError(501, "not_implemented");
    expect(response.headers.deprecation).toBe(`@${Date.parse("2026-03-01T00:00:00Z") / 1000}`);
    expect(response.headers.sunset).toBe("Wed, 30 Jun 2027 00:00:00 GMT");
  });
});

describe("the store orders route answers 501, after authentication", () => {
  it("answers store-orders with 501 not_implemented and no deprecation headers", async () => {
    const { response } = await fallback(loadEvent("store-orders.json"));
    expect(response).toBeApiError(501, "not_implemented");
    expectContractHeaders(response);
    expect(response.headers).not.toHaveProperty("deprecation");
    expect(response.headers).not.toHaveProperty("sunset");
  });
});

describe("both named routes authenticate first: 401 with its challenge, without an accepted key", () => {
  it.each(
    ["pets-get.json", "store-orders.json"].flatMap((name) =>
      keyVariants(name)
        .slice(1)
        .map(([key, event]) => [name, key, event] as const),
    ),
  )("%s with %s", async (name, _, event) => {
    const { response } = await fallback(event);
    expect(response).toBeApiError(401, "unauthorized");
    expect(response.headers["www-authenticate"]).toBe(
      event.headers.authorization === undefined
        ? 'Bearer realm="petstore"'
        : 'Bearer realm="petstore", error="invalid_token"',
    );
    // The pets route stays marked deprecated on its 401.
    if (name === "pets-get.json") {
      expect(response.headers.deprecation).toBe(`@${Date.parse("2026-01-01T00:00:00Z") / 1000}`);
    }
  });
});
