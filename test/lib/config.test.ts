import { describe, expect, it } from "vitest";
import { ConfigError, readConfig } from "../../lib/config.ts";

const minimal = { TABLE_NAME: "petstore-staging", AWS_REGION: "eu-west-1" };

describe("configuration is read once and fails fast, naming the variable", () => {
  it("applies defaults for everything optional", () => {
    expect(readConfig(minimal)).toEqual({
      stage: "local",
      tableName: "petstore-staging",
      region: "eu-west-1",
      dynamoEndpoint: undefined,
      keyCacheMs: 30_000,
      storeAttemptTimeoutMs: 2000,
      petsDeprecatedAt: new Date("2026-01-01T00:00:00Z"),
      petsSunsetAt: undefined,
      defaultRateLimit: { rate: "100/s", perSecond: 100, burst: 200 },
      allowLegacyKeys: true,
    });
  });

  it.each([
    [{ AWS_REGION: "x" }, /TABLE_NAME must be set/],
    [{ TABLE_NAME: "t" }, /AWS_DEFAULT_REGION must be set/],
    [{ ...minimal, DYNAMODB_ENDPOINT: "not a url" }, /DYNAMODB_ENDPOINT must be a URL/],
    [
      { ...minimal, API_KEY_CACHE_SECONDS: "61" },
      /API_KEY_CACHE_SECONDS must be an integer from 0 to 60/,
    ],
    [{ ...minimal, STORE_ATTEMPT_TIMEOUT_MS: "fast" }, /STORE_ATTEMPT_TIMEOUT_MS/],
    [{ ...minimal, PETS_SUNSET_AT: "someday" }, /PETS_SUNSET_AT must be an ISO 8601 date/],
    [{ ...minimal, RATE_LIMIT: "50/hour" }, /RATE_LIMIT .*<n>\/s or <n>\/min/],
    [{ ...minimal, RATE_LIMIT_BURST: "0" }, /RATE_LIMIT_BURST: the burst must be a whole number/],
    [
      { ...minimal, ALLOW_LEGACY_KEYS: "yes" },
      /ALLOW_LEGACY_KEYS must be true or false, got "yes"/,
    ],
  ])("refuses %j", (env, message) => {
    expect(() => readConfig(env)).toThrow(ConfigError);
    expect(() => readConfig(env)).toThrow(message);
  });

  it("reads the sunset date and the key cache time", () => {
    const config = readConfig({
      ...minimal,
      PETS_SUNSET_AT: "2027-06-30T00:00:00Z",
      API_KEY_CACHE_SECONDS: "0",
    });
    expect(config.petsSunsetAt?.toISOString()).toBe("2027-06-30T00:00:00.000Z");
    expect(config.keyCacheMs).toBe(0);
  });
});

describe("keys not of the format are looked up only where the stage allows them", () => {
  it("unset: on the local stage only (its sample events and PETSTORE_API_KEY), never a deployed one", () => {
    expect(readConfig(minimal).allowLegacyKeys).toBe(true);
    expect(readConfig({ ...minimal, STAGE: "staging" }).allowLegacyKeys).toBe(false);
    expect(readConfig({ ...minimal, STAGE: "production" }).allowLegacyKeys).toBe(false);
  });

  it("ALLOW_LEGACY_KEYS says so either way", () => {
    const on = { ...minimal, STAGE: "production", ALLOW_LEGACY_KEYS: "true" };
    expect(readConfig(on).allowLegacyKeys).toBe(true);
    expect(readConfig({ ...minimal, ALLOW_LEGACY_KEYS: " false " }).allowLegacyKeys).toBe(false);
  });
});
