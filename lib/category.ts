/**
 * The Category, in one place (contract "Fields", openapi.yaml `Category` and `NewCategory`): its
 * fields and their rules, and what the service does with them. Everything else derives from
 * `categoryFields`: the types, the checks and their messages (`parseNewCategory`), the stored item
 * and its mapping (lib/repositories/categories.ts), what a list reads (lib/categoryList/reader.ts)
 * and the idempotency fingerprint (lib/idempotency/record.ts). Adding a field is adding it here
 * and to openapi.yaml (docs/architecture.md, "Adding a field").
 *
 * Every field the client sends is stored, listed and returned as sent (after trimming where the
 * rule says so), and left out when absent: an optional field is never `null`. Besides them, a
 * category has `id` (assigned from the counter; stored, listed, returned), and its item carries
 * `createdAt` (read by lists, for their caches) and `requestId` (audit), never returned.
 */
import { errors } from "./errors.ts";
import type { Resource } from "./resource.ts";

/** A text field. Lengths are in Unicode code points, after trimming when `trimmed`. */
interface TextField {
  readonly required: boolean;
  /** Leading and trailing white space is removed before the checks and before storing. */
  readonly trimmed: boolean;
  readonly minLength: number;
  readonly maxLength: number;
  /** The control characters (U+0000–U+001F, U+007F–U+009F) allowed; every other one is refused. */
  readonly controlsAllowed: readonly ControlName[];
  /** Shown as a label: what would hide or reorder its text is refused (`deception`). */
  readonly shownAsLabel: boolean;
}

/**
 * What makes a label deceive, after the rules of Unicode's own security documents, with its
 * property escapes rather than tables where a property exists:
 * - UAX #9's explicit directional embeddings, overrides and isolates (U+202A–U+202E,
 *   U+2066–U+2069; the "Trojan Source" characters, CVE-2021-42574), which reorder what is shown.
 *   Its implicit marks (LRM, RLM, ALM) stay: names that mix scripts need them, and they reorder
 *   nothing around them. No property names exactly this subset of Bidi_Control.
 * - Noncharacters (\p{Noncharacter_Code_Point}: U+FDD0–U+FDEF and every U+xxFFFE, U+xxFFFF),
 *   which Unicode keeps for a program's internal use, never for interchange.
 * - Tag characters (U+E0000–U+E007F) outside an emoji tag sequence (UTS #51: a black flag, tags,
 *   then CANCEL TAG, as in the flag of Scotland): elsewhere they carry text nobody sees.
 * - A label made only of invisible characters: white space and \p{Default_Ignorable_Code_Point}
 *   (zero-width spaces and joiners, variation selectors, fillers such as U+3164), the property
 *   UTS #39 and RFC 8264 (PRECIS) use for code points that show nothing.
 * PRECIS's FreeformClass (RFC 8264, the profile of RFC 8266 nicknames) would refuse every
 * default-ignorable code point anywhere, emoji's zero-width joiners and variation selectors
 * included; these rules keep emoji, combining marks and every script.
 */
const deception = {
  bidiOverride: /[\u202A-\u202E\u2066-\u2069]/u,
  noncharacter: /\p{Noncharacter_Code_Point}/u,
  emojiTagSequence: /\u{1F3F4}[\u{E0020}-\u{E007E}]+\u{E007F}/gu,
  tag: /[\u{E0000}-\u{E007F}]/u,
  visible: /[^\p{White_Space}\p{Default_Ignorable_Code_Point}]/u,
} as const;

/** What is wrong with `text` as a label, in a few words, or undefined when nothing is. */
function deceptionIn(text: string): string | undefined {
  if (deception.bidiOverride.test(text)) {
    return "bidirectional override or isolate characters (U+202A–U+202E, U+2066–U+2069)";
  }
  if (deception.noncharacter.test(text)) return "Unicode noncharacters (such as U+FFFF)";
  if (deception.tag.test(text.replace(deception.emojiTagSequence, ""))) {
    return "tag characters (U+E0000–U+E007F) outside an emoji flag";
  }
  return undefined;
}

const controls = { "line feed": "\n", tab: "\t" } as const;
type ControlName = keyof typeof controls;

export const categoryFields = {
  name: {
    required: true,
    trimmed: true,
    minLength: 1,
    maxLength: 100,
    controlsAllowed: [],
    shownAsLabel: true,
  },
  description: {
    required: false,
    trimmed: false,
    minLength: 0,
    maxLength: 1000,
    controlsAllowed: ["line feed", "tab"],
    shownAsLabel: false,
  },
} as const satisfies Readonly<Record<string, TextField>>;

type Fields = typeof categoryFields;
export type FieldName = keyof Fields;
type RequiredName = { [K in FieldName]: Fields[K]["required"] extends true ? K : never }[FieldName];

/** What a client sends, validated. */
export type NewCategory = { readonly [K in RequiredName]: string } & {
  readonly [K in Exclude<FieldName, RequiredName>]?: string | undefined;
};
/** What the service stores and answers. */
export type Category = { readonly id: number } & NewCategory;

export const fieldNames = Object.keys(categoryFields) as readonly FieldName[];

/**
 * The fields the first idempotency fingerprint covered, in its order (lib/idempotency/record.ts).
 * Frozen: records it wrote are kept 24 hours, and it goes when they have expired.
 */
export const fingerprintV1Fields = ["name", "description"] as const satisfies readonly FieldName[];

