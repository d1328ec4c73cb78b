/**
 * Request expressions (lib/table/expressions.ts): each expression's placeholders merged into one
 * request, as the DynamoDB API takes them (ExpressionAttributeNames and ExpressionAttributeValues,
 * which it refuses when empty).
 */
import { describe, expect, it } from "vitest";
import { expressions, projectionOf, queryRequest } from "../../../lib/table/expressions.ts";

describe("a projection names every attribute through a placeholder (reserved words such as name)", () => {
  it("maps #p0, #p1, … to the attributes, in order", () => {
    expect(projectionOf(["id", "name"])).toEqual({
      text: "#p0, #p1",
      names: { "#p0": "id", "#p1": "name" },
    });
  });
});

describe("a request merges the placeholders of all its expressions", () => {
  it("sets each expression's text and one map of names and one of values", () => {
    expect(
      expressions({
        UpdateExpression: { text: "SET #o = :o", names: { "#o": "owner" }, values: { ":o": "a" } },
        ConditionExpression: { text: "#n < :n", names: { "#n": "n" }, values: { ":n": 3 } },
        FilterExpression: undefined,
      }),
    ).toEqual({
      UpdateExpression: "SET #o = :o",
      ConditionExpression: "#n < :n",
      ExpressionAttributeNames: { "#o": "owner", "#n": "n" },
      ExpressionAttributeValues: { ":o": { S: "a" }, ":n": { N: "3" } },
    });
  });

  it("leaves out a value left undefined, and the maps DynamoDB refuses when empty", () => {
    expect(expressions({ ConditionExpression: { text: "attribute_not_exists(pk)" } })).toEqual({
      ConditionExpression: "attribute_not_exists(pk)",
    });
    expect(
      expressions({ ConditionExpression: { text: "a = :a", values: { ":a": undefined } } }),
    ).toEqual({ ConditionExpression: "a = :a" });
    expect(expressions({})).toEqual({});
  });
});

describe("a Query reads a partition, or a sort-key range with both ends included (BETWEEN)", () => {
  it("asks the whole partition by pk alone, eventually consistent unless asked", () => {
    expect(queryRequest("t", { partition: "P" })).toEqual({
      TableName: "t",
      KeyConditionExpression: "pk = :pk",
      ExpressionAttributeValues: { ":pk": { S: "P" } },
    });
  });

  it("asks a range with BETWEEN, a filter and a projection, consistently when asked", () => {
    expect(
      queryRequest("t", {
        partition: "P",
        range: { between: ["a", "b"] },
        filter: { text: "#k = :k", names: { "#k": "kind" }, values: { ":k": "odd" } },
        projection: ["id"],
        consistent: true,
      }),
    ).toEqual({
      TableName: "t",
      KeyConditionExpression: "pk = :pk AND sk BETWEEN :skLow AND :skHigh",
      FilterExpression: "#k = :k",
      ProjectionExpression: "#p0",
      ExpressionAttributeNames: { "#k": "kind", "#p0": "id" },
      ExpressionAttributeValues: {
        ":pk": { S: "P" },
        ":skLow": { S: "a" },
        ":skHigh": { S: "b" },
        ":k": { S: "odd" },
      },
      ConsistentRead: true,
    });
    expect(queryRequest("t", { partition: "P", consistent: false })).not.toHaveProperty(
      "ConsistentRead",
    );
  });
});
