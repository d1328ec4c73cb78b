/**
 * The route table, as declared by infra/template.yaml (the single source of routes): for each
 * path pattern, the methods served there. The fallback function uses it to tell "no such path"
 * (404) from "known path, other method" (405, with Allow).
 */
export type RouteTable = Readonly<Record<string, readonly string[]>>;

export type FallbackDecision =
  | { readonly kind: "not_found" }
  | {
      readonly kind: "method_not_allowed";
      readonly path: string;
      readonly allow: readonly string[];
    };

/**
 * A request reaches the fallback with a method its path allows only when API Gateway could not
 * route it (a path whose escapes do not decode, such as `/v1/pets/%ff`): that is no such route.
 */
export function decideFallback(routes: RouteTable, path: string, method: string): FallbackDecision {
  for (const [pattern, methods] of Object.entries(routes)) {
    if (pathMatches(pattern, path) && !methods.includes(method)) {
      return { kind: "method_not_allowed", path: pattern, allow: methods };
    }
  }
  return { kind: "not_found" };
}

/** `{name}` matches one non-empty path segment, as in API Gateway route keys. */
export function pathMatches(pattern: string, path: string): boolean {
  const want = pattern.split("/");
  const got = path.split("/");
  if (want.length !== got.length) return false;
  return want.every((segment, index) => {
    const actual = got[index];
    return /^\{[^}]+\}$/.test(segment) ? Boolean(actual) : segment === actual;
  });
}

/** Route keys such as "GET /v1/categories" → { "/v1/categories": ["GET", ...] }. */
export function routeTableOf(routeKeys: readonly string[]): RouteTable {
  const table: Record<string, string[]> = {};
  for (const routeKey of routeKeys) {
    // split returns at least one element: only the path may be missing ("$default").
    const [method, path] = routeKey.split(" ") as [string, string?];
    if (path === undefined) continue;
    (table[path] ??= []).push(method);
  }
  return table;
}