/** The category with these fields, in the model's order: what is stored and answered. */
export function categoryOf(id: number, input: NewCategory): Category {
  const category: Record<string, string | number> = { id };
  for (const field of fieldNames) {
    const value = input[field];
    if (value !== undefined) category[field] = value;
  }
  return category as Category;
}

/** The Category as a resource (lib/resource.ts): what its store, list and idempotency take. */
export const categoryResource: Resource<NewCategory, Category> = {
  name: "category",
  fieldNames,
  of: categoryOf,
};

const requiredFields = fieldNames.filter((field) => categoryFields[field].required);
/** "'name' and 'description'": the fields a body may carry, for messages. */
export const acceptedFieldsText = listed(fieldNames);
/** "a 'name'": what a body must carry at least, for messages. */
export const requiredFieldsText =
  requiredFields.length === 1 ? `a ${listed(requiredFields)}` : listed(requiredFields);
/** The fields as the JSON body's messages name them (lib/http/jsonBody.ts). */
export const categoryBodyFields = { required: requiredFieldsText, accepted: acceptedFieldsText };

/**
 * The NewCategory in a parsed JSON body, or an invalid_body error that names the field and the
 * rule it breaks and never repeats the value sent.
 */
export function parseNewCategory(body: unknown): NewCategory {
  if (body === undefined || body === null || typeof body !== "object" || Array.isArray(body)) {
    throw errors.invalidBody(`the body must be a JSON object with ${requiredFieldsText} field`);
  }
  const unknown = Object.keys(body).filter((field) => !Object.hasOwn(categoryFields, field));
  if (unknown.length > 0) {
    throw errors.invalidBody(
      `unknown field${unknown.length > 1 ? "s" : ""} ${namedFields(unknown)}: only ${acceptedFieldsText} are accepted`,
    );
  }
  const parsed: Record<string, string> = {};
  for (const field of fieldNames) {
    const value: unknown = Object.hasOwn(body, field)
      ? (body as Record<string, unknown>)[field]
      : undefined;
    if (value === undefined) {
      if (categoryFields[field].required) throw errors.invalidBody(`'${field}' is required`);
      continue;
    }
    parsed[field] = checkField(field, value);
  }
  return parsed as NewCategory;
}

function checkField(field: FieldName, value: unknown): string {
  const rule: TextField = categoryFields[field];
  if (typeof value !== "string") {
    throw errors.invalidBody(`'${field}' must be a string, not ${describeType(value)}`);
  }
  // A lone surrogate (legal in JSON escapes) is not Unicode text and cannot be stored as UTF-8.
  if (!value.isWellFormed()) {
    throw errors.invalidBody(`'${field}' must be valid Unicode text (it has a lone surrogate)`);
  }
  const text = rule.trimmed ? value.trim() : value;
  const length = codePoints(text);
  if (length < rule.minLength) {
    throw errors.invalidBody(
      rule.minLength === 1
        ? `'${field}' must not be empty${rule.trimmed ? " or only white space" : ""}`
        : // Stryker disable next-line StringLiteral: unreachable while no field's minimum is above 1
          `'${field}' must be at least ${rule.minLength} characters (got ${length})`,
    );
  }
  if (length > rule.maxLength) {
    throw errors.invalidBody(
      `'${field}' must be at most ${rule.maxLength} characters (got ${length})`,
    );
  }
  if (hasControl(text, rule.controlsAllowed)) {
    const except =
      rule.controlsAllowed.length > 0 ? ` other than ${listed(rule.controlsAllowed, "")}` : "";
    throw errors.invalidBody(`'${field}' must not contain control characters${except}`);
  }
  if (rule.shownAsLabel) {
    const deceiving = deceptionIn(text);
    if (deceiving) throw errors.invalidBody(`'${field}' must not contain ${deceiving}`);
    if (!deception.visible.test(text)) {
      throw errors.invalidBody(`'${field}' must have a visible character, not only invisible ones`);
    }
  }
  return text;
}

/** Whether `text` has a C0 or C1 control character (U+0000–U+001F, U+007F–U+009F) not allowed. */
function hasControl(text: string, allowed: readonly ControlName[]): boolean {
  const allowedCodes = allowed.map((name) => controls[name].charCodeAt(0));
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if ((unit <= 0x1f || (unit >= 0x7f && unit <= 0x9f)) && !allowedCodes.includes(unit)) {
      return true;
    }
  }
  return false;
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

/** "'a'", "'a' and 'b'", "'a', 'b' and 'c'" (quoted with `quote`). */
function listed(items: readonly string[], quote = "'"): string {
  const quoted = items.map((item) => `${quote}${item}${quote}`);
  // Stryker disable next-line StringLiteral: never called with no items (each list has one or more)
  const last = quoted.pop() ?? "";
  return quoted.length > 0 ? `${quoted.join(", ")} and ${last}` : last;
}

/** The first few names, then a count: a message stays short however many fields were sent. */
function namedFields(fields: readonly string[], shown = 5): string {
  const names = fields.slice(0, shown).map(quoteField).join(", ");
  return fields.length > shown ? `${names} and ${fields.length - shown} more` : names;
}

/** Field names come from the client: quote them safely and keep them short. */
function quoteField(field: string): string {
  const shown = field.length > 40 ? `${field.slice(0, 40)}…` : field;
  return JSON.stringify(shown);
}
