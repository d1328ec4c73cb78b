import { brotliDecompressSync, gunzipSync } from "node:zlib";
import middy from "@middy/core";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import type { Authenticator, Principal } from "../../lib/auth.ts";
import { errors, StoreUnavailableError } from "../../lib/errors.ts";
import { jsonDepth } from "../../lib/http/jsonBody.ts";
import type { HttpEvent, HttpResponse } from "../../lib/http/message.ts";
import type { Compressor } from "../../lib/http/response.ts";
import { EncodedBodies, zlibCompress } from "../../lib/http/response.ts";
import type { RequestLogLine } from "../../lib/log.ts";
import type { ServiceContext, ServiceMiddleware, ServiceResult } from "../../lib/middleware.ts";
import {
  authorize,
  deadlineOf,
  errorResponse,
  isHttpResponse,
  rateLimit,
  rateLimitHeaders,
  requestIdHeader,
  requestIdOf,
  requestLog,
  requireScope,
  respond,
} from "../../lib/middleware.ts";
import type { Admission, RateLimiting } from "../../lib/rateLimit/limiter.ts";
import type { RateLimit } from "../../lib/rateLimit/policy.ts";

describe("JSON nesting depth is measured outside strings", () => {
  it.each([
    ['{"name":"dog"}', 1],
    ["[]", 1],
    ['{"a":[{"b":[]}]}', 4],
    ['{"name":"[[[[{{{{"}', 1],
    ['{"name":"\\"[["}', 1],
    ["42", 0],
  ])("%s → %i", (text, depth) => {
    expect(jsonDepth(text)).toBe(depth);
  });

  it("agrees with the structure of any JSON value", () => {
    const depthOf = (value: unknown): number =>
      value !== null && typeof value === "object"
        ? 1 + Math.max(0, ...Object.values(value).map(depthOf))
        : 0;
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonDepth(JSON.stringify(value))).toBe(depthOf(value));
      }),
      { numRuns: 1000 },
    );
  });
});

/** A minimal API Gateway event: GET /v1/categories, request id "gw-1". */
const eventOf = (overrides: Partial<Record<keyof HttpEvent, unknown>> = {}): HttpEvent =>
  ({
    version: "2.0",
    routeKey: "GET /v1/categories",
    rawPath: "/v1/categories",
    rawQueryString: "",
    headers: {},
    requestContext: { requestId: "gw-1", http: { method: "GET" } },
    isBase64Encoded: false,
    ...overrides,
  }) as unknown as HttpEvent;

const contextOf = (extra: Partial<ServiceContext> = {}): ServiceContext =>
  ({ awsRequestId: "lambda-1", ...extra }) as ServiceContext;

const limit: RateLimit = { rate: "10/s", perSecond: 10, burst: 20 };
const admission = (extra: Partial<Admission> = {}): Admission => ({
  admitted: true,
  limit,
  remaining: 19,
  resetSeconds: 0.1,
  retryAfterSeconds: 0,
  failedOpen: false,
  ...extra,
});
const principal: Principal = {
  keyId: "key-1",
  keyHash: "hash-1",
  scopes: ["categories:read"],
  bucket: "key-0",
};

const metricsOf = () => ({ error: vi.fn(), count: vi.fn() });

/** Runs `middlewares` around `handler`; the answer, or the error middy let through. */
async function run(
  middlewares: readonly ServiceMiddleware[],
  handler: (event: HttpEvent, context: ServiceContext) => ServiceResult | Promise<ServiceResult>,
  event: HttpEvent = eventOf(),
  context: ServiceContext = contextOf(),
): Promise<HttpResponse> {
  const wired = middy<HttpEvent, ServiceResult, Error, ServiceContext>();
  for (const middleware of middlewares) wired.use(middleware);
  const served = wired.handler(handler);
  return (await served(event, context)) as HttpResponse;
}

/** A handler that throws `error`. */
const throwing = (error: Error) => (): never => {
  throw error;
};

const ok = (): HttpResponse => ({
  statusCode: 200,
  headers: {},
  body: "[]",
  isBase64Encoded: false,
});

