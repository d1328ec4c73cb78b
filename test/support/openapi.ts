/**
 * Checks a response the service gave against openapi.yaml, the published interface description:
 * the operation is found by method and path template, the status must be documented for it, and
 * the response must match the documented Response Object (test/support/openapiResponse.ts:
 * headers, media type, body schema, the Error shape).
 *
 * Requests the document does not describe are the route fallback's: an unlisted path must get
 * 404 and a listed path with an unlisted method 405 (with `Allow` naming the listed methods),
 * both checked against the document's x-unlisted-routes (notFound / methodNotAllowed).
 */
import { asObject, escapePointer, load, operationMethods, resolveRef } from "./openapiDocument.ts";
import type { ObservedResponse } from "./openapiResponse.ts";
import { checkResponse, headerOf } from "./openapiResponse.ts";

export type { ObservedResponse } from "./openapiResponse.ts";

/**
 * A request path as API Gateway matches routes on it and hands it to the function: decoded
 * once; undefined for one whose escapes do not decode, which matches no route (the tests' own
 * reading of the contract, not lib/routes.ts's).
 */
export function routedPath(rawPath: string): string | undefined {
  try {
    return decodeURIComponent(rawPath);
  } catch {
    return undefined;
  }
}

/**
 * Whether the route fallback can answer 405 for a path it was handed (decoded once): it never
 * decodes again, and one still holding a `%` that starts no escape (sent as `%25`) is 404. This
 * restates the contract's rule (docs/contract.md: `DELETE /v1/pets/%25` is 404), which exists
 * for paths the gateway could not decode; it is the same rule lib/routes.ts implements.
 */
export function fallbackReads(handedPath: string): boolean {
  return routedPath(handedPath) !== undefined;
}

/**
 * Throws an Error naming what does not match when the response is not one openapi.yaml
 * documents for this method and path.
 */
export function assertMatchesOpenApi(response: ObservedResponse): void {
  const { document, basePath } = load();
  const method = response.method.toUpperCase();
  const requestPath = response.path.split("?", 1)[0] ?? "";
  const where = `${method} ${requestPath}`;
  const paths = asObject(document.paths, "paths");
  const decoded = routedPath(requestPath);
  const relative = decoded?.startsWith(`${basePath}/`) ? decoded.slice(basePath.length) : undefined;
  const template =
    relative === undefined
      ? undefined
      : Object.keys(paths).find((candidate) => templateMatches(candidate, relative));

  if (template === undefined) {
    checkResponse(response, "#/x-unlisted-routes/notFound", 404, `${where} (no such path)`);
    return;
  }
  const pathPointer = `#/paths/${escapePointer(template)}`;
  const pathItem = resolveRef(pathPointer).value;
  const operationKey = method.toLowerCase();
  if (!isOperationMethod(operationKey) || pathItem[operationKey] === undefined) {
    if (!fallbackReads(decoded ?? "")) {
      checkResponse(response, "#/x-unlisted-routes/notFound", 404, `${where} (no such path)`);
      return;
    }
    const allowed = operationMethods.filter((key) => pathItem[key] !== undefined);
    checkResponse(
      response,
      "#/x-unlisted-routes/methodNotAllowed",
      405,
      `${where} (${template} has no ${method})`,
    );
    const allow = headerOf(response.headers, "allow") ?? "";
    const allowSet = allow.split(",").map((token) => token.trim().toLowerCase());
    if (allowSet.sort().join(",") !== [...allowed].sort().join(",")) {
      throw new Error(
        `${where}: Allow is "${allow}", but ${template} documents ${allowed.map((m) => m.toUpperCase()).join(", ")}`,
      );
    }
    return;
  }

  const responsesPointer = `${pathPointer}/${operationKey}/responses`;
  const responses = resolveRef(responsesPointer).value;
  const status = String(response.status);
  const key = [status, `${status.charAt(0)}XX`, "default"].find((k) => responses[k] !== undefined);
  if (key === undefined) {
    throw new Error(`status ${status} not documented for ${where} (${template})`);
  }
  checkResponse(response, `${responsesPointer}/${escapePointer(key)}`, response.status, where);
}

/** `{name}` matches one non-empty path segment. */
function templateMatches(template: string, path: string): boolean {
  const want = template.split("/");
  const got = path.split("/");
  return (
    want.length === got.length &&
    want.every((segment, index) => {
      const actual = got[index] ?? "";
      return /^\{[^}]+\}$/.test(segment) ? actual !== "" : segment === actual;
    })
  );
}

function isOperationMethod(key: string): key is (typeof operationMethods)[number] {
  return (operationMethods as readonly string[]).includes(key);
}
