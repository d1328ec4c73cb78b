/**
 * Which function the hook sends a probe to, and where it finds that function's new version. The
 * function names have one owner, infra/template.yaml: scripts/build.ts injects its routes (route
 * key → function) into this bundle, and the template hands the hook each function's new version
 * in `versionVariable(name)` (test/infra/template/functions.test.ts checks the two agree).
 */
import { pathMatches } from "../routes.ts";

/** Route key ("GET /v1/categories", "$default") → the name of the function that serves it. */
export type RouteFunctions = Readonly<Record<string, string>>;

/** The route key API Gateway would match for a request: a declared route, else `$default`. */
export function routeKeyOf(routes: RouteFunctions, method: string, path: string): string {
  for (const routeKey of Object.keys(routes)) {
    const [routeMethod, pattern] = routeKey.split(" ");
    if (routeMethod === method && pattern !== undefined && pathMatches(pattern, path)) {
      return routeKey;
    }
  }
  return "$default";
}

/**
 * The variable holding a function's new version ARN: listCategories → ListCategoriesVersion, the
 * key infra/template.yaml's loop makes from the function's stem (its logical id without
 * "Function"), which is its name with the first letter raised.
 */
export function versionVariable(functionName: string): string {
  return `${functionName.charAt(0).toUpperCase()}${functionName.slice(1)}Version`;
}
