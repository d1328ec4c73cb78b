/**
 * Where a JSON text stops being JSON (RFC 8259), as line and column, for the invalid_json
 * message. JSON.parse knows the offset but only says it inside its message, whose wording is
 * V8's and changes between versions; so the text is scanned again here, only on that error path.
 * Hand-written rather than a parser library: the scan is small, and every byte in the Lambda
 * bundles costs import time on a cold start (docs/performance.md). Iterative, so any nesting
 * depth is safe.
 */

/** The offset of the first character that cannot continue a JSON text (its length if it ends early). */
export function jsonErrorOffset(text: string): number | undefined {
  // What each open container expects next: "key" (or "}" right after "{"), ":", "value" (or "]"
  // right after "["), "more" (a "," or the closing bracket).
  const open: ("{" | "[")[] = [];
  let expect: "value" | "first-value" | "key" | "first-key" | "colon" | "more" | "end" = "value";
  let i = 0;
  const space = (): void => {
    while (i < text.length && " \t\n\r".includes(text.charAt(i))) i++;
  };
  for (;;) {
    space();
    if (i >= text.length) return expect === "end" ? undefined : i;
    const c = text.charAt(i);
    if (expect === "end") return i;
    if (expect === "colon") {
      if (c !== ":") return i;
      i++;
      expect = "value";
      continue;
    }
    if (expect === "more") {
      const closer = open.at(-1) === "{" ? "}" : "]";
      if (c === ",") {
        i++;
        expect = open.at(-1) === "{" ? "key" : "value";
        continue;
      }
      if (c !== closer) return i;
      i++;
      open.pop();
      expect = open.length === 0 ? "end" : "more";
      continue;
    }
    if (expect === "key" || expect === "first-key") {
      if (c === "}" && expect === "first-key") {
        i++;
        open.pop();
        expect = open.length === 0 ? "end" : "more";
        continue;
      }
      if (c !== '"') return i;
      const end = stringEnd(text, i);
      if (typeof end !== "number") return end.at;
      i = end;
      expect = "colon";
      continue;
    }
    // A value.
    if (c === "]" && expect === "first-value") {
      i++;
      open.pop();
      expect = open.length === 0 ? "end" : "more";
      continue;
    }
    if (c === "{" || c === "[") {
      open.push(c);
      i++;
      expect = c === "{" ? "first-key" : "first-value";
      continue;
    }
    const end = c === '"' ? stringEnd(text, i) : scalarEnd(text, i);
    if (typeof end !== "number") return end.at;
    i = end;
    expect = open.length === 0 ? "end" : "more";
  }
}

/** Past the string that starts at `start` (a quote), or where it goes wrong. */
function stringEnd(text: string, start: number): number | { at: number } {
  let i = start + 1;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === 0x22) return i + 1;
    if (code < 0x20) return { at: i };
    if (code === 0x5c) {
      const escape = text.charAt(i + 1);
      if (escape === "u") {
        for (let k = 2; k < 6; k++) {
          if (i + k >= text.length) return { at: text.length };
          if (!/[0-9a-fA-F]/.test(text.charAt(i + k))) return { at: i + k };
        }
        i += 6;
        continue;
      }
      if (i + 1 >= text.length) return { at: text.length };
      if (!'"\\/bfnrt'.includes(escape)) return { at: i + 1 };
      i += 2;
      continue;
    }
    i++;
  }
  return { at: text.length };
}

const number = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/** Past the number or literal at `start`, or where it goes wrong. */
function scalarEnd(text: string, start: number): number | { at: number } {
  for (const literal of ["true", "false", "null"]) {
    if (text.charAt(start) !== literal.charAt(0)) continue;
    for (let k = 1; k < literal.length; k++) {
      if (start + k >= text.length) return { at: text.length };
      if (text.charAt(start + k) !== literal.charAt(k)) return { at: start + k };
    }
    return start + literal.length;
  }
  number.lastIndex = start;
  if (!number.test(text)) {
    // A lone "-" (or "-x"): the number goes wrong right after it.
    return { at: text.charAt(start) === "-" ? Math.min(start + 1, text.length) : start };
  }
  const end = number.lastIndex;
  // "1." or "1e": the regular expression stopped before a fraction or exponent that is not one
  // (after "1.5" or "1e3", a "." or "e" is simply no longer part of the number).
  const next = text.charAt(end);
  const matched = text.slice(start, end);
  const noExponent = !/[eE]/.test(matched);
  if ((next === "." && noExponent && !matched.includes(".")) || (/[eE]/.test(next) && noExponent)) {
    const after = end + 1 + (next !== "." && "+-".includes(text.charAt(end + 1)) ? 1 : 0);
    return { at: Math.min(after, text.length) };
  }
  return end;
}

/**
 * Line and column of an offset, both from 1: lines split at "\n", columns in UTF-16 code units
 * (as JavaScript counts a string's length, and V8's own messages count them).
 */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf("\n") + 1;
  let line = 1;
  for (let k = before.indexOf("\n"); k !== -1; k = before.indexOf("\n", k + 1)) line++;
  return { line, column: offset - lineStart + 1 };
}

/** Where `text` stops being JSON, for a message: "at line 2, column 6", or undefined if it is JSON. */
export function jsonErrorPlace(text: string): string | undefined {
  const offset = jsonErrorOffset(text);
  if (offset === undefined) return undefined;
  const { line, column } = lineAndColumn(text, offset);
  const where = `line ${String(line)}, column ${String(column)}`;
  return offset >= text.length ? `it ends early, at ${where}` : `at ${where}`;
}
