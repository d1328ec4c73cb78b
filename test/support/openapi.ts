/**
 * Checks a response the service gave against openapi.yaml, the published interface description:
 * the operation is found by method and path template, the status must be documented for it, the
 * documented headers must be present and well-formed, the Content-Type must be a documented JSON
 * media type, and the body must match the documented schema (Ajv, JSON Schema 2020-12).
 *
 * Requests the document does not describe are the route fallback's: an unlisted path must get
 * 404 and a listed path with an unlisted method 405 (with `Allow` naming the listed methods),
 * both checked against the document's x-unlisted-routes (notFound / methodNotAllowed).
 *
 * Error answers (status 400 and up) must also have exactly `code`, `message` and `status`, with
 * `status` equal to the HTTP status. Bodies are passed as decoded text: nothing is decompressed.
 * A HEAD answer is checked by status and headers only, as it has no body.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { parse } from "yaml";
import { projectRoot } from "../../local/template.ts";

export const openApiPath = resolve(projectRoot, "openapi.yaml");

export interface ObservedResponse {
  /** The request method, e.g. "GET". */
  readonly method: string;
  /** The request path as sent to the server, `/v1` included, e.g. "/v1/pets/7". */
  readonly path: string;
  readonly status: number;
  readonly headers: Headers | Readonly<Record<string, string>>;
  /** The body as (decoded) text. */
  readonly body: string;
}

type JsonObject = Readonly<Record<string, unknown>>;

/** The HTTP methods an OpenAPI path item can hold, as its keys spell them. */
export const operationMethods = [
  "get",
  "put",
  "post",
  "delete",
  "options",
  "head",
  "patch",
  "trace",
] as const;

const documentId = "https://petstore.invalid/openapi.yaml";

/** OpenAPI keywords that may appear in its Schema Objects and that JSON Schema does not know. */
const openApiSchemaKeywords = ["discriminator", "xml", "externalDocs", "example"];

interface Loaded {
  readonly document: JsonObject;
  readonly ajv: Ajv2020;
  /** The path prefix every server URL ends with, e.g. "/v1". */
  readonly basePath: string;
}

let loaded: Loaded | undefined;

/** openapi.yaml, parsed once. */
export function loadOpenApi(): JsonObject {
  return load().document;
}

function load(): Loaded {
  if (loaded) return loaded;
  const document = parse(readFileSync(openApiPath, "utf8")) as unknown;
  if (!isObject(document)) throw new Error(`${openApiPath} is not a YAML mapping`);
  // strictTypes is off: the narrowing allOf branches (code/status consts) carry no `type`.
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false });
  addFormatsModule.default(ajv);
  ajv.addVocabulary(openApiSchemaKeywords);
  // The whole document becomes one schema resource, so its internal `#/components/...`
  // references resolve; the keys of an OpenAPI document are not schema keywords.
  ajv.addVocabulary(Object.keys(document).filter((key) => !ajv.getKeyword(key)));
  ajv.addSchema({ ...document, $id: documentId });
  loaded = { document, ajv, basePath: basePathOf(document) };
  return loaded;
}

