import { describe, expect, it } from "vitest";
import { errors, StoreUnavailableError } from "../../../lib/errors.ts";
import { toErrorResponse } from "../../../lib/http/errorResponse.ts";

describe("every error becomes exactly {code, message, status} in one place", () => {
  const shapeOf = (thrown: unknown) => {
    const { response } = toErrorResponse(thrown);
    expect(response).toBeApiError(response.statusCode);
    const body = JSON.parse(response.body) as Record<string, unknown>;
    return {
      status: response.statusCode,
      code: body.code,
      message: body.message,
      headers: response.headers,
    };
  };

  it("keeps an ApiError's status, code and headers", () => {
    expect(shapeOf(errors.methodNotAllowed("/v1/categories", ["GET", "POST"]))).toMatchObject({
      status: 405,
      code: "method_not_allowed",
      headers: { allow: "GET, POST" },
    });
  });

  it("maps the JSON body parser's 422s to 400 invalid_json, and its forbidden keys to invalid_body", () => {
    const parser = "@middy/http-json-body-parser";
    const malformed = Object.assign(new Error("Invalid or malformed JSON was provided"), {
      statusCode: 422,
      cause: { package: parser },
    });
    expect(shapeOf(malformed)).toMatchObject({ status: 400, code: "invalid_json" });
    const forbidden = Object.assign(new Error("Forbidden key in JSON body"), {
      statusCode: 422,
      cause: { package: parser, data: "__proto__" },
    });
    expect(shapeOf(forbidden)).toMatchObject({ status: 400, code: "invalid_body" });
    const unsupported = Object.assign(new Error("x"), {
      statusCode: 415,
      cause: { package: parser },
    });
    expect(shapeOf(unsupported)).toMatchObject({
      status: 415,
      code: "unsupported_media_type",
    });
  });

  it("never repeats the presented key, even when a message would quote it", () => {
    const key = "petstore_dev-key-0123";
    const { response } = toErrorResponse(errors.invalidBody(`unknown field "${key}"`), key);
    expect(response.body).not.toContain(key);
    expect(response.body).toContain("[redacted]");
  });

  it("turns a store that stayed unavailable into 503 with Retry-After", () => {
    expect(shapeOf(new StoreUnavailableError("throttled"))).toMatchObject({
      status: 503,
      code: "service_unavailable",
      headers: { "retry-after": "1" },
    });
  });

  it("hides anything unexpected behind 500 internal_error, without its message or stack", () => {
    const secret = new Error(
      "ResourceNotFoundException: table petstore-production at arn:aws:dynamodb:...",
    );
    const shaped = shapeOf(secret);
    expect(shaped).toMatchObject({ status: 500, code: "internal_error" });
    expect(String(shaped.message)).not.toMatch(/petstore-production|arn:|at /);
    expect(shapeOf("a thrown string")).toMatchObject({ status: 500 });
  });
});
