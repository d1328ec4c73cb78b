/**
 * A role's DynamoDB grants read from infra/template.yaml, and whether IAM lets one through for a
 * recorded call: the action, the table's Arn, and the dynamodb:LeadingKeys condition, exact
 * (ForAllValues:StringEquals) or a pattern such as "IDEMPOTENCY#*" (ForAllValues:StringLike).
 */
import type { Json } from "./cloudFormation.ts";
import { asArray, getAttArnOf, iamStatements, isObject } from "./cloudFormation.ts";
import type { ItemAccess } from "./dynamoAccess.ts";
import { ofType, template } from "./templateResources.ts";

const tableId = ofType("AWS::DynamoDB::Table")[0]?.[0] ?? "";

export interface Grant {
  readonly role: string;
  readonly sid: string;
  readonly action: string;
  readonly operator: "StringEquals" | "StringLike" | undefined;
  /** LeadingKeys values; undefined when the statement has no LeadingKeys condition. */
  readonly leadingKeys: readonly string[] | undefined;
  readonly onTable: boolean;
}

/** The DynamoDB grants of a function's role, one per action × statement. */
export function grantsOf(logicalId: string): { role: string; grants: Grant[] } {
  const props = template.Resources[logicalId]?.Properties ?? {};
  const role = getAttArnOf(props.Role) ?? logicalId;
  const grants = iamStatements(template)
    .filter(({ owner }) => owner === role)
    .flatMap(({ statement, at }) =>
      asArray(statement.Action)
        .map(String)
        .filter((action) => action.startsWith("dynamodb:"))
        .map((action): Grant => {
          const condition = isObject(statement.Condition) ? statement.Condition : {};
          const [operator, test] =
            Object.entries(condition).find(
              ([name, value]) =>
                name.startsWith("ForAllValues:") &&
                isObject(value) &&
                value["dynamodb:LeadingKeys"] !== undefined,
            ) ?? [];
          const values = isObject(test) ? asArray(test["dynamodb:LeadingKeys"]) : undefined;
          return {
            role,
            sid: typeof statement.Sid === "string" ? statement.Sid : at,
            action,
            operator: operator?.endsWith("StringLike")
              ? "StringLike"
              : operator?.endsWith("StringEquals")
                ? "StringEquals"
                : undefined,
            leadingKeys: values?.map(String),
            onTable: asArray(statement.Resource).some((resource: Json) => isTableArn(resource)),
          };
        }),
    );
  return { role, grants };
}

function isTableArn(resource: Json): boolean {
  if (getAttArnOf(resource) === tableId) return true;
  return isObject(resource) && resource["Fn::Sub"] === `\${${tableId}.Arn}`;
}

/** IAM StringLike: `*` any run of characters, `?` one character; case-sensitive. */
export function like(pattern: string, value: string): boolean {
  const source = pattern
    .split("")
    .map((char) =>
      char === "*" ? ".*" : char === "?" ? "." : char.replace(/[.+^${}()|[\]\\]/g, "\\$&"),
    )
    .join("");
  return new RegExp(`^${source}$`, "s").test(value);
}

export function valueMatches(grant: Grant, pattern: string, leadingKey: string): boolean {
  return grant.operator === "StringLike" ? like(pattern, leadingKey) : pattern === leadingKey;
}

/** Whether IAM lets the grant through for this access (ForAllValues over one leading key). */
export function allows(grant: Grant, access: ItemAccess): boolean {
  if (grant.action !== access.action || !grant.onTable || access.index !== undefined) return false;
  if (grant.leadingKeys === undefined || access.leadingKey === undefined) return true;
  const leadingKey = access.leadingKey;
  return grant.leadingKeys.some((pattern) => valueMatches(grant, pattern, leadingKey));
}

/** The LeadingKeys value to grant for a partition: "IDEMPOTENCY#<bucket>" → "IDEMPOTENCY#*". */
export function suggestedValue(leadingKey: string | undefined): string {
  if (leadingKey === undefined) return "(no partition key)";
  return leadingKey.includes("#") ? `${leadingKey.split("#")[0] ?? ""}#*` : leadingKey;
}
