/**
 * One response against one Response Object of openapi.yaml: the status expected, the documented
 * headers present (when required) and well-formed, the Content-Type a documented JSON media type
 * with charset=utf-8, the body matching the documented schema (Ajv, JSON Schema 2020-12), and an
 * error answer (400 and up) exactly `code`, `message` and `status`, `status` equal to the HTTP
 * status. Bodies are decoded text: nothing is decompressed. A HEAD answer has no body to check.
 */
import type { JsonObject } from "./openapiDocument.ts";
import { asObject, escapePointer, isObject, resolveRef, validate } from "./openapiDocument.ts";

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

/** Checks headers, media type and body against one Response Object (by JSON pointer). */
export function checkResponse(
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

export function headerOf(
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