describe("a request's deadline is measured on the service's clock", () => {
  it("is now plus the remaining time less 300 ms, and never before now", () => {
    expect(deadlineOf({ getRemainingTimeInMillis: () => 5_000 }, () => 1_000)).toBe(5_700);
    expect(deadlineOf({ getRemainingTimeInMillis: () => 100 }, () => 1_000)).toBe(1_000);
    expect(deadlineOf({}, () => 1_000)).toBe(10_700);
  });
});

describe("only a written response (status, headers, body) is an HttpResponse", () => {
  it.each([
    [null, false],
    [undefined, false],
    [{ statusCode: 200, data: [] }, false],
    [ok(), true],
  ])("%j → %s", (result, expected) => {
    expect(isHttpResponse(result)).toBe(expected);
  });
});

describe("the request id is API Gateway's, else Lambda's, else 'unknown'", () => {
  it.each([
    [eventOf(), "lambda-1", "gw-1"],
    [eventOf({ requestContext: undefined }), "lambda-1", "lambda-1"],
    [
      eventOf({ requestContext: { requestId: "", http: { method: "GET" } } }),
      "lambda-1",
      "lambda-1",
    ],
    [eventOf({ requestContext: undefined }), "", "unknown"],
  ])("%#", (event, awsRequestId, expected) => {
    expect(requestIdOf(event, { awsRequestId })).toBe(expected);
  });
});

describe("every answer carries Request-Id, success or error", () => {
  it("stamps a success", async () => {
    const response = await run([requestIdHeader()], ok);
    expect(response.headers["request-id"]).toBe("gw-1");
  });

  it("stamps the Error shape", async () => {
    const response = await run(
      [requestIdHeader(), errorResponse(metricsOf())],
      throwing(errors.notFound()),
    );
    expect(response).toBeApiError(404, "not_found");
    expect(response.headers["request-id"]).toBe("gw-1");
  });

  it("leaves a Reply the response middleware has not written yet alone", async () => {
    const reply = { statusCode: 200, data: [] };
    expect(await run([requestIdHeader()], () => reply)).toEqual({ statusCode: 200, data: [] });
  });
});

describe("each request writes one log line naming it, after success and error alike", () => {
  const logged = () => {
    const lines: RequestLogLine[] = [];
    let time = 1_000;
    const clock = { now: () => time, advance: (ms: number) => void (time += ms) };
    return { lines, clock, log: requestLog({ write: (line) => lines.push(line) }, clock.now) };
  };

  it("a success: ids, route, method, status, latency, key and replay", async () => {
    const { lines, clock, log } = logged();
    await run([log], (_event, context) => {
      clock.advance(25);
      context.principal = principal;
      context.replayed = true;
      return ok();
    });
    expect(lines).toEqual([
      {
        requestId: "gw-1",
        lambdaRequestId: "lambda-1",
        route: "GET /v1/categories",
        method: "GET",
        status: 200,
        latencyMs: 25,
        code: undefined,
        keyId: "key-1",
        replayed: true,
        rateLimitFailedOpen: undefined,
        detail: undefined,
      },
    ]);
  });

  it("a key issued before the key format is named as such (legacyKey); a key of the format is not", async () => {
    const { lines, log } = logged();
    for (const legacyKey of [true, undefined] as const) {
      await run([log], (_event, context) => {
        context.principal = { ...principal, ...(legacyKey && { legacyKey }) };
        return ok();
      });
    }
    expect(lines.map((line) => line.legacyKey)).toEqual([true, undefined]);
    expect(JSON.stringify(lines[1])).not.toContain("legacyKey");
  });

  it("a client error: its status and code, no failure detail", async () => {
    const { lines, log } = logged();
    await run(
      [log, errorResponse(metricsOf())],
      throwing(errors.invalidBody("the field name is missing")),
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ status: 400, code: "invalid_body", detail: undefined });
  });

  it.each([
    [new Error("the disk is on fire"), 500, "internal_error"],
    [new StoreUnavailableError("the store stayed throttled"), 503, "service_unavailable"],
  ])("the service's own failure (%s): its cause in the log", async (thrown, status, code) => {
    const { lines, log } = logged();
    await run([log, errorResponse(metricsOf())], throwing(thrown));
    expect(lines[0]).toMatchObject({ status, code });
    expect(lines[0]?.detail).toContain(thrown.message);
  });

  it("a 503 a handler wrote itself, nothing thrown, has no failure to describe", async () => {
    const { lines, log } = logged();
    await run([log], () => ({ ...ok(), statusCode: 503 }));
    expect(lines[0]).toMatchObject({ status: 503, detail: undefined });
  });

  it("an error nothing shaped is logged as 500 with its cause", async () => {
    const { lines, log } = logged();
    await expect(run([log], throwing(new Error("unshaped")))).rejects.toThrow("unshaped");
    expect(lines[0]).toMatchObject({ status: 500, code: undefined });
    expect(lines[0]?.detail).toContain("unshaped");
  });

  it("a hand-made event without requestContext or Lambda id still gets a line", async () => {
    const { lines, log } = logged();
    await run([log], ok, eventOf({ requestContext: undefined }), contextOf({ awsRequestId: "" }));
    expect(lines[0]).toMatchObject({
      requestId: "unknown",
      lambdaRequestId: undefined,
      method: "unknown",
    });
  });

  it("a request that failed before timing began is logged with no latency", async () => {
    const { lines, clock, log } = logged();
    const failsEarly: ServiceMiddleware = {
      before: () => {
        clock.advance(40);
        throw errors.notFound();
      },
    };
    await run([errorResponse(metricsOf()), failsEarly, log], ok);
    await run([log, errorResponse(metricsOf()), failsEarly], ok);
    expect(lines.map((line) => line.latencyMs)).toEqual([0, 40]);
  });
});

