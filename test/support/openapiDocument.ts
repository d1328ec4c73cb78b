/**
 * openapi.yaml, the published interface description, loaded once per test file: the parsed
 * document, its base path (the path every server URL ends with, e.g. "/v1"), its internal
 * `$ref`s followed by JSON pointer, and an Ajv (JSON Schema 2020-12) validator for any schema
 * in it. test/support/openapi.ts checks responses with it.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { parse } from "yaml";
import { projectRoot } from "../../local/template.ts";

export const openApiPath = resolve(projectRoot, "openapi.yaml");

export type JsonObject = Readonly<Record<string, unknown>>;

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

export interface Loaded {
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

export function load(): Loaded {
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

export function validate(schemaPointer: string, data: unknown, what: string): void {
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
export function resolveRef(pointer: string): { value: JsonObject; pointer: string } {
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

export function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function asObject(value: unknown, where: string): JsonObject {
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

/** The mapping at `keys` under `value`; throws naming the keys when there is none. */
export function objectAt(value: unknown, ...keys: string[]): JsonObject {
  let node = value;
  for (const key of keys) node = (node as JsonObject | undefined)?.[key];
  if (typeof node !== "object" || node === null) throw new Error(`nothing at ${keys.join(".")}`);
  return node as JsonObject;
}
