import { describe, expect, it } from "vitest";
import type { HttpEvent } from "../../../lib/http/message.ts";
import { contractHeaders, header } from "../../../lib/http/message.ts";

describe("header lookup tolerates hand-written events (any case, no headers at all)", () => {
  it("an event without headers has none", () => {
    expect(header({} as Pick<HttpEvent, "headers">, "authorization")).toBeUndefined();
  });

  it("finds a mixed-case name among others, and its value exactly", () => {
    const event = { headers: { Accept: "text/plain", "If-None-Match": '"a"' } };
    expect(header(event, "if-none-match")).toBe('"a"');
    expect(header(event, "accept")).toBe("text/plain");
    expect(header(event, "authorization")).toBeUndefined();
  });

  it("prefers API Gateway's lower-case name when both spellings are present", () => {
    expect(header({ headers: { Accept: "b", accept: "a" } }, "accept")).toBe("a");
  });

  it("an empty value is a value sent, not a missing header", () => {
    expect(header({ headers: { accept: "", Accept: "x" } }, "accept")).toBe("");
  });
});

describe("every answer's contract headers: JSON with charset, no-store, nosniff", () => {
  it("names exactly the contract's three headers", () => {
    expect(contractHeaders).toEqual({
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    });
  });
});