describe("a rate limit that failed open says why in the log line", () => {
  const lineFor = async (rateLimit: Admission | undefined): Promise<RequestLogLine | undefined> => {
    const lines: RequestLogLine[] = [];
    await run(
      [requestLog({ write: (line) => lines.push(line) }, () => 0)],
      ok,
      eventOf(),
      contextOf(rateLimit && { rateLimit }),
    );
    return lines[0];
  };

  it.each([
    [undefined, undefined],
    [admission(), undefined],
    [admission({ failedOpen: true, cause: new Error("socket hang up") }), "Error: socket hang up"],
    [
      admission({ failedOpen: true }),
      "the store failed less than a second ago; not asked again yet",
    ],
    [admission({ failedOpen: true, cause: "a string" }), "the store failed"],
  ])("%#: %s", async (rateLimit, why) => {
    expect((await lineFor(rateLimit))?.rateLimitFailedOpen).toBe(why);
  });
});

describe("errors become the Error shape in one place, counted by code, never repeating the key", () => {
  const key = "petstore_local_0123456789abcdefghij_AbCdEf";
  const leaky = (): never => throwing(errors.invalidBody(`unknown field "${key}"`))();

  it("redacts a presented Bearer key, counts the code, and keeps the error for the log", async () => {
    const metrics = metricsOf();
    const context = contextOf();
    const response = await run(
      [errorResponse(metrics)],
      leaky,
      eventOf({ headers: { authorization: `Bearer ${key}` } }),
      context,
    );
    expect(response).toBeApiError(400, "invalid_body", 'unknown field "[redacted]"');
    expect(metrics.error).toHaveBeenCalledExactlyOnceWith("invalid_body");
    expect(context.apiError?.code).toBe("invalid_body");
  });

  it("a credential of another scheme is not a key presented", async () => {
    const response = await run(
      [errorResponse(metricsOf())],
      leaky,
      eventOf({ headers: { authorization: `Basic ${key}` } }),
    );
    expect(response).toBeApiError(400, "invalid_body", `unknown field "${key}"`);
  });
});

