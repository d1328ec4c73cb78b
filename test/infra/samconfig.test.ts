/**
 * infra/samconfig.toml against the template: each stage is its own stack and gives a complete,
 * valid parameter set; nothing in one stage's settings points at the other's.
 */
import { describe, expect, it } from "vitest";
import {
  parseParameterOverrides,
  parseSamconfig,
  readSamconfig,
  stageConfig,
  stages,
} from "../../scripts/stages.ts";
import { template } from "../support/templateResources.ts";

const declared = Object.entries(template.Parameters);

describe("samconfig.toml", () => {
  it("has a deploy section for exactly the known stages", () => {
    const sections = Object.keys(readSamconfig()).filter((name) => name !== "");
    expect(sections.sort()).toEqual(stages.map((stage) => `${stage}.deploy.parameters`).sort());
    expect(readSamconfig()[""]).toEqual({ version: 0.1 });
  });

  it.each(stages)("%s: its own stack, prefix and tags", (stage) => {
    const { stackName, deploy, parameters } = stageConfig(stage);
    expect(stackName).toBe(`petstore-${stage}`);
    expect(parameters.Stage).toBe(stage);
    expect(deploy.s3_prefix).toBe(`petstore-${stage}`);
    expect(deploy.tags).toBe(`project="petstore" stage="${stage}"`);
    expect(deploy.template_file).toBe("template.yaml");
    expect(String(deploy.capabilities).split(" ").sort()).toEqual([
      "CAPABILITY_AUTO_EXPAND",
      "CAPABILITY_IAM",
    ]);
    expect(deploy.fail_on_empty_changeset).toBe(false);
    expect(deploy.confirm_changeset).toBe(stage === "production");
    // Never skip CloudFormation's rollback of a failed deploy.
    expect(deploy.disable_rollback ?? false).toBe(false);
    expect(deploy.region).toMatch(/^[a-z]{2}(-[a-z]+)+-\d$/);
  });

  it.each(stages)("%s gives every parameter without a Default, and only known ones", (stage) => {
    const { parameters } = stageConfig(stage);
    const required = declared.filter(([, p]) => p.Default === undefined).map(([name]) => name);
    expect(required.filter((name) => !(name in parameters))).toEqual([]);
    const known = new Set(declared.map(([name]) => name));
    expect(Object.keys(parameters).filter((name) => !known.has(name))).toEqual([]);
  });

  it.each(stages)("%s: every value passes the parameter's constraints", (stage) => {
    const problems: string[] = [];
    for (const [name, value] of Object.entries(stageConfig(stage).parameters)) {
      const spec = template.Parameters[name] ?? {};
      const allowed = Array.isArray(spec.AllowedValues) ? spec.AllowedValues.map(String) : [];
      if (allowed.length > 0 && !allowed.includes(value)) {
        problems.push(`${name}=${value} is not one of ${allowed.join(", ")}`);
      }
      if (spec.Type === "Number") {
        const number = Number(value);
        if (value.trim() === "" || !Number.isFinite(number)) problems.push(`${name} not a number`);
        if (typeof spec.MinValue === "number" && number < spec.MinValue) {
          problems.push(`${name}=${value} < ${spec.MinValue}`);
        }
      }
      // For a CommaDelimitedList, CloudFormation matches the pattern against each value.
      const values = spec.Type === "CommaDelimitedList" ? value.split(",") : [value];
      const pattern = typeof spec.AllowedPattern === "string" ? spec.AllowedPattern : undefined;
      if (pattern !== undefined && !values.every((v) => new RegExp(pattern).test(v))) {
        problems.push(`${name}=${value} does not match ${pattern}`);
      }
      if (/At$/.test(name) && value !== "" && Number.isNaN(Date.parse(value))) {
        problems.push(`${name}=${value} is not an ISO 8601 date`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("production throttles no lower and keeps logs no shorter than staging", () => {
    const staging = stageConfig("staging").parameters;
    const production = stageConfig("production").parameters;
    for (const name of ["ThrottlingRateLimit", "ThrottlingBurstLimit", "LogRetentionDays"]) {
      expect(Number(production[name]), name).toBeGreaterThanOrEqual(Number(staging[name]));
    }
    for (const { ThrottlingRateLimit: rate, ThrottlingBurstLimit: burst } of [
      staging,
      production,
    ]) {
      expect(Number(burst)).toBeGreaterThanOrEqual(Number(rate));
    }
  });

  it("names nothing of the other stage", () => {
    for (const stage of stages) {
      const text = JSON.stringify(stageConfig(stage).deploy);
      for (const other of stages.filter((name) => name !== stage)) {
        expect(text, `${stage} mentions ${other}`).not.toContain(other);
      }
    }
  });
});

describe("the samconfig reader", () => {
  it("reads TOML (smol-toml) into dotted tables, and refuses values SAM does not take", () => {
    expect(
      parseSamconfig(
        'version = 0.1\n[a.b]\nx = "q\\"w" # note\ny = true\nz = 3\nm = """\\\n  one \\\n  two"""\n',
      ),
    ).toEqual({
      "": { version: 0.1 },
      "a.b": { x: 'q"w', y: true, z: 3, m: "one two" },
    });
    expect(() => parseSamconfig("[a]\nx = [1, 2]\n")).toThrow(/a\.x has an unsupported value/);
    expect(() => parseSamconfig('[a]\nx = "open\n')).toThrow(/samconfig\.toml: /);
    expect(() => parseSamconfig('[a]\nx = "1"\nx = "2"\n')).toThrow(/samconfig\.toml: /);
  });

  it("splits parameter_overrides as SAM does", () => {
    expect(parseParameterOverrides('A="1" B=two C="x y" D="" E="q\\"w"')).toEqual({
      A: "1",
      B: "two",
      C: "x y",
      D: "",
      E: 'q"w',
    });
    expect(() => parseParameterOverrides('A="1" A="2"')).toThrow(/twice/);
    expect(() => parseParameterOverrides("A=1 ???")).toThrow(/cannot read/);
  });
});
