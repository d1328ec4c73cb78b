/**
 * Bodies that are valid JSON text with something wrong inside: lone surrogates, `__proto__` /
 * `constructor` / `prototype` keys, duplicated keys, and a table of refused documents.
 */
import fc from "fast-check";
import type { BodyCase } from "./bodyCases.ts";
import { text, validNameArb } from "./bodyCases.ts";

const loneSurrogate = fc.constantFrom("\ud800", "\udbff", "\udc00", "\udfff");
const loneEscape = fc.constantFrom("\\ud800", "\\uDBFF", "\\udc00", "\\uDFFF", "\\ud800\\u0041");

export const surrogateBodies: fc.Arbitrary<BodyCase> = fc.oneof(
  loneEscape.map((escape) =>
    text("bad_request", "lone surrogate escape in name")(`{"name":"a${escape}"}`),
  ),
  loneEscape.map((escape) =>
    text(
      "bad_request",
      "lone surrogate escape in description",
    )(`{"name":"a","description":"${escape}"}`),
  ),
  loneEscape.map((escape) =>
    text("bad_request", "lone surrogate escape in a field name")(`{"name":"a","${escape}":1}`),
  ),
  loneSurrogate.map((raw) =>
    text("bad_request", "raw lone surrogate in name")(`{"name":"a${raw}b"}`),
  ),
  loneSurrogate.map((raw) =>
    text("bad_request", "raw lone surrogate in description")(`{"name":"a","description":"${raw}"}`),
  ),
  loneSurrogate.map((raw) =>
    text("bad_request", "raw lone surrogate as a field")(`{"${raw}":"a"}`),
  ),
  fc.string({ unit: "binary", maxLength: 200 }).map(text("unknown", "binary string")),
);

const prototypeKey = fc.constantFrom("__proto__", "constructor", "prototype");
const prototypeValue = fc.constantFrom(
  "1",
  "null",
  '"x"',
  "{}",
  '{"prototype":{}}',
  '{"polluted":true}',
  '{"name":"evil"}',
  "[]",
);
export const prototypeBodies: fc.Arbitrary<BodyCase> = fc
  .tuple(prototypeKey, prototypeValue, fc.constantFrom("top", "first", "nested", "in array"))
  .map(([key, value, where]) => {
    const member = `${JSON.stringify(key)}:${value}`;
    const body =
      where === "top"
        ? `{"name":"x",${member}}`
        : where === "first"
          ? `{${member},"name":"x"}`
          : where === "nested"
            ? `{"name":"x","description":{${member}}}`
            : `[{"name":"x",${member}}]`;
    return text("bad_request", `${key} ${where}`)(body);
  });

export const duplicatedKeys: fc.Arbitrary<BodyCase> = fc.oneof(
  validNameArb.map((name) =>
    text("valid", "duplicated name, last valid")(`{"name":1,"name":${JSON.stringify(name)}}`),
  ),
  validNameArb.map((name) =>
    text(
      "bad_request",
      "duplicated name, last invalid",
    )(`{"name":${JSON.stringify(name)},"name":null}`),
  ),
  fc.constant(
    text(
      "bad_request",
      "duplicated description, last null",
    )('{"name":"a","description":"x","description":null}'),
  ),
);

export const plainBadBodies: fc.Arbitrary<BodyCase> = fc.oneof(
  fc.constantFrom(undefined, "", " ", "\n\t ", "\ufeff").map(text("bad_request", "missing")),
  fc
    .constantFrom(
      "null",
      "[]",
      '"name"',
      "0",
      "true",
      "{}",
      '{"name":""}',
      '{"name":"   "}',
      '{"name":null}',
      '{"name":1}',
      '{"name":["a"]}',
      '{"name":"a\\u0000"}',
      '{"name":"a\\u0085b"}',
      '{"name":"a","description":null}',
      '{"name":"a","description":"\\u0007"}',
      '{"name":"a","id":1}',
      '{"id":1}',
      `{"name":"${"n".repeat(101)}"}`,
      `{"name":"a","description":"${"d".repeat(1001)}"}`,
      '\ufeff{"name":"bom"}',
      '{"name":"a"',
      '{"name":"a"}}',
      "{name:'a'}",
      '{"name":"a",}',
      '{"name":"a"} {"name":"b"}',
      "NaN",
    )
    .map(text("bad_request", "refused document")),
  fc.jsonValue().map((value) => text("unknown", "json value")(JSON.stringify(value))),
  fc.string({ maxLength: 300 }).map(text("unknown", "ascii string")),
  fc.object().map((value) => text("unknown", "object")(JSON.stringify(value))),
);
