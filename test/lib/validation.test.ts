import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../lib/errors.ts";
import { parseNewCategory } from "../../lib/category.ts";

function rejection(body: unknown): ApiError {
  try {
    parseNewCategory(body);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be rejected`);
}

const controlCharacters = [
  ...Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)),
  ...Array.from({ length: 0x21 }, (_, i) => String.fromCharCode(0x7f + i)),
];

describe("the body must be a JSON object", () => {
  it.each([[null], [[]], ["dog"], [42], [true], [undefined]])(
    "rejects %j as invalid_body",
    (body) => {
      const error = rejection(body);
      expect(error.code).toBe("invalid_body");
      expect(error.status).toBe(400);
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

  it("rejects a name that is empty after trimming", () => {
    expect(rejection({ name: "   " }).message).toMatch(/'name' must not be empty/);
  });

  it("counts code points, not UTF-16 units: 100 emoji are a valid name, 101 are not", () => {
    expect(parseNewCategory({ name: "🐕".repeat(100) }).name).toHaveLength(200);
    expect(rejection({ name: "🐕".repeat(101) }).message).toMatch(
      /at most 100 characters \(got 101\)/,
    );
  });

  it("accepts every string of 1..100 code points without control characters, trimmed", () => {
    const safeChar = fc
      .string({ unit: "grapheme", minLength: 1, maxLength: 1 })
      .filter((c) => !controlCharacters.some((cc) => c.includes(cc)));
    fc.assert(
      fc.property(fc.array(safeChar, { minLength: 1, maxLength: 100 }), (chars) => {
        const name = chars.join("");
        const trimmed = name.trim();
        const length = Array.from(trimmed).length;
        fc.pre(length >= 1 && length <= 100);
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

  it("rejects null: null is not a string", () => {
    expect(rejection({ name: "a", description: null }).message).toMatch(
      /'description' must be a string, not null/,
    );
  });

  it("rejects control characters other than line feed and tab", () => {
    for (const cc of controlCharacters.filter((c) => c !== "\n" && c !== "\t")) {
      expect(rejection({ name: "a", description: `x${cc}y` }).code).toBe("invalid_body");
    }
  });
});

describe("only name and description are accepted", () => {
  it("rejects id, naming it", () => {
    expect(rejection({ name: "dog", id: 7 }).message).toMatch(/unknown field "id"/);
  });

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