/** Every server URL must end in the same path (the interface: `/v1`); that is the base path. */
function basePathOf(document: JsonObject): string {
  const servers = asArray(document.servers, "servers");
  const paths = new Set(
    servers.map((server, index) => {
      const url = asString(asObject(server, `servers[${index}]`).url, `servers[${index}].url`);
      return (/^[a-z][a-z0-9+.-]*:\/\/[^/]*(\/.*)?$/i.exec(url)?.[1] ?? "").replace(/\/$/, "");
    }),
  );
  const [basePath, ...others] = paths;
  if (basePath === undefined || others.length > 0) {
    throw new Error(
      `openapi.yaml: the server URLs must share one base path, got ${[...paths].join(", ")}`,
    );
  }
  return basePath;
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
  const relative = requestPath.startsWith(`${basePath}/`)
    ? requestPath.slice(basePath.length)
    : undefined;
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

/** Checks headers, media type and body against one Response Object (by JSON pointer). */
function checkResponse(
  response: ObservedResponse,
  responsePointer: string,
  expectedStatus: number,
  where: string,
): void {
  if (response.status !== expectedStatus) {
    throw new Error(`${where}: expected status ${expectedStatus}, got ${response.status}`);
  }
  const documented = resolveRef(responsePointer);
  checkHeaders(response, documented.pointer, where);
  const content = documented.value.content;
  if (content === undefined) {
    if (response.body !== "") throw new Error(`${where}: status ${response.status} has no body`);
    return;
  }
  const mediaType = mediaTypeOf(response, asObject(content, `${documented.pointer}/content`));
  // A HEAD answer has headers only (RFC 9110 §9.3.2): there is no body to check.
  if (response.method.toUpperCase() === "HEAD") {
    if (response.body !== "") throw new Error(`${where}: a HEAD answer has no body`);
    return;
  }
  const mediaPointer = `${documented.pointer}/content/${escapePointer(mediaType)}`;
  const body = parseJson(response.body, where);
  if (resolveRef(mediaPointer).value.schema !== undefined) {
    validate(`${mediaPointer}/schema`, body, `${where}: status ${response.status} body`);
  }
  if (response.status >= 400) checkErrorBody(body, response.status, where);
}

/** Required documented headers must be present; every present documented header must match. */
function checkHeaders(response: ObservedResponse, responsePointer: string, where: string): void {
  const headers = resolveRef(responsePointer).value.headers;
  if (headers === undefined) return;
  for (const name of Object.keys(asObject(headers, `${responsePointer}/headers`))) {
    if (name.toLowerCase() === "content-type") continue; // OpenAPI: ignored in headers
    const headerPointer = `${responsePointer}/headers/${escapePointer(name)}`;
    const header = resolveRef(headerPointer);
    const value = headerOf(response.headers, name.toLowerCase());
    if (value === undefined) {
      if (header.value.required === true) {
        throw new Error(`${where}: status ${response.status} must carry a ${name} header`);
      }
      continue;
    }
    if (header.value.schema === undefined) continue;
    const schemaPointer = `${header.pointer}/schema`;
    validate(
      schemaPointer,
      headerValue(value, resolveRef(schemaPointer).value),
      `${where}: header ${name}: "${value}"`,
    );
  }
}

/** A header is text; an integer or number schema describes the number that text spells. */
function headerValue(text: string, schema: JsonObject): unknown {
  const numeric = schema.type === "integer" || schema.type === "number";
  return numeric && /^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : text;
}

/** The documented media type the response's Content-Type names (JSON, with charset=utf-8). */
function mediaTypeOf(response: ObservedResponse, content: JsonObject): string {
  const contentType = headerOf(response.headers, "content-type");
  if (contentType === undefined) throw new Error(`${describe(response)}: no Content-Type`);
  const [essence = "", ...parameters] = contentType
    .split(";")
    .map((part) => part.trim().toLowerCase());
  const documented = Object.keys(content);
  const match = documented.find((type) => type.toLowerCase() === essence);
  if (match === undefined || !/^application\/(?:[\w.-]+\+)?json$/.test(essence)) {
    throw new Error(
      `${describe(response)}: Content-Type is "${contentType}", documented: ${documented.join(", ")}`,
    );
  }
  const charset = parameters.find((parameter) => parameter.startsWith("charset="));
  if (charset?.replace(/"/g, "") !== "charset=utf-8") {
    throw new Error(
      `${describe(response)}: Content-Type is "${contentType}"; JSON is sent as charset=utf-8`,
    );
  }
  return match;
}

/** The Error shape, beyond its schema: exactly three fields and `status` equal to the HTTP status. */
function checkErrorBody(body: unknown, status: number, where: string): void {
  if (!isObject(body)) throw new Error(`${where}: error body is not a JSON object`);
  const fields = Object.keys(body).sort().join(",");
  if (fields !== "code,message,status") {
    throw new Error(`${where}: error body must have exactly code, message, status; has ${fields}`);
  }
  if (body.status !== status) {
    throw new Error(
      `${where}: error body status ${JSON.stringify(body.status)} differs from HTTP status ${status}`,
    );
  }
}

function validate(schemaPointer: string, data: unknown, what: string): void {
  const check = compiled(schemaPointer);
  if (!check(data)) {
    const { ajv } = load();
    throw new Error(
      `${what} does not match ${schemaPointer}: ${ajv.errorsText(check.errors as ErrorObject[], { dataVar: "body" })}`,
    );
  }
}

const validators = new Map<string, ValidateFunction>();

function compiled(schemaPointer: string): ValidateFunction {
  let check = validators.get(schemaPointer);
  if (!check) {
    const { ajv } = load();
    check = ajv.compile({ $ref: `${documentId}${schemaPointer}` });
    validators.set(schemaPointer, check);
  }
  return check;
}

/** Follows `$ref`s (internal ones) from a JSON pointer; returns the final object and its pointer. */
function resolveRef(pointer: string): { value: JsonObject; pointer: string } {
  const seen = new Set<string>();
  let current = pointer;
  for (;;) {
    if (seen.has(current)) throw new Error(`openapi.yaml: $ref cycle at ${current}`);
    seen.add(current);
    const value = asObject(at(current), current);
    if (typeof value.$ref !== "string") return { value, pointer: current };
    if (!value.$ref.startsWith("#/")) {
      throw new Error(`openapi.yaml: only internal $refs are supported, got ${value.$ref}`);
    }
    current = value.$ref;
  }
}

function at(pointer: string): unknown {
  let node: unknown = load().document;
  for (const part of pointer.replace(/^#\//, "").split("/")) {
    const key = part.replace(/~1/g, "/").replace(/~0/g, "~");
    node = isObject(node) ? node[key] : undefined;
    if (node === undefined) throw new Error(`openapi.yaml has nothing at ${pointer}`);
  }
  return node;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
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

function headerOf(
  headers: Headers | Readonly<Record<string, string>>,
  lowerName: string,
): string | undefined {
  if (headers instanceof Headers) return headers.get(lowerName) ?? undefined;
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === lowerName) return value;
  }
  return undefined;
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`${where}: the body is not JSON: ${JSON.stringify(text.slice(0, 200))}`);
  }
}

function describe(response: ObservedResponse): string {
  return `${response.method.toUpperCase()} ${response.path} → ${response.status}`;
}

function isOperationMethod(key: string): key is (typeof operationMethods)[number] {
  return (operationMethods as readonly string[]).includes(key);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asObject(value: unknown, where: string): JsonObject {
  if (!isObject(value)) throw new Error(`openapi.yaml: ${where} is not a mapping`);
  return value;
}

function asArray(value: unknown, where: string): readonly unknown[] {
  if (!Array.isArray(value)) throw new Error(`openapi.yaml: ${where} is not a list`);
  return value as readonly unknown[];
}

function asString(value: unknown, where: string): string {
  if (typeof value !== "string") throw new Error(`openapi.yaml: ${where} is not a string`);
  return value;
}
