import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ApiError } from "../../lib/errors.ts";
import { errors, StoreUnavailableError } from "../../lib/errors.ts";
import { toErrorResponse } from "../../lib/http/errorResponse.ts";
import { describeFailure } from "../../lib/log.ts";

/** The answer the client gets for `error`. */
const answered = (error: ApiError) => toErrorResponse(error).response;
const messageOf = (error: ApiError): string =>
  (JSON.parse(answered(error).body) as { message: string }).message;

describe("409, 429 and 503 carry Retry-After in whole seconds, at least 1 (openapi.yaml)", () => {
  it("409 idempotency_in_progress carries it", () => {
    const response = answered(errors.idempotencyInProgress());
    expect(response).toBeApiError(409, "idempotency_in_progress");
    expect(response.headers["retry-after"]).toMatch(/^[1-9]\d*$/);
  });

  it("503 service_unavailable carries it, 1 s unless told otherwise", () => {
    const response = answered(errors.serviceUnavailable());
    expect(response).toBeApiError(503, "service_unavailable");
    expect(response.headers["retry-after"]).toBe("1");
  });

  it("429 rate_limited rounds the bucket's delay up to whole seconds, never below 1", () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 3600, noNaN: true }), (delay) => {
        const response = answered(errors.rateLimited(delay));
        expect(response).toBeApiError(429, "rate_limited");
        const seconds = Number(response.headers["retry-after"]);
        expect(Number.isInteger(seconds)).toBe(true);
        expect(seconds).toBeGreaterThanOrEqual(Math.max(1, delay));
        // Rounded up, not padded: a client that waits as told is admitted about on time.
        expect(seconds).toBeLessThan(Math.max(1, delay) + 1);
      }),
    );
  });
});

describe("an error's message tells the caller what to do next (openapi.yaml, Errors)", () => {
  it("405 names the methods the path allows, as its Allow header does", () => {
    const error = errors.methodNotAllowed("/v1/categories", ["GET", "POST"]);
    expect(answered(error).headers.allow).toBe("GET, POST");
    expect(messageOf(error)).toContain("GET, POST");
  });

  it("409 says the first request is still being processed and to retry later", () => {
    const message = messageOf(errors.idempotencyInProgress());
    expect(message).toMatch(/Idempotency-Key/);
    expect(message).toMatch(/still being processed/);
    expect(message).toMatch(/retry later/);
  });

  it("406 says to retry accepting a compressed answer, gzip or br", () => {
    const response = answered(errors.responseTooLarge());
    expect(response).toBeApiError(406, "response_too_large");
    // It depends on Accept-Encoding, as the list it stands for does.
    expect(response.headers.vary).toBe("accept-encoding");
    const message = messageOf(errors.responseTooLarge());
    expect(message).toMatch(/Accept-Encoding: gzip/);
    expect(message).toMatch(/\bbr\b/);
  });
});

describe("the local gateway's own refusals have the Error shape and the codes openapi.yaml lists", () => {
  it("400 bad_request says what is malformed", () => {
    const why = "an HTTP/1.1 request needs a Host header";
    expect(answered(errors.badRequest(why))).toBeApiError(400, "bad_request", why);
  });

  it("408 request_timeout says how long the request had to arrive", () => {
    expect(answered(errors.requestTimeout(30))).toBeApiError(408, "request_timeout", /\b30 s\b/);
  });

  it("431 request_header_fields_too_large says the headers are too large", () => {
    expect(answered(errors.headersTooLarge())).toBeApiError(
      431,
      "request_header_fields_too_large",
      /headers are too large/,
    );
  });
});

describe("a 500's or 503's log detail names each failure by its kind and keeps the cause (contract: the detail goes to the log)", () => {
  it("a 503: the store's give-up is named StoreUnavailableError, with what it gave up on", () => {
    const detail = describeFailure(
      new StoreUnavailableError("DynamoDB GetItem gave up after 3 attempts", {
        cause: new Error("ThrottlingException: rate exceeded"),
      }),
    );
    expect(detail).toMatch(/^StoreUnavailableError: DynamoDB GetItem gave up/);
    expect(detail).toContain("caused by: Error: ThrottlingException");
  });

  it("a 500 thrown as internal_error keeps what went wrong as its cause, for the log only", () => {
    const cause = new Error("the br body is over 6 MB even at full effort");
    const error = errors.internal(cause);
    expect(error.cause).toBe(cause);
    const detail = describeFailure(error);
    expect(detail).toMatch(/^ApiError: the service failed unexpectedly/);
    expect(detail).toContain("caused by: Error: the br body is over 6 MB");
    expect(answered(error).body).not.toContain("6 MB");
  });
});
