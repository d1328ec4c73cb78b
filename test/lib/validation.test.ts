import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../lib/errors.ts";
import { fieldNames, parseNewCategory } from "../../lib/category.ts";
import { controlCharacters } from "./helpers.ts";

function rejection(body: unknown): ApiError {
  try {
    parseNewCategory(body);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be rejected`);
}

/** What a name may not hold: bidi overrides and isolates, noncharacters, tag characters. */
const deceiving = {
  test: (text: string): boolean =>
    Array.from(text).some((char) => {
      const code = char.codePointAt(0) ?? 0;
      const bidi = (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
      const nonchar = (code >= 0xfdd0 && code <= 0xfdef) || (code & 0xfffe) === 0xfffe;
      return bidi || nonchar || (code >= 0xe0000 && code <= 0xe007f);
    }),
};
/** A name of nothing anyone sees. */
const invisibleOnly = /^[\p{White_Space}\p{Default_Ignorable_Code_Point}]*$/u;

describe("the body must be a JSON object", () => {
  it.each([[null], [[]], ["dog"], [42], [true], [undefined]])(
    "rejects %j as invalid_body, naming the rule: a JSON object with a 'name' field",
    (body) => {
      expect(rejection(body)).toMatchObject({
        code: "invalid_body",
        status: 400,
        message: "the body must be a JSON object with a 'name' field",
      });
    },
  );
});

describe("name is required, trimmed, 1 to 100 code points", () => {
  it("trims leading and trailing white space before storing", () => {
    expect(parseNewCategory({ name: "  \t dog \n " })).toEqual({ name: "dog" });
  });

  it("rejects a missing name, naming the field", () => {
    expect(rejection({ description: "x" }).message).toMatch(/'name' is required/);
  });

  it("says white space alone is empty: name is trimmed before it is checked", () => {
    for (const name of ["", "   ", " \t\n "]) {
      expect(rejection({ name }).message).toBe("'name' must not be empty or only white space");
    }
  });

  it.each([
    ["an emoji (two UTF-16 units)", "🐕"],
    ["U+10000, the first astral code point", "\u{10000}"],
    ["U+10FFFD, the last character (U+10FFFE and U+10FFFF are noncharacters)", "\u{10FFFD}"],
    ["U+D7FF, the last before the surrogates", "\uD7FF"],
    ["U+E000, the first after the surrogates", "\uE000"],
  ])("counts %s as one code point: 100 are a valid name, 101 are not", (_, char) => {
    expect(parseNewCategory({ name: char.repeat(100) }).name).toBe(char.repeat(100));
    expect(rejection({ name: char.repeat(101) }).message).toBe(
      "'name' must be at most 100 characters (got 101)",
    );
  });

  it("accepts every string of 1..100 code points without control characters, trimmed", () => {
    const safeChar = fc
      .string({ unit: "grapheme", minLength: 1, maxLength: 1 })
      .filter((c) => !controlCharacters.some((cc) => c.includes(cc)))
      .filter((c) => !deceiving.test(c));
    fc.assert(
      fc.property(fc.array(safeChar, { minLength: 1, maxLength: 100 }), (chars) => {
        const name = chars.join("");
        const trimmed = name.trim();
        const length = Array.from(trimmed).length;
        fc.pre(length >= 1 && length <= 100 && !invisibleOnly.test(trimmed));
        expect(parseNewCategory({ name }).name).toBe(trimmed);
      }),
      { numRuns: 500 },
    );
  });

  it("rejects any name containing a C0 or C1 control character", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 20 }),
        fc.constantFrom(...controlCharacters),
        fc.string({ maxLength: 20 }),
        (a, cc, b) => {
          const name = `x${a}${cc}${b}x`;
          fc.pre(Array.from(name.trim()).length <= 100);
          expect(rejection({ name }).code).toBe("invalid_body");
        },
      ),
      { numRuns: 500 },
    );
  });

  it.each([[null], [42], [["dog"]], [{ en: "dog" }], [true]])(
    "rejects a non-string name %j",
    (name) => {
      expect(rejection({ name }).message).toMatch(/'name' must be a string/);
    },
  );
});

describe("a field that is not a string is refused, naming the JSON type sent, never the value", () => {
  it.each([
    [null, "null"],
    [4217, "a number"],
    [true, "a boolean"],
    [["spaniel"], "an array"],
    [{ en: "spaniel" }, "an object"],
  ])("%j is %s", (value, type) => {
    // The whole message: the type, and nothing of the value.
    for (const field of ["name", "description"]) {
      const message = rejection({ name: "dog", [field]: value }).message;
      expect(message).toBe(`'${field}' must be a string, not ${type}`);
    }
  });
});

describe("description is optional, at most 1,000 code points, stored as sent", () => {
  it("keeps white space and line feeds and tabs as sent", () => {
    expect(parseNewCategory({ name: "dog", description: "  Loyal\n\tfriends  " })).toEqual({
      name: "dog",
      description: "  Loyal\n\tfriends  ",
    });
  });

  it("accepts exactly 1,000 code points and rejects 1,001", () => {
    expect(parseNewCategory({ name: "a", description: "é".repeat(1000) }).description).toHaveLength(
      1000,
    );
    expect(rejection({ name: "a", description: "é".repeat(1001) }).message).toMatch(
      /'description' must be at most 1000/,
    );
  });
});

describe("a control-character message names the field and the control characters it allows", () => {
  it("name allows none", () => {
    for (const cc of controlCharacters) {
      expect(rejection({ name: `a${cc}b` }).message).toBe(
        "'name' must not contain control characters",
      );
    }
  });

  it("description allows line feed and tab", () => {
    for (const cc of controlCharacters.filter((c) => c !== "\n" && c !== "\t")) {
      expect(rejection({ name: "a", description: `x${cc}y` }).message).toBe(
        "'description' must not contain control characters other than line feed and tab",
      );
    }
  });
});

describe("only name and description are accepted", () => {
  it("rejects any other field, naming it", () => {
    fc.assert(
      fc.property(
        fc
          .string({ minLength: 1, maxLength: 30 })
          .filter((k) => k !== "name" && k !== "description"),
        (key) => {
          const error = rejection({ name: "dog", [key]: 1 });
          expect(error.code).toBe("invalid_body");
          expect(error.message).toContain(JSON.stringify(key));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("an unknown-field message names the fields sent and the ones accepted", () => {
  // Every field of the model, in its order, as an English list: 'name' and 'description' today.
  const quoted = fieldNames.map((field) => `'${field}'`);
  const accepted = `only ${quoted.slice(0, -1).join(", ")} and ${String(quoted.at(-1))} are accepted`;

  it("one unknown field is named in the singular, several in the plural", () => {
    expect(rejection({ name: "dog", id: 7 }).message).toBe(`unknown field "id": ${accepted}`);
    expect(rejection({ name: "dog", id: 7, owner: "me" }).message).toBe(
      `unknown fields "id", "owner": ${accepted}`,
    );
  });

  it("names at most five fields, then counts the rest", () => {
    const body = (count: number): Record<string, number> =>
      Object.fromEntries(Array.from({ length: count }, (_, i) => [`f${i + 1}`, i]));
    const named = (count: number): string =>
      Array.from({ length: count }, (_, i) => `"f${i + 1}"`).join(", ");
    expect(rejection(body(5)).message).toBe(`unknown fields ${named(5)}: ${accepted}`);
    expect(rejection(body(6)).message).toBe(`unknown fields ${named(5)} and 1 more: ${accepted}`);
    expect(rejection(body(12)).message).toBe(`unknown fields ${named(5)} and 7 more: ${accepted}`);
  });

  it("quotes each name as a JSON string and keeps it short: past 40 characters, cut with an ellipsis", () => {
    const forty = "k".repeat(39) + '"';
    expect(rejection({ [forty]: 1 }).message).toBe(
      `unknown field ${JSON.stringify(forty)}: ${accepted}`,
    );
    const long = "\n" + "x".repeat(39) + "tail";
    expect(rejection({ [long]: 1 }).message).toBe(
      `unknown field ${JSON.stringify(`${long.slice(0, 40)}…`)}: ${accepted}`,
    );
  });
});

describe("strings must be well-formed Unicode", () => {
  it("rejects a lone surrogate in name or description", () => {
    expect(rejection({ name: "dog\ud800" }).message).toMatch(/valid Unicode/);
    expect(rejection({ name: "dog", description: "\udc00" }).message).toMatch(/valid Unicode/);
  });
});

describe("arbitrary JSON values never crash validation", () => {
  it("either returns a valid NewCategory or throws invalid_body", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        try {
          const parsed = parseNewCategory(value);
          expect(Object.keys(parsed).every((k) => k === "name" || k === "description")).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(ApiError);
          expect((error as ApiError).code).toBe("invalid_body");
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe("a name that would deceive is refused, saying what is wrong in one line (contract, Fields)", () => {
  const bidi = "bidirectional override or isolate characters (U+202A–U+202E, U+2066–U+2069)";
  it.each([
    ["a right-to-left override", "abc\u202Egpj.exe", bidi],
    ["a left-to-right embedding", "\u202Aname", bidi],
    ["a first-strong isolate", "na\u2068me\u2069", bidi],
    ["U+FFFF", "cat\uFFFF", "Unicode noncharacters (such as U+FFFF)"],
    ["U+FDD0", "\uFDD0dog", "Unicode noncharacters (such as U+FFFF)"],
    ["U+10FFFE", "dog\u{10FFFE}", "Unicode noncharacters (such as U+FFFF)"],
    [
      "hidden tag text",
      "dog\u{E0041}\u{E0042}",
      "tag characters (U+E0000–U+E007F) outside an emoji flag",
    ],
  ])("%s", (_, name, what) => {
    expect(rejection({ name }).message).toBe(`'name' must not contain ${what}`);
  });

  it.each([
    ["zero-width spaces", "\u200B\u200B"],
    ["a zero-width joiner and a word joiner", " \u200D\u2060 "],
    ["a Hangul filler", "\u3164"],
    ["only tag characters of a flag, without the flag", "\u{E0067}\u{E0062}\u{E007F}"],
    ["a variation selector", "\uFE0F"],
  ])("a name of only invisible characters: %s", (_, name) => {
    expect(rejection({ name }).message).toMatch(
      /^'name' must (have a visible character, not only invisible ones|not contain tag characters)/,
    );
  });

  it.each([
    ["an emoji with a variation selector", "\u2764\uFE0F Hearts"],
    ["a family emoji (zero-width joiners)", "\u{1F468}\u200D\u{1F469}\u200D\u{1F467}"],
    [
      "the flag of Scotland (tag characters)",
      "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}",
    ],
    ["combining marks", "Cafe\u0301 Ame\u0301lie"],
    ["a lone combining mark", "\u0301"],
    ["Arabic with a right-to-left mark", "\u0642\u0637\u0637 (cats)\u200F"],
    ["Hebrew", "\u05DB\u05DC\u05D1\u05D9\u05DD"],
    ["Devanagari with a virama and a zero-width joiner", "\u0915\u094D\u200D\u0937"],
    ["Han", "\u732B"],
    ["a character beyond the BMP", "\u{20BB7}"],
  ])("still accepts %s", (_, name) => {
    expect(parseNewCategory({ name }).name).toBe(name);
  });

  it("a description keeps them: it is text, not a label", () => {
    expect(parseNewCategory({ name: "x", description: "a\u202Eb\uFFFF" }).description).toBe(
      "a\u202Eb\uFFFF",
    );
  });

  it("no name with a bidi override, a noncharacter or a stray tag character is accepted", () => {
    const bad = fc.constantFrom(
      "\u202A",
      "\u202E",
      "\u2066",
      "\u2069",
      "\uFDD0",
      "\uFFFE",
      "\u{10FFFF}",
      "\u{E0020}",
    );
    fc.assert(
      fc.property(
        fc.string({ maxLength: 20 }),
        bad,
        fc.string({ maxLength: 20 }),
        (before, char, after) => {
          expect(() => parseNewCategory({ name: `x${before}${char}${after}` })).toThrow(ApiError);
        },
      ),
    );
  });
});
