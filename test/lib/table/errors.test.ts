/**
 * What DynamoDB's answers mean (lib/table/errors.ts): the JSON error body of the DynamoDB API
 * (`__type` "namespace#Type", `message` or `Message`) and which errors the client retries.
 */
import { describe, expect, it } from "vitest";
import {
  conditionHeld,
  DynamoDbError,
  isConditionFailure,
  isRetryable,
  readAnswer,
  TransportError,
} from "../../../lib/table/errors.ts";

const caught = (run: () => unknown): unknown => {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
};

describe("a 200 answers its JSON body", () => {
  it("parses the body of a 200 as the operation's output", () => {
    expect(readAnswer(200, '{"Item":{"pk":{"S":"a"}}}')).toEqual({ Item: { pk: { S: "a" } } });
  });
});

describe("an answer that is not JSON is a transport fault (a proxy's page, a body cut off)", () => {
  it.each([200, 500])("throws TransportError for an unreadable HTTP %i answer", (status) => {
    const error = caught(() => readAnswer(status, "<html>bad gateway"));
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({
      name: "TransportError",
      message: `unreadable answer (HTTP ${String(status)})`,
    });
    expect(isRetryable(error)).toBe(true);
  });
});

describe("an error answer names its type after the namespace's '#', its message and status", () => {
  it("reads __type without the namespace and the message (DynamoDB's lower-case message)", () => {
    const error = caught(() =>
      readAnswer(
        400,
        JSON.stringify({
          __type: "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException",
          message: "The conditional request failed",
        }),
      ),
    );
    expect(error).toBeInstanceOf(DynamoDbError);
    expect(error).toMatchObject({
      name: "DynamoDbError",
      type: "ConditionalCheckFailedException",
      statusCode: 400,
      message: "ConditionalCheckFailedException: The conditional request failed",
      item: undefined,
    });
    expect(isConditionFailure(error)).toBe(true);
  });

  it("reads a __type without a namespace as it is, and Message (some errors' capitalised field)", () => {
    const error = caught(() =>
      readAnswer(400, JSON.stringify({ __type: "ValidationException", Message: "bad input" })),
    );
    expect(error).toMatchObject({
      type: "ValidationException",
      message: "ValidationException: bad input",
    });
  });

  it("names an error without __type or message by its HTTP status", () => {
    for (const body of ["{}", "null", JSON.stringify({ __type: 7, message: 8 })]) {
      expect(caught(() => readAnswer(503, body))).toMatchObject({
        type: "HTTP503",
        statusCode: 503,
        message: "HTTP503: no message",
        item: undefined,
      });
    }
  });

  it("keeps the item a failed condition answered (ReturnValuesOnConditionCheckFailure ALL_OLD)", () => {
    const Item = { pk: { S: "a" }, owner: { S: "x" } };
    const body = JSON.stringify({
      __type: "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException",
      message: "The conditional request failed",
      Item,
    });
    expect(caught(() => readAnswer(400, body))).toMatchObject({ item: Item });
    const notAnItem = JSON.stringify({ __type: "X", Item: null });
    expect(caught(() => readAnswer(400, notAnItem))).toMatchObject({ item: undefined });
  });
});

describe("throttling, 5xx, transport faults and a transaction still in progress are retried; DynamoDB's other refusals are not", () => {
  it.each([
    ["ProvisionedThroughputExceededException", 400, true],
    ["ThrottlingException", 400, true],
    ["RequestLimitExceeded", 400, true],
    ["LimitExceededException", 400, true],
    ["InternalServerError", 500, true],
    ["ServiceUnavailable", 503, true],
    ["InternalServerError", 400, true],
    ["ServiceUnavailable", 400, true],
    ["Unknown", 500, true],
    ["TransactionInProgressException", 400, true],
    ["ConditionalCheckFailedException", 400, false],
    ["ValidationException", 400, false],
    ["Unknown", 499, false],
  ] as const)("%s (HTTP %i): retried %s", (type, status, retried) => {
    expect(isRetryable(new DynamoDbError(type, status, "m"))).toBe(retried);
  });

  it("does not retry an error not from DynamoDB", () => {
    expect(isRetryable(new Error("ThrottlingException"))).toBe(false);
  });
});

describe("a conditional write answers whether its condition held; other faults pass on", () => {
  it("answers true when made, false on ConditionalCheckFailedException, and rethrows the rest", async () => {
    expect(await conditionHeld(Promise.resolve({}))).toBe(true);
    const failed = new DynamoDbError("ConditionalCheckFailedException", 400, "m");
    expect(await conditionHeld(Promise.reject(failed))).toBe(false);
    const other = new DynamoDbError("ValidationException", 400, "m");
    await expect(conditionHeld(Promise.reject(other))).rejects.toBe(other);
    expect(isConditionFailure(new Error("ConditionalCheckFailedException"))).toBe(false);
  });
});

describe("a cancelled transaction names each write's reason, in order", () => {
  it("reads CancellationReasons' codes; a reason without one is None; none at all is empty", () => {
    const body = JSON.stringify({
      __type: "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
      Message: "Transaction cancelled",
      CancellationReasons: [{ Code: "None" }, { Code: "ConditionalCheckFailed" }, {}, null],
    });
    expect(caught(() => readAnswer(400, body))).toMatchObject({
      type: "TransactionCanceledException",
      reasons: ["None", "ConditionalCheckFailed", "None", "None"],
    });
    const notAList = JSON.stringify({ __type: "X", CancellationReasons: { Code: "None" } });
    expect(caught(() => readAnswer(400, notAList))).toMatchObject({ reasons: [] });
  });
});
