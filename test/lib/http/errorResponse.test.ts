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
    expect(shapeOf(null)).toMatchObject({ status: 500, code: "internal_error" });
    expect(shapeOf(undefined)).toMatchObject({ status: 500, code: "internal_error" });
  });
});

describe("a request that ran out of its time budget is 503 with Retry-After, not 500", () => {
  it("maps an SDK TimeoutError to service_unavailable", () => {
    const timeout = Object.assign(new Error("the operation timed out"), { name: "TimeoutError" });
    const { response, error } = toErrorResponse(timeout);
    expect(response).toBeApiError(503, "service_unavailable");
    expect(response.headers["retry-after"]).toBe("1");
    expect(error.code).toBe("service_unavailable");
  });

  it("an error of another name stays 500 internal_error", () => {
    const other = Object.assign(new Error("the operation timed out"), { name: "AbortError" });
    expect(toErrorResponse(other).response).toBeApiError(500, "internal_error");
  });
});

describe("the Error shape is sent as plain JSON text with the contract's headers", () => {
  it("is not base64, and an ApiError's own headers come with the contract's", () => {
    const { response, error } = toErrorResponse(errors.rateLimited(7));
    expect(response.isBase64Encoded).toBe(false);
    expect(response).toBeApiError(429, "rate_limited");
    expect(response.headers).toMatchObject({
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      "retry-after": "7",
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.status).toBe(429);
  });

  it("keeps the message whole when no key was presented", () => {
    const thrown = errors.invalidBody('the field "petstore_local_abcdefgh" is not accepted');
    expect(JSON.parse(toErrorResponse(thrown).response.body)).toEqual({
      code: "invalid_body",
      message: 'the field "petstore_local_abcdefgh" is not accepted',
      status: 400,
    });
  });
});

describe("no answer carries the presented key, whole or as a start cut by a message", () => {
  const key = "petstore_local_0123456789abcdefghij_AbCdEf";
  const messageOf = (text: string, credential: string): unknown =>
    (
      JSON.parse(toErrorResponse(errors.invalidBody(text), credential).response.body) as {
        message: unknown;
      }
    ).message;

  it("redacts every occurrence of the whole key", () => {
    expect(messageOf(`fields "${key}" and "${key}" are not accepted`, key)).toBe(
      'fields "[redacted]" and "[redacted]" are not accepted',
    );
  });

  it("redacts the longest start of the key a message kept (8 characters or more)", () => {
    expect(messageOf(`the field "${key.slice(0, 20)}…" is not accepted`, key)).toBe(
      'the field "[redacted]…" is not accepted',
    );
    expect(messageOf(`the field "${key.slice(0, 8)}" is not accepted`, key)).toBe(
      'the field "[redacted]" is not accepted',
    );
  });

  it("redacts a run of 8 or more from anywhere in the key, each stretch once", () => {
    expect(messageOf(`unknown field "x${key.slice(15, 40)}y" and "${key.slice(3, 11)}"`, key)).toBe(
      'unknown field "x[redacted]y" and "[redacted]"',
    );
  });

  it("redacts a run that ends the message, and one that starts it", () => {
    expect(messageOf(`ends in ${key.slice(20, 28)}`, key)).toBe("ends in [redacted]");
    expect(messageOf(`${key.slice(20, 28)} starts it`, key)).toBe("[redacted] starts it");
  });

  it("marks with […] a key that holds the word redacted, so the mark is no piece of it", () => {
    const odd = "petstore_local_0123redacted456789abcdefghij_AbCdEf";
    expect(messageOf(`field "${odd.slice(19, 30)}"`, odd)).toBe('field "[…]"');
  });

  it("leaves shorter fragments and unrelated messages alone", () => {
    expect(messageOf(`the field "${key.slice(0, 7)}" is not accepted`, key)).toBe(
      `the field "${key.slice(0, 7)}" is not accepted`,
    );
    expect(messageOf("the field name is missing", key)).toBe("the field name is missing");
  });
});
