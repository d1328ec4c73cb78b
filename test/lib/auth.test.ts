import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { allScopes } from "../../lib/scopes.ts";
import { hashApiKey } from "../../lib/repositories/apiKeys.ts";
import { generateKey } from "../../lib/keyFormat.ts";
import type { ApiKeyRecord } from "../../lib/repositories/apiKeys.ts";
import { ApiKeyVerifier, parseAuthorization } from "../../lib/auth.ts";
import type { KeyLookup, Principal } from "../../lib/auth.ts";
import { ApiError } from "../../lib/errors.ts";
import { soon } from "../support/dynamo.ts";

const b64tokenChar = fc.constantFrom(
  ..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/".split(""),
);
const b64token = fc
  .tuple(fc.array(b64tokenChar, { minLength: 1, maxLength: 80 }), fc.nat({ max: 2 }))
  .map(([chars, pad]) => chars.join("") + "=".repeat(pad));

describe("the Authorization header is 'Bearer <b64token>', scheme case-insensitive", () => {
  it("extracts the token whatever the scheme's case and spacing", () => {
    const scheme = fc.constantFrom("Bearer", "bearer", "BEARER", "bEaReR");
    fc.assert(
      fc.property(scheme, fc.integer({ min: 1, max: 3 }), b64token, (name, spaces, token) => {
        expect(parseAuthorization(`${name}${" ".repeat(spaces)}${token}`)).toEqual({
          kind: "bearer",
          token,
        });
      }),
    );
  });

  it("treats an absent, empty or token-less header as a missing key", () => {
    for (const header of [undefined, "", "   ", "Bearer", "bearer "]) {
      expect(parseAuthorization(header)).toEqual({ kind: "missing" });
    }
  });

  it("treats other schemes as not Bearer, even one whose name ends in Bearer (RFC 7235)", () => {
    for (const header of ["Basic dXNlcjpwYXNz", "Token abc", "abc", "Bearerabc", "XBearer"]) {
      expect(parseAuthorization(header)).toEqual({ kind: "not_bearer" });
    }
  });

  it("never throws and never returns a token with characters outside b64token", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (header) => {
        const parsed = parseAuthorization(header);
        if (parsed.kind === "bearer" && parsed.token !== "") {
          expect(parsed.token).toMatch(/^[A-Za-z0-9\-._~+/]+=*$/);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("reads 'Bearer <non-b64token>' as a presented key that cannot be valid", () => {
    expect(parseAuthorization("Bearer not a token")).toEqual({ kind: "bearer", token: "" });
    expect(parseAuthorization("Bearer ab\u00e9cd")).toEqual({ kind: "bearer", token: "" });
  });
});

class CountingLookup implements KeyLookup {
  readonly records = new Map<string, ApiKeyRecord>();
  lookups = 0;
  find(keyHash: string): Promise<ApiKeyRecord | undefined> {
    this.lookups++;
    return Promise.resolve(this.records.get(keyHash));
  }
}

async function refusal(verifier: ApiKeyVerifier, header: string | undefined): Promise<ApiError> {
  try {
    await verifier.authenticate(header, soon());
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected a 401");
}

describe("a 401 says whether the key was missing or not accepted", () => {
  const lookup = new CountingLookup();
  const verifier = new ApiKeyVerifier(lookup, Date.now, 30_000);

  it("missing key: realm only, no error parameter", async () => {
    const error = await refusal(verifier, undefined);
    expect(error.status).toBe(401);
    expect(error.headers["www-authenticate"]).toBe('Bearer realm="petstore"');
    expect(error.message).toMatch(/required/);
  });

  it("unknown key: invalid_token, and the message reveals nothing about keys", async () => {
    const error = await refusal(verifier, `Bearer ${generateKey("local")}`);
    expect(error.headers["www-authenticate"]).toBe(
      'Bearer realm="petstore", error="invalid_token"',
    );
    expect(error.message).toBe("the API key was not accepted");
  });
});

describe("revoked and expired keys stop working within the cache window", () => {
  it("refuses a revoked key once the cached verdict is older than the cache time", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const lookup = new CountingLookup();
    const key = generateKey("local");
    lookup.records.set(hashApiKey(key), {
      keyId: "key_1",
      label: "t",
      createdAt: "2026-01-01T00:00:00Z",
      scopes: allScopes,
    });
    const verifier = new ApiKeyVerifier(lookup, () => now, 30_000);
    await expect(verifier.authenticate(`Bearer ${key}`, soon())).resolves.toMatchObject({
      keyId: "key_1",
    });
    lookup.records.set(hashApiKey(key), {
      keyId: "key_1",
      label: "t",
      createdAt: "x",
      scopes: allScopes,
      revokedAt: "2026-01-01T00:00:01Z",
    });
    now += 29_000;
    await expect(verifier.authenticate(`Bearer ${key}`, soon())).resolves.toBeDefined();
    expect(lookup.lookups).toBe(1);
    now += 1_001;
    await expect(verifier.authenticate(`Bearer ${key}`, soon())).rejects.toMatchObject({
      status: 401,
    });
  });

  it("refuses an expired key at once, even while cached", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const lookup = new CountingLookup();
    const key = generateKey("local");
    lookup.records.set(hashApiKey(key), {
      keyId: "k",
      label: "t",
      createdAt: "x",
      scopes: allScopes,
      expiresAt: "2026-01-01T00:00:10Z",
    });
    const verifier = new ApiKeyVerifier(lookup, () => now, 30_000);
    await expect(verifier.authenticate(`Bearer ${key}`, soon())).resolves.toBeDefined();
    now += 10_000;
    await expect(verifier.authenticate(`Bearer ${key}`, soon())).rejects.toMatchObject({
      status: 401,
    });
  });

  it("caps the cache at 60 seconds whatever it is configured to", async () => {
    let now = 0;
    const lookup = new CountingLookup();
    const key = generateKey("local");
    lookup.records.set(hashApiKey(key), {
      keyId: "k",
      label: "t",
      createdAt: "x",
      scopes: allScopes,
    });
    const verifier = new ApiKeyVerifier(lookup, () => now, 10 * 60_000);
    await verifier.authenticate(`Bearer ${key}`, soon());
    now = 60_000;
    await verifier.authenticate(`Bearer ${key}`, soon());
    expect(lookup.lookups).toBe(2);
  });
});

describe("a key's own rate limit travels with it; without a readable one, the stage default", () => {
  const record: ApiKeyRecord = {
    keyId: "key_limits",
    label: "t",
    createdAt: "2026-01-01T00:00:00Z",
    scopes: allScopes,
  };

  async function principalWith(limits: Partial<ApiKeyRecord>): Promise<Principal> {
    const lookup = new CountingLookup();
    const key = generateKey("local");
    lookup.records.set(hashApiKey(key), { ...record, ...limits });
    return new ApiKeyVerifier(lookup, Date.now, 30_000).authenticate(`Bearer ${key}`, soon());
  }

  it("a key with a rate and a burst carries them, parsed", async () => {
    expect((await principalWith({ rate: "600/min", burst: 20 })).rateLimit).toEqual({
      rate: "600/min",
      perSecond: 10,
      burst: 20,
    });
  });

  it("a key with no limit, or only half of one, gets the stage's default", async () => {
    expect((await principalWith({})).rateLimit).toBeUndefined();
    expect((await principalWith({ rate: "50/s" })).rateLimit).toBeUndefined();
    expect((await principalWith({ burst: 10 })).rateLimit).toBeUndefined();
  });

  it("a stored limit that does not parse gets the stage's default, not an error", async () => {
    expect((await principalWith({ rate: "fast", burst: 10 })).rateLimit).toBeUndefined();
    expect((await principalWith({ rate: "50/s", burst: 0 })).rateLimit).toBeUndefined();
  });
});

describe("the key cache stays bounded under a flood of distinct unknown keys", () => {
  it("forgets what it holds once it has 10,000 keys, and so looks a key up again", async () => {
    const lookup = new CountingLookup();
    const verifier = new ApiKeyVerifier(lookup, () => 0, 30_000);
    const flood = Array.from({ length: 10_000 }, (_, i) => `flood-${i}`);
    for (const key of flood) await refusal(verifier, `Bearer ${key}`);
    expect(lookup.lookups).toBe(10_000);
    // Still remembered: the cache is full but not yet over.
    await refusal(verifier, "Bearer flood-0");
    expect(lookup.lookups).toBe(10_000);
    await refusal(verifier, "Bearer flood-new");
    expect(lookup.lookups).toBe(10_001);
    expect(await refusal(verifier, "Bearer flood-0")).toMatchObject({ status: 401 });
    expect(lookup.lookups).toBe(10_002);
  });
});

describe("unknown keys are remembered briefly, so a flood of one bad key is not a flood of reads", () => {
  it("reads an unknown key once per 5 seconds, and accepts it once it exists after that", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const lookup = new CountingLookup();
    const key = generateKey("local");
    const verifier = new ApiKeyVerifier(lookup, () => now, 30_000);
    expect(await refusal(verifier, `Bearer ${key}`)).toMatchObject({ status: 401 });
    lookup.records.set(hashApiKey(key), {
      keyId: "key_late",
      label: "t",
      createdAt: "2026-01-01T00:00:00Z",
      scopes: allScopes,
    });
    now += 4_999;
    expect(await refusal(verifier, `Bearer ${key}`)).toMatchObject({ status: 401 });
    expect(lookup.lookups).toBe(1);
    now += 1;
    await expect(verifier.authenticate(`Bearer ${key}`, soon())).resolves.toMatchObject({
      keyId: "key_late",
    });
    expect(lookup.lookups).toBe(2);
  });
});
