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
