/**
 * The Category model (lib/category.ts) against the published interface, and every field of it
 * through everything the service does with a category: checked, stored, listed, replayed and
 * fingerprinted, on the real table. A field the model gains is covered here without a change:
 * the generators come from the model, so leaving it out anywhere fails a property.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Category, FieldName, NewCategory } from "../../lib/category.ts";
import { categoryFields, categoryOf, fieldNames, parseNewCategory } from "../../lib/category.ts";
import { CategoryList } from "../../lib/categoryList/reader.ts";
import { IdempotentCreator } from "../../lib/idempotency/creator.ts";
import { fingerprintOf } from "../../lib/idempotency/record.ts";
import { CategoryStore } from "../../lib/repositories/categories.ts";
import { IdempotencyRecordStore } from "../../lib/repositories/idempotencyRecords.ts";
import { soon, useEmbeddedDynamo } from "../support/dynamo.ts";
import type { JsonObject } from "../support/openapiDocument.ts";
import { loadOpenApi, objectAt } from "../support/openapiDocument.ts";
import { controlCharacters } from "./helpers.ts";

const required = fieldNames.filter((field) => categoryFields[field].required);
const schema = (name: string): JsonObject => objectAt(loadOpenApi(), "components", "schemas", name);
const property = (name: string, field: string): JsonObject =>
  objectAt(schema(name), "properties", field);

const controlsAllowed = (field: FieldName): string[] =>
  categoryFields[field].controlsAllowed.map((name) => ({ "line feed": "\n", tab: "\t" })[name]);

describe("the model is openapi.yaml's Category and NewCategory", () => {
  it("has the same fields and the same required ones", () => {
    expect(Object.keys(objectAt(schema("Category"), "properties")).sort()).toEqual(
      ["id", ...fieldNames].sort(),
    );
    expect([...(schema("Category").required as string[])].sort()).toEqual(
      ["id", ...required].sort(),
    );
    expect(Object.keys(objectAt(schema("NewCategory"), "properties")).sort()).toEqual(
      [...fieldNames].sort(),
    );
    expect([...(schema("NewCategory").required as string[])].sort()).toEqual([...required].sort());
    for (const name of ["Category", "NewCategory"]) {
      expect(schema(name).additionalProperties).toBe(false);
    }
  });

  it("has the same length bounds: on what is stored, and on what is sent unless it is trimmed", () => {
    for (const field of fieldNames) {
      const rule = categoryFields[field];
      const stored = property("Category", field);
      const sent = property("NewCategory", field);
      expect(stored.type, field).toBe("string");
      expect(sent.type, field).toBe("string");
      expect(stored.maxLength, field).toBe(rule.maxLength);
      expect(stored.minLength, field).toBe(rule.minLength > 0 ? rule.minLength : undefined);
      // A trimmed field may be sent longer, or blank around its text: its bounds hold after trimming.
      expect(sent.maxLength, field).toBe(rule.trimmed ? undefined : rule.maxLength);
      expect(sent.minLength, field).toBeUndefined();
    }
  });

  it("refuses the same control characters", () => {
    for (const field of fieldNames) {
      const pattern = new RegExp(property("Category", field).pattern as string, "u");
      for (const control of controlCharacters) {
        const allowed = controlsAllowed(field).includes(control);
        expect(pattern.test(`a${control}a`), `${field} U+${control.charCodeAt(0)}`).toBe(allowed);
        expect(parseOutcome({ ...minimal(), [field]: `a${control}a` }), field).toBe(
          allowed ? "accepted" : "invalid_body",
        );
      }
    }
  });
});

describe("the model is openapi.yaml's on what makes a label deceive", () => {
  it("refuses the same bidirectional override, isolate and noncharacter code points in labels", () => {
    const deceiving = ["\u202A", "\u202E", "\u2066", "\u2069", "\uFDD0", "\uFFFF", "\u{10FFFE}"];
    for (const field of fieldNames) {
      const pattern = new RegExp(property("Category", field).pattern as string, "u");
      for (const char of deceiving) {
        const label = categoryFields[field].shownAsLabel;
        const code = `U+${(char.codePointAt(0) ?? 0).toString(16)}`;
        expect(pattern.test(`a${char}a`), `${field} ${code}`).toBe(!label);
        expect(parseOutcome({ ...minimal(), [field]: `a${char}a` }), `${field} ${code}`).toBe(
          label ? "invalid_body" : "accepted",
        );
      }
    }
  });
});

describe("a category is its id and the fields sent: an absent optional field is left out", () => {
  it("has no key for a field not sent (never undefined, never null), id first, then the model's order", () => {
    const optional = fieldNames.filter((field) => !categoryFields[field].required);
    expect(optional.length).toBeGreaterThan(0);
    const sparse = categoryOf(7, minimal() as NewCategory);
    expect(Object.keys(sparse)).toEqual(["id", ...required]);
    expect(sparse).toStrictEqual({ id: 7, ...minimal() });

    const full = Object.fromEntries([...fieldNames].reverse().map((field) => [field, field]));
    expect(Object.keys(categoryOf(8, full as NewCategory))).toEqual(["id", ...fieldNames]);
    for (const field of optional) {
      const undefinedSent = { ...minimal(), [field]: undefined } as NewCategory;
      expect(Object.keys(categoryOf(9, undefinedSent)), field).toEqual(["id", ...required]);
    }
  });
});

function minimal(): Record<string, string> {
  return Object.fromEntries(required.map((field) => [field, "x"]));
}

function parseOutcome(body: unknown): string {
  try {
    parseNewCategory(body);
    return "accepted";
  } catch (error) {
    return (error as { code?: string }).code ?? "thrown";
  }
}

/** Text within the field's rule: code points of several widths, blank only where it is kept. */
function validText(field: FieldName): fc.Arbitrary<string> {
  const rule = categoryFields[field];
  const unit = fc.constantFrom("a", "Z", "7", " ", "é", "名", "🐕", "-", ...controlsAllowed(field));
  return fc
    .string({ unit, minLength: rule.minLength, maxLength: Math.min(rule.maxLength, 40) })
    .map((text) => (rule.trimmed ? text.trim() : text))
    .filter((text) => Array.from(text).length >= rule.minLength);
}

