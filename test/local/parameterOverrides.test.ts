/**
 * `npm start -- --parameter-overrides Key=Value …` (as `sam local start-api` takes them): the
 * functions' environment is the template's (Globals and the function's own Variables, `!Ref`
 * of a parameter resolved to its override or Default), so PetsSunsetAt flips the pets route to
 * 410 locally as it does deployed. A parameter the template lacks ends the start in one line.
 */
import { describe, expect, it } from "vitest";
import {
  parseParameterOverrides,
  templateFunctionEnv,
  TemplateParameterError,
} from "../../local/template.ts";
import { send } from "../support/client.ts";
import { useLocalServer } from "../support/localServer.ts";
import { runScript } from "./processes.ts";

const sunset = "2020-01-01T00:00:00Z";
const server = useLocalServer({ args: ["--parameter-overrides", `PetsSunsetAt=${sunset}`] });

describe("a template parameter given on the command line reaches the functions", () => {
  it("PetsSunsetAt in the past: the pets route answers 410 gone with its Sunset", async () => {
    const answer = await send(server.baseUrl, { path: "/v1/pets/7", key: server.apiKey });
    expect(answer.status).toBe(410);
    expect(answer.json()).toMatchObject({ code: "gone", status: 410 });
    expect(answer.headers.sunset).toBe(new Date(sunset).toUTCString());
    expect(answer.headers.deprecation).toMatch(/^@\d+$/);
  });
});

describe("overrides are read as SAM reads them", () => {
  it("takes Key=Value pairs, several in one argument, and SAM's long form", () => {
    expect(
      parseParameterOverrides([
        "PetsSunsetAt=2030-01-01T00:00:00Z LogRetentionDays=30",
        "ParameterKey=PetsDeprecatedAt,ParameterValue=2025-01-01T00:00:00Z",
      ]),
    ).toEqual({
      PetsSunsetAt: "2030-01-01T00:00:00Z",
      LogRetentionDays: "30",
      PetsDeprecatedAt: "2025-01-01T00:00:00Z",
    });
  });

  it("refuses a parameter the template does not declare, or a value it does not allow", () => {
    expect(() => parseParameterOverrides(["PetSunsetAt=x"])).toThrow(TemplateParameterError);
    expect(() => parseParameterOverrides(["LogRetentionDays=3"])).toThrow(/one of 7, 14/);
    expect(() => parseParameterOverrides(["no-equals"])).toThrow(/Key=Value/);
  });

  it("holds a value to the parameter's AllowedPattern, whole, as CloudFormation does", () => {
    for (const value of ["", "2027-01-01", "2027-01-01T00:00:00Z", "2027-01-01T02:00+02:00"]) {
      expect(parseParameterOverrides([`PetsSunsetAt=${value}`])).toEqual({ PetsSunsetAt: value });
    }
    for (const value of ["garbage", "2027-01-01T00:00:00Zjunk", "x2027-01-01"]) {
      expect(() => parseParameterOverrides([`PetsSunsetAt=${value}`])).toThrow(
        `PetsSunsetAt must be empty, or an ISO 8601 date or time such as 2027-01-01T00:00:00Z, got "${value}"`,
      );
    }
    expect(() => parseParameterOverrides(["PetsDeprecatedAt="])).toThrow(/ISO 8601/);
  });

  it("resolves the function environment from Defaults, and from overrides where given", () => {
    const plain = templateFunctionEnv("RouteFallbackFunction");
    expect(plain.defaults).toMatchObject({ PETS_SUNSET_AT: "", API_KEY_CACHE_SECONDS: "30" });
    expect(plain.defaults).not.toHaveProperty("STAGE"); // Stage has no Default: "local" then
    expect(plain.overridden).toEqual({});
    const given = templateFunctionEnv("RouteFallbackFunction", { PetsSunsetAt: sunset });
    expect(given.overridden).toEqual({ PETS_SUNSET_AT: sunset });
  });

  it.each([
    ["Nope=1", /--parameter-overrides: infra\/template.yaml has no parameter Nope/],
    ["PetsSunsetAt=garbage", /--parameter-overrides: PetsSunsetAt must be empty, or an ISO 8601/],
  ])("npm start ends in one line naming the parameter: %s", async (pair, said) => {
    const run = await runScript(
      "scripts/start.ts",
      ["--memory", "--parameter-overrides", pair],
      { ...process.env, PORT: "0" },
      30_000,
    );
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toMatch(said);
  });
});
