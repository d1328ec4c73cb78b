/**
 * NewCategory rules from the contract: the body is a JSON object with `name` (string, trimmed,
 * 1..100 code points, no control characters) and optionally `description` (string, at most 1,000
 * code points, no control characters but line feed and tab, stored as sent). Any other field is
 * rejected by name. Messages name the field and the rule, and never repeat the value sent.
 */
import { errors } from "./errors.ts";
import type { NewCategory } from "./repositories/categories.ts";

export const nameMaxLength = 100;
export const descriptionMaxLength = 1000;

const allowedFields = new Set(["name", "description"]);
// C0 and C1 control characters (U+0000–U+001F, U+007F–U+009F): matching them is the point.
// eslint-disable-next-line no-control-regex
const controlCharacter = /[\u0000-\u001f\u007f-\u009f]/u;
// eslint-disable-next-line no-control-regex
const controlCharacterExceptLfTab = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/u;

export function parseNewCategory(body: unknown): NewCategory {
  if (body === undefined || body === null || typeof body !== "object" || Array.isArray(body)) {
    throw errors.invalidBody("the body must be a JSON object with a 'name' field");
  }
  const unknown = Object.keys(body).filter((field) => !allowedFields.has(field));
  if (unknown.length > 0) {
    throw errors.invalidBody(
      `unknown field${unknown.length > 1 ? "s" : ""} ${namedFields(unknown)}: only 'name' and 'description' are accepted`,
    );
  }
  const fields = body as Record<string, unknown>;
  const name = checkName(fields.name);
  if (!("description" in fields)) return { name };
  return { name, description: checkDescription(fields.description) };
}

function checkName(value: unknown): string {
  if (value === undefined) throw errors.invalidBody("'name' is required");
  const name = checkText("name", value).trim();
  const length = codePoints(name);
  if (length === 0) throw errors.invalidBody("'name' must not be empty or only white space");
  if (length > nameMaxLength) {
    throw errors.invalidBody(`'name' must be at most ${nameMaxLength} characters (got ${length})`);
  }
  if (controlCharacter.test(name)) {
    throw errors.invalidBody("'name' must not contain control characters");
  }
  return name;
}

function checkDescription(value: unknown): string {
  const description = checkText("description", value);
  const length = codePoints(description);
  if (length > descriptionMaxLength) {
    throw errors.invalidBody(
      `'description' must be at most ${descriptionMaxLength} characters (got ${length})`,
    );
  }
  if (controlCharacterExceptLfTab.test(description)) {
    throw errors.invalidBody(
      "'description' must not contain control characters other than line feed and tab",
    );
  }
  return description;
}

function checkText(field: string, value: unknown): string {
  if (typeof value !== "string") {
    throw errors.invalidBody(`'${field}' must be a string, not ${describeType(value)}`);
  }
  // A lone surrogate (legal in JSON escapes) is not Unicode text and cannot be stored as UTF-8.
  if (!value.isWellFormed()) {
    throw errors.invalidBody(`'${field}' must be valid Unicode text (it has a lone surrogate)`);
  }
  return value;
}

function codePoints(text: string): number {
  // Strings are UTF-16: a character outside the BMP is two code units but one code point.
  let count = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) count--;
  }
  return count;
}

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** Field names come from the client: quote them safely and keep them short. */
/** The first few names, then a count: a message stays short however many fields were sent. */
function namedFields(fields: readonly string[], shown = 5): string {
  const names = fields.slice(0, shown).map(quoteField).join(", ");
  return fields.length > shown ? `${names} and ${fields.length - shown} more` : names;
}

function quoteField(field: string): string {
  const shown = field.length > 40 ? `${field.slice(0, 40)}…` : field;
  return JSON.stringify(shown);
}
