/**
 * The AWS SAM template JSON schema (draft-04), read from ../shared/sam-schema/ beside the
 * repository (see the README there); never copied into the repository. Validates one resource
 * against the single definition its Type names, so that errors read as one list, not as every
 * `anyOf` alternative.
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import AjvModule from "ajv-draft-04";
import type { ErrorObject, ValidateFunction } from "ajv-draft-04";
import { projectRoot } from "../../local/template.ts";
import type { MissingTool } from "./missingTool.ts";

export const samSchemaPath = resolve(projectRoot, "../shared/sam-schema/sam.schema.json");

/** What the skip report says when the schema is absent. */
export const samSchemaMissing: MissingTool = {
  tool: `the AWS SAM schema (${samSchemaPath})`,
  get:
    "put the team's sam-schema folder beside the repository, or save schema_source/sam.schema.json " +
    "of the AWS SAM project (github.com/aws/serverless-application-model) at that path",
};

interface Definition {
  readonly properties?: { readonly Type?: { readonly enum?: readonly string[] } };
}
interface SamSchema {
  readonly definitions: Readonly<Record<string, Definition>>;
}

export interface SamSchemaValidator {
  /** Errors of a resource checked against the definition of its Type ([] when valid). */
  resource(logicalId: string, resource: unknown): string[];
  /** Errors of one event of a function, against the definition of the event's Type. */
  event(path: string, event: unknown): string[];
  /** Errors of the Globals section. */
  globals(globals: unknown): string[];
  /** Errors of the whole template against the top-level schema. */
  template(template: unknown): string[];
}

/** undefined when the schema is not there (the caller skips and says why). */
export function loadSamSchema(path = samSchemaPath): SamSchemaValidator | undefined {
  if (!existsSync(path)) return undefined;
  const schema = JSON.parse(readFileSync(path, "utf8")) as SamSchema;
  // strict: false — the published schema carries annotations (markdownDescription, ...)
  // that are not JSON Schema keywords.
  const ajv = new AjvModule.default({ strict: false, allErrors: true });
  ajv.addSchema(schema, "sam");
  const compiled = new Map<string, ValidateFunction>();
  const validatorFor = (ref: string): ValidateFunction => {
    let validate = compiled.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: `sam${ref}` });
      compiled.set(ref, validate);
    }
    return validate;
  };
  const definitionNaming = (type: string, suffix: RegExp): string | undefined =>
    Object.entries(schema.definitions).find(
      ([name, definition]) =>
        suffix.test(name) && definition.properties?.Type?.enum?.includes(type) === true,
    )?.[0];
  const run = (ref: string, value: unknown, where: string): string[] => {
    const validate = validatorFor(ref);
    return validate(value) ? [] : (validate.errors ?? []).map((error) => describe(where, error));
  };

  return {
    resource: (logicalId, resource) => {
      const type = (resource as { Type?: unknown }).Type;
      if (typeof type !== "string") return [`${logicalId}: no Type`];
      if (!type.startsWith("AWS::Serverless::")) {
        return run(
          "#/definitions/samtranslator__internal__schema_source__any_cfn_resource__Resource",
          resource,
          logicalId,
        );
      }
      const definition = definitionNaming(type, /__Resource$/);
      if (!definition) return [`${logicalId}: the SAM schema knows no resource type ${type}`];
      return run(`#/definitions/${definition}`, resource, logicalId);
    },
    event: (path, event) => {
      const type = (event as { Type?: unknown }).Type;
      if (typeof type !== "string") return [`${path}: no Type`];
      const definition = definitionNaming(type, /Event$/);
      if (!definition) return [`${path}: the SAM schema knows no event type ${type}`];
      return run(`#/definitions/${definition}`, event, path);
    },
    globals: (globals) => run("#/definitions/__main____Globals", globals, "Globals"),
    template: (template) => run("#", template, "template"),
  };
}

function describe(where: string, error: ErrorObject): string {
  const params = JSON.stringify(error.params);
  return `${where}${error.instancePath} ${error.message ?? "is invalid"} ${params}`;
}
