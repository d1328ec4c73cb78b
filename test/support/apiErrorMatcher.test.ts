/** The Error-shape matcher every test relies on: it passes the contract's Error, and only that. */
import { describe, expect, it } from "vitest";
import { apiErrorProblems } from "./apiErrorMatcher.ts";

const headers = {
  "content-type": "application/json; charset=utf-8",
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
};
const body = { code: "invalid_body", message: "'name' is required", status: 400 };
const handlerResponse = (over: Record<string, unknown> = {}, error: object = body) => ({
  statusCode: 400,
  headers,
  body: JSON.stringify(error),
  isBase64Encoded: false,
  ...over,
});

describe("toBeApiError accepts the contract's Error from a handler or over HTTP", () => {
  it("passes a handler response and an HTTP answer with the same Error", () => {
    expect(handlerResponse()).toBeApiError(400, "invalid_body", /required/);
    expect({ status: 400, headers, text: JSON.stringify(body) }).toBeApiError(400);
  });
});

describe("toBeApiError refuses anything else, naming each broken rule", () => {
  it.each([
    ["another HTTP status", handlerResponse({ statusCode: 422 }), /HTTP status is 422/],
    [
      "body.status unlike the HTTP status",
      handlerResponse({}, { ...body, status: 422 }),
      /body\.status/,
    ],
    ["an extra key", handlerResponse({}, { ...body, detail: "x" }), /keys are/],
    ["a missing key", handlerResponse({}, { code: "invalid_body", status: 400 }), /keys are/],
    ["another code", handlerResponse({}, { ...body, code: "invalid_json" }), /code is/],
    ["an empty message", handlerResponse({}, { ...body, message: "" }), /message is/],
    ["a base64 body", handlerResponse({ isBase64Encoded: true }), /base64/],
    [
      "text/plain",
      handlerResponse({ headers: { ...headers, "content-type": "text/plain" } }),
      /content-type/,
    ],
    [
      "no Cache-Control",
      handlerResponse({ headers: { ...headers, "cache-control": undefined } }),
      /cache-control/,
    ],
    ["a body that is not JSON", handlerResponse({ body: "oops" }), /not JSON/],
    ["not an answer at all", "400 invalid_body", /neither/],
  ])("%s", (_, answer, problem) => {
    expect(apiErrorProblems(answer, 400, "invalid_body").join("\n")).toMatch(problem);
    expect(answer).not.toBeApiError(400, "invalid_body");
  });

  it("refuses a message that does not match the one expected", () => {
    expect(apiErrorProblems(handlerResponse(), 400, "invalid_body", /at most 100/)).toEqual([
      `message "'name' is required" does not match /at most 100/`,
    ]);
  });
});
