/**
 * Reading infra/template.yaml the way CloudFormation does, for the infra tests: intrinsic
 * function references, conditions evaluated for a stage's parameters, and IAM statements.
 */
import type { Template } from "../../local/template.ts";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A scalar as CloudFormation would write it into a string; anything else as JSON. */
export function text(value: Json | undefined): string {
  if (value === undefined || value === null) return "";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

export function asArray(value: Json | undefined): Json[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

export interface RawTemplate {
  readonly Transform?: Json;
  readonly Parameters: Record<string, JsonObject>;
  readonly Conditions: Record<string, Json>;
  readonly Globals: { readonly Function: JsonObject };
  readonly Resources: Record<string, JsonObject & { Type: string; Properties?: JsonObject }>;
  readonly Outputs: Record<string, JsonObject>;
}

export function raw(template: Template): RawTemplate {
  const t = template as unknown as Partial<RawTemplate>;
  return {
    ...(t.Transform !== undefined && { Transform: t.Transform }),
    Parameters: t.Parameters ?? {},
    Conditions: t.Conditions ?? {},
    Globals: { Function: t.Globals?.Function ?? {} },
    Resources: t.Resources ?? {},
    Outputs: t.Outputs ?? {},
  };
}

/** Pseudo parameters CloudFormation defines for every stack. */
export const pseudoParameters = new Set([
  "AWS::AccountId",
  "AWS::NotificationARNs",
  "AWS::NoValue",
  "AWS::Partition",
  "AWS::Region",
  "AWS::StackId",
  "AWS::StackName",
  "AWS::URLSuffix",
]);

export interface Reference {
  readonly kind: "Ref" | "GetAtt" | "Sub" | "Condition";
  readonly name: string;
  readonly attribute?: string;
  /** Where in the template, e.g. Resources.HttpApi.Properties.Description. */
  readonly at: string;
}

/** Every Ref, Fn::GetAtt, ${...} of Fn::Sub and condition name (Fn::If, Condition) under node. */
export function referencesIn(node: unknown, at: string): Reference[] {
  const found: Reference[] = [];
  const walk = (value: unknown, path: string, subLocals: ReadonlySet<string>): void => {
    if (Array.isArray(value)) {
      value.forEach((item, index) => {
        walk(item, `${path}[${index}]`, subLocals);
      });
      return;
    }
    if (!isObject(value)) return;
    const keys = Object.keys(value);
    const only = keys.length === 1 ? keys[0] : undefined;
    const argument = only === undefined ? undefined : value[only];
    if (only === "Ref" && typeof argument === "string") {
      if (!subLocals.has(argument)) found.push({ kind: "Ref", name: argument, at: path });
      return;
    }
    if (only === "Fn::GetAtt") {
      const [name, ...attribute] =
        typeof argument === "string" ? argument.split(".") : asArray(argument).map(String);
      found.push({ kind: "GetAtt", name: name ?? "", attribute: attribute.join("."), at: path });
      return;
    }
    if (only === "Fn::Sub") {
      const [source, variables] = Array.isArray(argument) ? argument : [argument, undefined];
      const locals = new Set(isObject(variables) ? Object.keys(variables) : []);
      if (isObject(variables)) walk(variables, `${path}.Fn::Sub[1]`, subLocals);
      for (const match of text(source).matchAll(/\$\{([^}!][^}]*)\}/g)) {
        const [name = "", attribute] = (match[1] ?? "").trim().split(/\.(.*)/s);
        if (locals.has(name)) continue;
        found.push(
          attribute === undefined || name.startsWith("AWS::")
            ? { kind: "Sub", name, at: path }
            : { kind: "Sub", name, attribute, at: path },
        );
      }
      return;
    }
    if (only === "Fn::If" && Array.isArray(argument)) {
      found.push({ kind: "Condition", name: text(argument[0]), at: path });
      argument.slice(1).forEach((branch, index) => {
        walk(branch, `${path}.Fn::If[${index + 1}]`, subLocals);
      });
      return;
    }
    if (only === "Condition" && typeof argument === "string") {
      found.push({ kind: "Condition", name: argument, at: path });
      return;
    }
    for (const key of keys) walk(value[key], `${path}.${key}`, subLocals);
  };
  walk(node, at, new Set());
  return found;
}

export type ParameterValues = Readonly<Record<string, string | readonly string[]>>;

/**
 * A stack's parameter values as CloudFormation resolves them: the template's Defaults, then the
 * given values; CommaDelimitedList values become lists ("" is [""], as in CloudFormation).
 */
