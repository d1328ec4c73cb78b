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

/** A key stored in `lookup` (its record's fields as given, else a valid key's): returns the key. */
function stored(
  lookup: CountingLookup,
  fields: Partial<ApiKeyRecord> = {},
  key = generateKey("local"),
): string {
  lookup.records.set(hashApiKey(key), {
    ...{ keyId: "key_1", label: "t", createdAt: "2026-01-01T00:00:00Z", scopes: allScopes },
    bucket: "key_1",
    ...fields,
  });
  return key;
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
    const key = stored(lookup);
    const verifier = new ApiKeyVerifier(lookup, () => now, 30_000);
    await expect(verifier.authenticate(`Bearer ${key}`, soon())).resolves.toMatchObject({
      keyId: "key_1",
    });
    stored(lookup, { revokedAt: "2026-01-01T00:00:01Z" }, key);
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
    const key = stored(lookup, { expiresAt: "2026-01-01T00:00:10Z" });
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
    const key = stored(lookup);
    const verifier = new ApiKeyVerifier(lookup, () => now, 10 * 60_000);
    await verifier.authenticate(`Bearer ${key}`, soon());
    now = 60_000;
    await verifier.authenticate(`Bearer ${key}`, soon());
    expect(lookup.lookups).toBe(2);
  });
});

describe("a key's own rate limit travels with it; without a readable one, the stage default", () => {
  async function principalWith(limits: Partial<ApiKeyRecord>): Promise<Principal> {
    const lookup = new CountingLookup();
    const key = stored(lookup, limits);
    return new ApiKeyVerifier(lookup, Date.now, 30_000).authenticate(`Bearer ${key}`, soon());
  }

  // With no limit, half of one, or one that does not parse: the stage's default, not an error.
  it.each([
    [
      { rate: "600/min", burst: 20 },
      { rate: "600/min", perSecond: 10, burst: 20 },
    ],
    [{}, undefined],
    [{ rate: "50/s" }, undefined],
    [{ burst: 10 }, undefined],
    [{ rate: "fast", burst: 10 }, undefined],
    [{ rate: "50/s", burst: 0 }, undefined],
  ])("a key stored with %j carries %j", async (limits, expected) => {
    expect((await principalWith(limits)).rateLimit).toEqual(expected);
  });
});

describe("the key cache stays bounded and a flood of unknown keys cannot push a valid key out", () => {
  it("12,000 distinct unknown keys: a valid key's verdict is still cached", async () => {
    const lookup = new CountingLookup();
    const verifier = new ApiKeyVerifier(lookup, () => 0, 30_000);
    const valid = stored(lookup, { keyId: "key_valid" });
    await verifier.authenticate(`Bearer ${valid}`, soon());
    for (let i = 0; i < 12_000; i++) await refusal(verifier, `Bearer ${generateKey("local")}`);
    expect(lookup.lookups).toBe(12_001);
    await expect(verifier.authenticate(`Bearer ${valid}`, soon())).resolves.toMatchObject({
      keyId: "key_valid",
    });
    expect(lookup.lookups).toBe(12_001);
  });

  it("full, it drops the least recently used verdict, never the whole cache", async () => {
    const lookup = new CountingLookup();
    const verifier = new ApiKeyVerifier(lookup, () => 0, 30_000, "local", { cacheEntries: 3 });
    const [a, b, c, d] = ["a", "b", "c", "d"].map((id) => stored(lookup, { keyId: `key_${id}` }));
    const use = (key: string | undefined) => verifier.authenticate(`Bearer ${key ?? ""}`, soon());
    for (const key of [a, b, c]) await use(key);
    await use(a); // a is now the most recently used: b the least
    await use(d); // the fourth: b goes
    expect(lookup.lookups).toBe(4);
    for (const key of [a, c, d]) await use(key);
    expect(lookup.lookups).toBe(4);
    await use(b);
    expect(lookup.lookups).toBe(5);
  });

  it("unknown keys have a cache of their own, as bounded", async () => {
    const lookup = new CountingLookup();
    const verifier = new ApiKeyVerifier(lookup, () => 0, 30_000, "local", { cacheEntries: 2 });
    const junk = Array.from({ length: 3 }, () => generateKey("local"));
    for (const key of junk) await refusal(verifier, `Bearer ${key}`);
    await refusal(verifier, `Bearer ${junk[2] ?? ""}`);
    await refusal(verifier, `Bearer ${junk[1] ?? ""}`);
    expect(lookup.lookups).toBe(3);
    await refusal(verifier, `Bearer ${junk[0] ?? ""}`); // the least recently used: looked up again
    expect(lookup.lookups).toBe(4);
  });
});

describe("a token not of the key format is refused unread, unless the stage allows older keys", () => {
  it("refused with 401 and no lookup by default", async () => {
    const lookup = new CountingLookup();
    const verifier = new ApiKeyVerifier(lookup, () => 0, 30_000, "staging");
    expect(await refusal(verifier, "Bearer petstore_issued-before-the-format")).toMatchObject({
      status: 401,
    });
    expect(lookup.lookups).toBe(0);
  });

  it("looked up where the stage allows keys issued before the format", async () => {
    const lookup = new CountingLookup();
    const legacy = stored(lookup, { keyId: "key_old" }, "petstore_issued-before-the-format");
    const verifier = new ApiKeyVerifier(lookup, () => 0, 30_000, "staging", { legacyKeys: true });
    await expect(verifier.authenticate(`Bearer ${legacy}`, soon())).resolves.toMatchObject({
      keyId: "key_old",
      legacyKey: true,
    });
    expect(lookup.lookups).toBe(1);
    // A key of the format, on the same stage: not one to wait for before turning them off.
    const current = stored(lookup, { keyId: "key_new" }, generateKey("staging"));
    const principal = await verifier.authenticate(`Bearer ${current}`, soon());
    expect(principal.keyId).toBe("key_new");
    expect(principal).not.toHaveProperty("legacyKey");
  });
});

describe("unknown keys are remembered briefly, so a flood of one bad key is not a flood of reads", () => {
  it("reads an unknown key once per 5 seconds, and accepts it once it exists after that", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const lookup = new CountingLookup();
    const key = generateKey("local");
    const verifier = new ApiKeyVerifier(lookup, () => now, 30_000);
    expect(await refusal(verifier, `Bearer ${key}`)).toMatchObject({ status: 401 });
    stored(lookup, { keyId: "key_late" }, key);
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
