/**
 * The local server behaves like API Gateway in front of the functions, never better or worse:
 * it routes only the template's routes (whatever the path's spelling), sends what it cannot
 * route to `$default`, and answers what Node's HTTP parser refuses, or what never finishes
 * arriving, in the Error shape.
 */
import { describe, expect, it } from "vitest";
import type { Answer, ErrorBody } from "../support/client.ts";
import { listCategories, send } from "../support/client.ts";
import { send as exactly } from "../../scripts/lib/httpClient.ts";
import { localServer } from "../support/localServer.ts";
import { exchangeBytes } from "../support/rawHttp.ts";

const requestTimeoutMs = 600;
const { baseUrl: url, apiKey: key } = await localServer({
  env: { REQUEST_TIMEOUT_MS: String(requestTimeoutMs) },
});

describe("a path is matched as sent: `//x/v1/categories` is no route of the template", () => {
  it.each(["GET", "POST"])(
    "%s //x/v1/categories is 404 not_found and stores nothing",
    async (method) => {
      const answer: Answer = await send(url, {
        method,
        path: "//x/v1/categories",
        key,
        ...(method === "POST" && {
          body: '{"name":"dog"}',
          headers: { "content-type": "application/json" },
        }),
      });
      expect(answer).toBeApiError(404, "not_found");
      expect(await listCategories(url, key)).toEqual([]);
    },
  );

  it("a percent-encoded spelling of a route is that route (the gateway decodes before matching)", async () => {
    expect((await get("/v1/categ%6Fries")).status).toBe(200);
  });

  it("and so is it for the 405 of another method, with the route's Allow", async () => {
    const answer = await exactly(url, { method: "DELETE", path: "/v1/categ%6Fries", key });
    expect(answer).toBeApiError(405, "method_not_allowed");
    expect(answer.headers.allow).toBe("GET, POST");
  });

  it("once only: an escaped escape is no route, for the fallback's 405 as for the gateway", async () => {
    expect(await get("/v1/categ%256Fries")).toBeApiError(404, "not_found");
    const answer = await exactly(url, { method: "DELETE", path: "/v1/categ%256Fries", key });
    expect(answer).toBeApiError(404, "not_found");
  });
});

describe("a path parameter whose escapes do not decode matches no route: 404, never a bare 500", () => {
  it.each(["/v1/pets/%ff", "/v1/pets/%zz", "/v1/pets/%E0%A4%A", "/v1/categories%"])(
    "GET and DELETE %s",
    async (path) => {
      expect(await get(path)).toBeApiError(404, "not_found");
      expect(await exactly(url, { method: "DELETE", path, key })).toBeApiError(404, "not_found");
    },
  );

  it("a parameter that decodes still reaches its route", async () => {
    expect(await get("/v1/pets/%E0%A4%A4")).toBeApiError(501, "not_implemented");
  });
});

/**
 * A GET with the key, the path sent exactly as written, through the project's client unchecked:
 * openapi.yaml cannot name a path that does not decode.
 */
const get = (path: string): Promise<Answer> => exactly(url, { path, key });

/** What follows the method on a request line of /v1/categories, through the Host line. */
const head = `/v1/categories HTTP/1.1\r\nHost: ${new URL(url).host}\r\n`;

describe("requests Node's HTTP parser refuses are answered in the Error shape", () => {
  it.each([
    [
      "oversized headers",
      431,
      "request_header_fields_too_large",
      `GET ${head}X-Big: ${"a".repeat(20_000)}\r\n\r\n`,
    ],
    [
      "both Content-Length and Transfer-Encoding",
      400,
      "bad_request",
      `POST ${head}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    ],
    ["a control byte in a header", 400, "bad_request", `GET ${head}X-Bad: a\u0001b\r\n\r\n`],
    ["an unknown method", 400, "bad_request", `BREW ${head}\r\n`],
    [
      "an HTTP/1.1 request without Host",
      400,
      "bad_request",
      "GET /v1/categories HTTP/1.1\r\nConnection: close\r\n\r\n",
    ],
  ])("%s: %i %s", async (_, status, code, request) => {
    expect(await exchangeBytes(url, request)).toBeApiError(status, code);
  });

  it("400 bad_request for the bytes after a body longer than its Content-Length", async () => {
    const answer = await exchangeBytes(
      url,
      `POST ${head}Content-Length: 2\r\n\r\n{}garbage\r\n\r\n`,
    );
    // The extra bytes are refused (the declared request may be answered first: 401, no key).
    const refused = answer.raw.slice(answer.raw.indexOf("HTTP/1.1 400 "));
    expect(refused).toMatch(/^HTTP\/1\.1 400 /);
    expect(refused).toContain('{"code":"bad_request"');
  });
});

describe("requests Node's parser takes apart are routed as any other", () => {
  it("CONNECT to a route: the fallback's 405 with Allow, in the Error shape", async () => {
    const answer = await exchangeBytes(url, `CONNECT ${head}\r\n`);
    expect(answer).toBeApiError(405, "method_not_allowed");
    expect(answer.headers.allow).toBe("GET, POST");
    expect(answer.headers["apigw-requestid"]).toMatch(/=$/);
  });

  it("the absolute form (GET http://host/v1/categories) names the same route", async () => {
    // Kept open until the server answers and closes (a function answers after a cold start).
    const absolute = (target: string) =>
      exchangeBytes(url, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, true);
    const origin = `http://${new URL(url).host}`;
    expect(await absolute(`${origin}/v1/categories`)).toBeApiError(401, "unauthorized");
    expect(await absolute(`${origin}/v1/pets/%ff`)).toBeApiError(404, "not_found");
    expect(await absolute(origin)).toBeApiError(404, "not_found");
  });
});

describe("a request that does not arrive in time is given up, as the gateway does", () => {
  it(`408 request_timeout when the body stalls (REQUEST_TIMEOUT_MS=${requestTimeoutMs})`, async () => {
    const answer = await exchangeBytes(
      url,
      `POST ${head}Authorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`,
      true,
    );
    expect(answer).toBeApiError(408, "request_timeout");
    expect(answer.ms).toBeLessThan(requestTimeoutMs * 6);
    expect(await listCategories(url, key)).toEqual([]);
  });
});

describe("an error message stays short however many unknown fields a body has", () => {
  it("names the first few and counts the rest", async () => {
    const body = JSON.stringify(
      Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`field${i}`, i])),
    );
    const answer = await send(url, {
      method: "POST",
      path: "/v1/categories",
      key,
      body,
      headers: { "content-type": "application/json" },
    });
    expect(answer).toBeApiError(400, "invalid_body");
    const { message } = answer.json<ErrorBody>();
    expect(message.length).toBeLessThan(300);
    expect(message).toMatch(/"field0".*and 2995 more/);
  });
});