describe("the response middleware writes a Reply with the contract's headers", () => {
  const large = Array.from({ length: 200 }, (_, i) => ({ id: i + 1, name: `category ${i}` }));

  it("an unversioned reply: JSON, no-store, no validators", async () => {
    const response = await run([respond()], () => ({ statusCode: 201, data: { id: 1 } }));
    expect(response).toEqual({
      statusCode: 201,
      headers: {
        "content-type": "application/json; charset=utf-8",
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
      },
      body: '{"id":1}',
      isBase64Encoded: false,
    });
  });

  it("a versioned reply carries its ETag and must be revalidated", async () => {
    const response = await run(
      [respond()],
      () => ({ statusCode: 200, data: [], version: "e1.7" }),
      eventOf({ headers: { "accept-encoding": "gzip" } }),
    );
    expect(response.headers).toMatchObject({
      etag: 'W/"e1.7-gzip"',
      "cache-control": "private, no-cache",
      vary: "accept-encoding",
    });
  });

  it("304: the validators, no body", async () => {
    const response = await run([respond()], () => ({
      statusCode: 304,
      data: undefined,
      version: "e1.7",
    }));
    expect(response).toEqual({
      statusCode: 304,
      headers: {
        "x-content-type-options": "nosniff",
        etag: 'W/"e1.7"',
        "cache-control": "private, no-cache",
        vary: "accept-encoding",
      },
      body: "",
      isBase64Encoded: false,
    });
    const unversioned = await run([respond()], () => ({ statusCode: 304, data: undefined }));
    expect(unversioned.headers).toEqual({ "x-content-type-options": "nosniff" });
  });

  it("a replay carries Idempotent-Replayed: true; a first answer does not", async () => {
    const replayed = await run([respond()], (_event, context) => {
      context.replayed = true;
      return { statusCode: 201, data: { id: 1 } };
    });
    expect(replayed.headers["idempotent-replayed"]).toBe("true");
    const first = await run([respond()], (_event, context) => {
      context.replayed = false;
      return { statusCode: 201, data: { id: 1 } };
    });
    expect(first.headers).not.toHaveProperty("idempotent-replayed");
  });

  it("compresses as the request's Accept-Encoding allows", async () => {
    const response = await run(
      [respond()],
      () => ({ statusCode: 200, data: large }),
      eventOf({ headers: { "Accept-Encoding": "gzip" } }),
    );
    expect(response.headers["content-encoding"]).toBe("gzip");
    expect(JSON.parse(gunzipSync(Buffer.from(response.body, "base64")).toString())).toEqual(large);
  });

  it("a versioned reply given again is not compressed again (one store of bodies per container)", async () => {
    const compress = vi.fn<Compressor>(zlibCompress);
    const writer = respond(new EncodedBodies(compress));
    const reply = { statusCode: 200, data: large, version: "e1.7" };
    const event = eventOf({ headers: { "accept-encoding": "br" } });
    await run([writer], () => reply, event);
    const again = await run([writer], () => reply, event);
    expect(compress).toHaveBeenCalledTimes(1);
    expect(JSON.parse(brotliDecompressSync(Buffer.from(again.body, "base64")).toString())).toEqual(
      large,
    );
  });

  it("an unversioned reply is encoded afresh and leaves the kept bodies alone", async () => {
    const compress = vi.fn<Compressor>(zlibCompress);
    const writer = respond(new EncodedBodies(compress));
    const event = eventOf({ headers: { "accept-encoding": "br" } });
    await run([writer], () => ({ statusCode: 200, data: large, version: "e1.7" }), event);
    const unversioned = await run([writer], () => ({ statusCode: 200, data: large }), event);
    expect(unversioned.headers["content-encoding"]).toBe("br");
    await run([writer], () => ({ statusCode: 200, data: large, version: "e1.7" }), event);
    expect(compress).toHaveBeenCalledTimes(1);
  });

  it("an answer already written passes through untouched", async () => {
    const written = { ...ok(), headers: { "x-own": "1" } };
    expect(await run([respond()], () => written)).toEqual(written);
  });
});

describe("authentication gets the Authorization header and the request's deadline", () => {
  it("sets the principal the verifier returns", async () => {
    const authenticate = vi.fn<Authenticator["authenticate"]>(() => Promise.resolve(principal));
    const context = contextOf({ getRemainingTimeInMillis: () => 2_000 });
    await run(
      [authorize({ authenticate }, () => 500)],
      ok,
      eventOf({ headers: { Authorization: "Bearer k" } }),
      context,
    );
    expect(authenticate).toHaveBeenCalledExactlyOnceWith("Bearer k", 2_200);
    expect(context.principal).toBe(principal);
  });
});

