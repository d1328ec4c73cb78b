/**
 * What an API key may do (contract: "Keys: scopes"). Each operation needs one scope; the
 * named-but-unspecified routes (501/410) need only a valid key. A key stored before scopes
 * existed has no scopes attribute and has both.
 */
export type Scope = "categories:read" | "categories:write";

export const allScopes: readonly Scope[] = ["categories:read", "categories:write"];

export function isScope(value: string): value is Scope {
  return (allScopes as readonly string[]).includes(value);
}

/**
 * The scopes stored with a key: a space-separated list (as OAuth's `scope` parameter, RFC 6749
 * §3.3). Unset (a key from before scopes) means every scope; unknown names are ignored.
 */
export function storedScopes(stored: string | undefined): readonly Scope[] {
  if (stored === undefined) return allScopes;
  return stored.split(" ").filter(isScope);
}

export function scopeText(scopes: readonly Scope[]): string {
  return allScopes.filter((scope) => scopes.includes(scope)).join(" ");
}
