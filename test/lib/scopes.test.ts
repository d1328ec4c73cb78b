/**
 * Scopes (contract: "Keys: scopes"): categories:read and categories:write; a key stored before
 * scopes existed has both; the stored list is space-separated (RFC 6749 §3.3) and unknown names
 * in it are ignored (lib/scopes.ts).
 */
import { describe, expect, it } from "vitest";
import { allScopes, isScope, scopeText, storedScopes } from "../../lib/scopes.ts";

describe("the scopes stored with a key", () => {
  it("a key stored before scopes existed (no attribute) has both", () => {
    expect(storedScopes(undefined)).toEqual(["categories:read", "categories:write"]);
  });

  it("reads a space-separated list and ignores names that are not scopes", () => {
    expect(storedScopes("categories:write categories:read")).toEqual([
      "categories:write",
      "categories:read",
    ]);
    expect(storedScopes("categories:read admin")).toEqual(["categories:read"]);
    expect(storedScopes("")).toEqual([]);
  });

  it("writes a key's scopes space-separated, in the contract's order, each once", () => {
    expect(scopeText(["categories:write", "categories:read"])).toBe(
      "categories:read categories:write",
    );
    expect(scopeText(["categories:write"])).toBe("categories:write");
    expect(scopeText([])).toBe("");
    expect(storedScopes(scopeText(allScopes))).toEqual(allScopes);
  });

  it("knows only the contract's two scope names", () => {
    expect(isScope("categories:read")).toBe(true);
    expect(isScope("categories:write")).toBe(true);
    expect(isScope("categories")).toBe(false);
    expect(isScope("")).toBe(false);
  });
});