describe("403 insufficient_scope unless the key has the operation's scope", () => {
  it.each([
    [principal, "categories:read", 200],
    [principal, "categories:write", 403],
    [undefined, "categories:read", 403],
  ] as const)("%#: %s", async (who, scope, status) => {
    const response = await run(
      [errorResponse(metricsOf()), requireScope(scope)],
      ok,
      eventOf(),
      contextOf(who && { principal: who }),
    );
    expect(response.statusCode).toBe(status);
    if (status === 403) {
      expect(response).toBeApiError(403, "insufficient_scope");
      expect(response.headers["www-authenticate"]).toContain(`scope="${scope}"`);
    }
  });
});

describe("a valid key's request counts against its rate limit, the stage's default else", () => {
  const limiterOf = (result: Admission) =>
    vi.fn<RateLimiting["admit"]>(() => Promise.resolve(result));
  const own: RateLimit = { rate: "1/s", perSecond: 1, burst: 1 };

  it("a request without a key is not counted", async () => {
    const admit = limiterOf(admission());
    const response = await run([rateLimit({ admit }, limit, metricsOf(), () => 0)], ok);
    expect(response.statusCode).toBe(200);
    expect(admit).not.toHaveBeenCalled();
  });

  it("admitted: the key's bucket (its rotation chain's), its limit (else the default) and the deadline; kept for the headers", async () => {
    const admit = limiterOf(admission());
    const metrics = metricsOf();
    const context = contextOf({ principal, getRemainingTimeInMillis: () => 1_000 });
    await run([rateLimit({ admit }, limit, metrics, () => 100)], ok, eventOf(), context);
    expect(admit).toHaveBeenCalledExactlyOnceWith("key-0", limit, 800);
    expect(context.rateLimit).toEqual(admission());
    await run(
      [rateLimit({ admit }, limit, metrics, () => 100)],
      ok,
      eventOf(),
      contextOf({ principal: { ...principal, rateLimit: own } }),
    );
    expect(admit).toHaveBeenLastCalledWith("key-0", own, expect.any(Number));
    expect(metrics.count).not.toHaveBeenCalled();
  });

  it("over the limit: 429 with Retry-After, counted, and the handler never runs", async () => {
    const metrics = metricsOf();
    const handler = vi.fn(ok);
    const response = await run(
      [
        errorResponse(metrics),
        rateLimit(
          { admit: limiterOf(admission({ admitted: false, retryAfterSeconds: 3 })) },
          limit,
          metrics,
          () => 0,
        ),
      ],
      handler,
      eventOf(),
      contextOf({ principal }),
    );
    expect(response).toBeApiError(429, "rate_limited");
    expect(response.headers["retry-after"]).toBe("3");
    expect(metrics.count.mock.calls).toEqual([["rateLimited"]]);
    expect(handler).not.toHaveBeenCalled();
  });

  it("a bucket out of reach admits, and is counted as failing open", async () => {
    const metrics = metricsOf();
    const response = await run(
      [rateLimit({ admit: limiterOf(admission({ failedOpen: true })) }, limit, metrics, () => 0)],
      ok,
      eventOf(),
      contextOf({ principal }),
    );
    expect(response.statusCode).toBe(200);
    expect(metrics.count.mock.calls).toEqual([["rateLimitFailOpen"]]);
  });
});

describe("RateLimit-Policy and RateLimit on every answer to a request with a valid key", () => {
  const fields = {
    "ratelimit-policy": '"default";q=10;w=1',
    ratelimit: '"default";r=19;t=1',
  };

  it("on a success and on an error", async () => {
    const success = await run(
      [rateLimitHeaders()],
      ok,
      eventOf(),
      contextOf({ rateLimit: admission() }),
    );
    expect(success.headers).toMatchObject(fields);
    const failure = await run(
      [rateLimitHeaders(), errorResponse(metricsOf())],
      throwing(errors.notFound()),
      eventOf(),
      contextOf({ rateLimit: admission() }),
    );
    expect(failure.headers).toMatchObject(fields);
  });

  it("not without a valid key, nor on a Reply not yet written", async () => {
    const success = await run([rateLimitHeaders()], ok);
    expect(success.headers).toEqual({});
    const reply = { statusCode: 200, data: [] };
    expect(
      await run(
        [rateLimitHeaders()],
        () => reply,
        eventOf(),
        contextOf({ rateLimit: admission() }),
      ),
    ).toEqual({ statusCode: 200, data: [] });
  });
});
