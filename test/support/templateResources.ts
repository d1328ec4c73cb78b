/**
 * infra/template.yaml's resources as the infra tests read them: by type, and each function's
 * properties with Globals applied as SAM applies them. Parsed once per test file.
 */
import { functionsOf, loadTemplate } from "../../local/template.ts";
import type { Json, JsonObject } from "./cloudFormation.ts";
import { isObject, raw } from "./cloudFormation.ts";

export type Resource = JsonObject & { Properties?: JsonObject };

export const template = raw(loadTemplate());
export const resources = Object.entries(template.Resources);

export function ofType(type: string): [string, Resource][] {
  return resources.filter(([, resource]) => resource.Type === type);
}

export const functions = ofType("AWS::Serverless::Function");
export const globals = template.Globals.Function;

/** A function's property, with Globals applied as SAM applies them (function wins). */
export function prop(id: string, name: string): Json | undefined {
  return template.Resources[id]?.Properties?.[name] ?? globals[name];
}

/** The functions behind the API's routes (the pre-traffic hook has none). */
export const apiFunctions = functions.filter(([id]) =>
  functionsOf().some((spec) => spec.logicalId === id && spec.routeKeys.length > 0),
);

/** A function's environment variables: Globals', then its own (SAM merges them, own wins). */
export function environmentOf(id: string): JsonObject {
  return {
    ...variablesOf(globals.Environment),
    ...variablesOf(template.Resources[id]?.Properties?.Environment),
  };
}

function variablesOf(environment: Json | undefined): JsonObject {
  return isObject(environment) && isObject(environment.Variables) ? environment.Variables : {};
}

/** The property holding the name each named resource type is known by (its Ref, for these). */
const nameProperty: Readonly<Record<string, string>> = {
  "AWS::Serverless::Function": "FunctionName",
  "AWS::CloudWatch::Alarm": "AlarmName",
  "AWS::Logs::LogGroup": "LogGroupName",
};

/**
 * A name as the template writes it, with every reference to a named resource read as that
 * resource's own name: `{"Fn::Sub": "${ListCategoriesFunction}-errors"}` →
 * "petstore-${Stage}-listCategories-errors", `{"Ref": "ListCategoriesErrorsAlarm"}` → the same.
 * What is left of a Sub (`${Stage}`, `${AWS::Region}`) stays as written.
 */
export function nameText(value: Json | undefined): string {
  if (typeof value === "string") return value;
  if (!isObject(value)) return JSON.stringify(value ?? null);
  const named = (id: string): string | undefined => {
    const resource = template.Resources[id];
    const property = nameProperty[String(resource?.Type)];
    return property === undefined ? undefined : nameText(resource?.Properties?.[property]);
  };
  if (typeof value.Ref === "string") return named(value.Ref) ?? `\${${value.Ref}}`;
  const sub = value["Fn::Sub"];
  if (typeof sub !== "string") return JSON.stringify(value);
  return sub.replaceAll(/\$\{([A-Za-z0-9]+)\}/g, (whole, id: string) => named(id) ?? whole);
}