export function parameterValues(
  template: RawTemplate,
  given: Readonly<Record<string, string>>,
): ParameterValues {
  const values: Record<string, string | string[]> = {};
  for (const [name, spec] of Object.entries(template.Parameters)) {
    const value = name in given ? given[name] : spec.Default;
    if (value === undefined) continue;
    values[name] = spec.Type === "CommaDelimitedList" ? text(value).split(",") : text(value);
  }
  return values;
}

/** Evaluates a condition (or any Fn::If / Ref tree) for the given parameter values. */
export function evaluate(
  node: Json | undefined,
  parameters: ParameterValues,
  conditions: Readonly<Record<string, Json>>,
): Json | undefined {
  const condition = (name: string): boolean => {
    const definition = conditions[name];
    if (definition === undefined) throw new Error(`no condition ${name}`);
    return evaluate(definition, parameters, conditions) === true;
  };
  if (Array.isArray(node))
    return node.map((item) => evaluate(item, parameters, conditions) ?? null);
  if (!isObject(node)) return node;
  const keys = Object.keys(node);
  const [only] = keys;
  const argument = only === undefined ? undefined : node[only];
  if (keys.length === 1 && only !== undefined && argument !== undefined) {
    const list = asArray(argument);
    switch (only) {
      case "Ref": {
        const name = text(argument);
        if (name === "AWS::NoValue") return undefined;
        const value = parameters[name];
        if (value === undefined) throw new Error(`no value for parameter ${name}`);
        return typeof value === "string" ? value : [...value];
      }
      case "Condition":
        return condition(text(argument));
      case "Fn::Equals": {
        const [left, right] = list.map((item) => evaluate(item, parameters, conditions));
        return JSON.stringify(left) === JSON.stringify(right);
      }
      case "Fn::Not":
        return evaluate(list[0], parameters, conditions) !== true;
      case "Fn::And":
        return list.every((item) => evaluate(item, parameters, conditions) === true);
      case "Fn::Or":
        return list.some((item) => evaluate(item, parameters, conditions) === true);
      case "Fn::If":
        return evaluate(condition(text(list[0])) ? list[1] : list[2], parameters, conditions);
      case "Fn::Join": {
        const [separator, items] = list;
        const values = evaluate(items, parameters, conditions);
        return asArray(values ?? null)
          .map((item) => text(item))
          .join(text(separator));
      }
      case "Fn::Split": {
        const [separator, source] = list;
        return text(evaluate(source, parameters, conditions)).split(text(separator));
      }
      default:
        break;
    }
  }
  const result: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    const resolved = evaluate(value, parameters, conditions);
    if (resolved !== undefined) result[key] = resolved;
  }
  return result;
}

export interface IamStatement {
  /** The resource holding the policy (a role, or a function's SAM Policies). */
  readonly owner: string;
  readonly at: string;
  readonly statement: JsonObject;
}

/** Every statement of every identity policy the template declares. */
export function iamStatements(template: RawTemplate): IamStatement[] {
  const statements: IamStatement[] = [];
  const collect = (owner: string, at: string, document: Json | undefined): void => {
    if (!isObject(document)) return;
    asArray(document.Statement).forEach((statement, index) => {
      if (isObject(statement)) {
        statements.push({ owner, at: `${at}.Statement[${index}]`, statement });
      }
    });
  };
  for (const [id, resource] of Object.entries(template.Resources)) {
    const props = resource.Properties ?? {};
    if (resource.Type === "AWS::IAM::Role" || resource.Type === "AWS::IAM::User") {
      asArray(props.Policies).forEach((policy, index) => {
        if (isObject(policy)) {
          collect(id, `${id}.Policies[${index}].PolicyDocument`, policy.PolicyDocument);
        }
      });
    }
    if (resource.Type === "AWS::IAM::Policy" || resource.Type === "AWS::IAM::ManagedPolicy") {
      collect(id, `${id}.PolicyDocument`, props.PolicyDocument);
    }
    if (resource.Type === "AWS::Serverless::Function") {
      asArray(props.Policies).forEach((policy, index) => {
        collect(id, `${id}.Policies[${index}]`, policy);
      });
    }
  }
  return statements;
}

/** `{"Fn::GetAtt": [id, "Arn"]}` (or "id.Arn") → id; otherwise undefined. */
export function getAttArnOf(value: Json | undefined): string | undefined {
  if (!isObject(value)) return undefined;
  const getAtt = value["Fn::GetAtt"];
  const [id, attribute] =
    typeof getAtt === "string" ? getAtt.split(".") : asArray(getAtt).map(String);
  return attribute === "Arn" ? id : undefined;
}

/** `{"Ref": id}` → id; otherwise undefined. */
export function refOf(value: Json | undefined): string | undefined {
  return isObject(value) && typeof value.Ref === "string" ? value.Ref : undefined;
}