/** A valid NewCategory: every required field, each optional one present or absent. */
const newCategory: fc.Arbitrary<NewCategory> = fc.record(
  Object.fromEntries(fieldNames.map((field) => [field, validText(field)])),
  { requiredKeys: required },
);

/**
 * The oracle of "the same request", written apart from the fingerprint's code: every field of the
 * model has the same value in both, an absent field being the same as one sent as undefined.
 */
function sameRequest(a: NewCategory, b: NewCategory): boolean {
  return fieldNames.every((field) => a[field] === b[field]);
}

/** `input` with `field` taken from `other` (absent when it is absent there). */
function withFieldOf(input: NewCategory, other: NewCategory, field: FieldName): NewCategory {
  return Object.fromEntries(
    fieldNames
      .map((name) => [name, name === field ? other[name] : input[name]] as const)
      .filter(([, value]) => value !== undefined),
  ) as NewCategory;
}

describe("every field of the model is checked, stored, listed, replayed and fingerprinted", () => {
  const store = useEmbeddedDynamo();

  /** A table of its own, the repositories on it and two list caches: one kept warm, one cold. */
  async function rig(): Promise<{
    categories: CategoryStore;
    creator: IdempotentCreator<NewCategory, Category>;
    lists: () => CategoryList[];
  }> {
    const table = await store.newTable();
    const categories = new CategoryStore(store.db, table);
    const records = new IdempotencyRecordStore(store.db, table);
    const warm = new CategoryList(store.db, table, Date.now);
    return {
      categories,
      creator: new IdempotentCreator(records, categories, Date.now, "createCategory"),
      lists: () => [warm, new CategoryList(store.db, table, Date.now)],
    };
  }

  it("a valid body is accepted as sent, each field kept", () => {
    fc.assert(
      fc.property(newCategory, (input) => {
        expect(parseNewCategory(JSON.parse(JSON.stringify(input)))).toEqual(input);
      }),
    );
  });

  it("stores, lists and replays each field as sent", async () => {
    const { categories, creator, lists } = await rig();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(newCategory, async (input) => {
        const key = `round-trip-${++run}`;
        const created = await creator.create("scope", key, input, `r${run}`, soon());
        const expected = { id: created.category.id, ...input };
        expect(created).toEqual({ category: expected, replayed: false });
        expect(await categories.get(expected.id, soon())).toEqual(expected);
        for (const list of lists()) {
          const listed = await list.categories(await list.version(soon()), soon());
          expect(listed.find((category) => category.id === expected.id)).toEqual(expected);
        }
        const again = await creator.create("scope", key, input, `r${run}-again`, soon());
        expect(again).toEqual({ category: expected, replayed: true });
      }),
      { numRuns: 15 },
    );
    expect(await categories.list(soon())).toHaveLength(run);
  });

  it("a repeat that differs in any one field is refused (422), whichever field it is", async () => {
    const { creator } = await rig();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(newCategory, newCategory, async (input, other) => {
        const key = `differs-${++run}`;
        await creator.create("scope", key, input, `d${run}`, soon());
        for (const field of fieldNames) {
          const changed = withFieldOf(input, other, field);
          if (sameRequest(changed, input)) continue;
          await expect(
            creator.create("scope", key, changed, `d${run}-${field}`, soon()),
            field,
          ).rejects.toMatchObject({ status: 422, code: "idempotency_key_reused" });
        }
      }),
      { numRuns: 10 },
    );
  });

  it("two requests have one fingerprint exactly when they are the same request, whichever field differs", () => {
    fc.assert(
      fc.property(
        newCategory,
        newCategory,
        fc.constantFrom(...fieldNames),
        (input, other, field) => {
          const changed = withFieldOf(input, other, field);
          expect(fingerprintOf(changed) === fingerprintOf(input), field).toBe(
            sameRequest(changed, input),
          );
          expect(fingerprintOf(other) === fingerprintOf(input)).toBe(sameRequest(other, input));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("the fingerprint is one per request, whatever the order of its fields", () => {
    fc.assert(
      fc.property(newCategory, (input) => {
        const reversed = Object.fromEntries(Object.entries(input).reverse()) as NewCategory;
        expect(fingerprintOf(reversed)).toBe(fingerprintOf(input));
        expect(fingerprintOf(input)).toMatch(/^v2:[0-9a-f]{64}$/);
      }),
    );
  });
});
