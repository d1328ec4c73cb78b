/**
 * The IAM cross-check's own logic, shown on hand-made cases: grants match as IAM matches them
 * (exact values, StringLike wildcards), and the partition of each kind of DynamoDB call is read
 * from its request.
 */
import { describe, expect, it } from "vitest";
import { localTableName } from "../../../local/localKeys.ts";
import type { JsonObject } from "../../support/cloudFormation.ts";
import type { ItemAccess } from "../../support/dynamoAccess.ts";
import { accessesOf } from "../../support/dynamoAccess.ts";
import type { Grant } from "../../support/iamGrants.ts";
import { allows, like, suggestedValue } from "../../support/iamGrants.ts";

describe("the cross-check itself", () => {
  const access = (action: string, leadingKey: string): ItemAccess => ({
    label: "x",
    operation: action,
    action: `dynamodb:${action}`,
    table: localTableName,
    leadingKey,
    index: undefined,
  });
  const grant = (operator: Grant["operator"], values: string[]): Grant => ({
    role: "Role",
    sid: "S",
    action: "dynamodb:GetItem",
    operator,
    leadingKeys: values,
    onTable: true,
  });

  it("matches exact values and IAM wildcards as IAM does", () => {
    expect(allows(grant("StringEquals", ["APIKEY"]), access("GetItem", "APIKEY"))).toBe(true);
    expect(allows(grant("StringEquals", ["APIKEY"]), access("GetItem", "APIKEYS"))).toBe(false);
    expect(allows(grant("StringEquals", ["APIKEY"]), access("PutItem", "APIKEY"))).toBe(false);
    const idempotency = grant("StringLike", ["IDEMPOTENCY#*"]);
    expect(allows(idempotency, access("GetItem", "IDEMPOTENCY#ab12"))).toBe(true);
    expect(allows(idempotency, access("GetItem", "CATEGORY"))).toBe(false);
    expect(
      allows(grant("StringEquals", ["IDEMPOTENCY#*"]), access("GetItem", "IDEMPOTENCY#a")),
    ).toBe(false);
    expect(like("A?C", "ABC")).toBe(true);
    expect(like("A.C", "ABC")).toBe(false);
    expect(suggestedValue("IDEMPOTENCY#0f3a")).toBe("IDEMPOTENCY#*");
  });

  it("reads the partition of each kind of call", () => {
    const call = (operation: string, input: JsonObject) => ({
      label: "x",
      operation,
      input,
      lost: false,
      fault: undefined,
    });
    const s = (value: string): JsonObject => ({ S: value });
    expect(
      accessesOf(
        call("Query", {
          TableName: "t",
          KeyConditionExpression: "#p = :v AND begins_with(sk, :s)",
          ExpressionAttributeNames: { "#p": "pk" },
          ExpressionAttributeValues: { ":v": s("CATEGORY"), ":s": s("0") },
        }),
        "pk",
      ).map((a) => [a.action, a.leadingKey]),
    ).toEqual([["dynamodb:Query", "CATEGORY"]]);
    expect(
      accessesOf(
        call("TransactWriteItems", {
          TransactItems: [
            { Put: { TableName: "t", Item: { pk: s("CATEGORY"), sk: s("1") } } },
            { Update: { TableName: "t", Key: { pk: s("COUNTER"), sk: s("c") } } },
            { ConditionCheck: { TableName: "t", Key: { pk: s("IDEMPOTENCY#x"), sk: s("k") } } },
          ],
        }),
        "pk",
      ).map((a) => [a.action, a.leadingKey]),
    ).toEqual([
      ["dynamodb:PutItem", "CATEGORY"],
      ["dynamodb:UpdateItem", "COUNTER"],
      ["dynamodb:ConditionCheckItem", "IDEMPOTENCY#x"],
    ]);
    expect(
      accessesOf(call("DeleteItem", { TableName: "t", Key: { pk: s("IDEMPOTENCY#y") } }), "pk")[0]
        ?.leadingKey,
    ).toBe("IDEMPOTENCY#y");
  });
});
