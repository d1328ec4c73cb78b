/**
 * Reading infra/template.yaml the way CloudFormation does, for the infra tests: the template as
 * JSON, its IAM statements, and Ref / Fn::GetAtt read back to the logical id they name.
 * References: cfnReferences.ts; conditions for a stage's parameters: cfnConditions.ts.
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
    // An inline policy of its own: its statements are the role's, as if written in it.
    if (resource.Type === "AWS::IAM::RolePolicy") {
      collect(refOf(props.RoleName) ?? id, `${id}.PolicyDocument`, props.PolicyDocument);
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
