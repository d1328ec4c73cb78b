import type { Scope } from "./scopes.ts";

/**
 * The route table, as declared by infra/template.yaml (the single source of routes): for each
 * path pattern, the methods served there. The fallback function uses it to tell "no such path"
 * (404) from "known path, other method" (405, with Allow).
 */
export type RouteTable = Readonly<Record<string, readonly string[]>>;

/**
 * What a function's bundle is told of the declarations (scripts/build.ts injects it, the tests'
 * harness passes the same): the routes the functions serve, and the scope its own operation needs
 * (openapi.yaml's `x-required-scope`; none for the fallback, whose routes need only a valid key).
 */
export interface Declared {
  readonly routes: RouteTable;
  readonly scope?: Scope;
}

export type FallbackDecision =
  | { readonly kind: "not_found" }
  | {
      readonly kind: "method_not_allowed";
      readonly path: string;
      readonly allow: readonly string[];
    };

/**
 * 404, or 405 with the methods the path is served with, for the path the event carries. An HTTP
 * API hands `rawPath` over already decoded once, as it matched routes on it (`/v1/%63ategories`
 * arrives as `/v1/categories`; AWS's own Lambda test tool builds payload 2.0 events so,
 * aws/aws-lambda-dotnet LambdaTestTool-v2, and live captures agree), so it is matched as it is:
 * decoding it again would make `/v1/%2563ategories` a route. A path that still holds an escape
 * that does not decode (`/v1/pets/%ff`, which the gateway could not decode) matches no route,
 * whatever the method: 404.
 */
export function decideFallback(routes: RouteTable, path: string, method: string): FallbackDecision {
  if (decodedOnce(path) === undefined) return { kind: "not_found" };
  for (const [pattern, methods] of Object.entries(routes)) {
    if (pathMatches(pattern, path) && !methods.includes(method)) {
      return { kind: "method_not_allowed", path: pattern, allow: methods };
    }
  }
  return { kind: "not_found" };
}

/**
 * A request's path as an HTTP API routes on it and hands it to the function: percent-decoded
 * once, or as sent when its escapes do not decode (then it matches no route: the local gateway
 * sends it to `$default`).
 */
export function gatewayPath(sent: string): string {
  return decodedOnce(sent) ?? sent;
}

/**
 * Text percent-decoded once (a path as API Gateway matches routes on it, a path parameter's
 * value as it hands it over); undefined when its escapes are not UTF-8.
 */
export function decodedOnce(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
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

/**
 * The scope an operation's function checks: the declared one. A function built without one
 * (openapi.yaml lost its `x-required-scope`) fails as it loads, never serving unchecked.
 */
export function requiredScope(
  declared: Declared,
  function_: { readonly operation: string },
): Scope {
  if (declared.scope === undefined)
    throw new Error(
      `openapi.yaml declares no x-required-scope for ${function_.operation}'s routes`,
    );
  return declared.scope;
}
