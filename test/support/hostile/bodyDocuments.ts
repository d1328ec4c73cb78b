/**
 * JSON documents the service must refuse or may take: prototype keys (`__proto__`,
 * `constructor`, `prototype`) anywhere, duplicated keys, the contract's refused documents, and
 * random JSON values, objects and strings.
 */
import fc from "fast-check";
import type { BodyCase } from "./bodyCase.ts";
import { text, validNameArb } from "./bodyCase.ts";

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
