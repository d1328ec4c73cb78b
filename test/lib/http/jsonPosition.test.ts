/**
 * Where a text stops being JSON (lib/http/jsonPosition.ts), against JSON.parse itself: for any
 * text JSON.parse refuses, the offset is the one V8 names in its message ("at position N"; "end
 * of JSON input" is the text's length), and for any text it accepts there is none. Reading V8's
 * message is the test's oracle only; the service never reads it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonErrorOffset, lineAndColumn } from "../../../lib/http/jsonPosition.ts";

/** V8's offset for a text JSON.parse refuses; undefined when it parses, NaN when not named. */
function v8Offset(text: string): number | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    const message = (error as Error).message;
    const position = /at position (\d+)/.exec(message)?.[1];
    if (position !== undefined) return Number(position);
    return /end of JSON input/.test(message) ? text.length : Number.NaN;
  }
}

/** JSON texts and near-JSON: pieces of JSON's grammar in any order, so most break somewhere. */
const jsonish = fc
  .array(
    fc.constantFrom(
      "{",
      "}",
      "[",
      "]",
      ",",
      ":",
      " ",
      "\n",
      "\t",
      '"',
      '"a"',
      '"\\u00e9"',
      '"\\x"',
      "\\",
      "1",
      "-",
      "0",
      "01",
      "1.",
      "1.5",
      "1e",
      "2E+3",
      "true",
      "tru",
      "null",
      "false",
      "x",
      "\u0001",
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(""));

describe("the offset is JSON.parse's own", () => {
  it("for generated near-JSON texts", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          jsonish,
          fc.json(),
          fc.json().map((text) => text.slice(0, -1)),
        ),
        (text) => {
          const expected = v8Offset(text);
          fc.pre(!Number.isNaN(expected));
          expect(jsonErrorOffset(text)).toBe(expected);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("for every prefix of a document, and at any depth (no recursion)", () => {
    const document = '{"name": "dog", "tags": [1, -2.5e3, true, null, {"a": "\\u00e9\\n"}]}';
    for (let end = 0; end <= document.length; end++) {
      const text = document.slice(0, end);
      expect(jsonErrorOffset(text), text).toBe(v8Offset(text));
    }
    const deep = `${"[".repeat(100_000)}1${"]".repeat(99_999)}`;
    expect(jsonErrorOffset(deep)).toBe(deep.length);
  });
});

describe("line and column, both from 1", () => {
  it.each([
    ["", 0, { line: 1, column: 1 }],
    ["ab", 1, { line: 1, column: 2 }],
    ["a\nbc", 3, { line: 2, column: 2 }],
    ["a\n\n", 3, { line: 3, column: 1 }],
    ["a\r\nb", 3, { line: 2, column: 1 }],
  ])("%j at %i", (text, offset, expected) => {
    expect(lineAndColumn(text, offset)).toEqual(expected);
  });
});
