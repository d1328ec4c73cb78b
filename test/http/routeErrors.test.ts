/**
 * The contract's errors before a body is read, over HTTP against the local server: 401, 404,
 * 405 and 501, the order of checks, and the contract's headers on every answer. Every answer is
 * also checked against openapi.yaml. Body errors: ./bodyErrors.test.ts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createCategory, send } from "../support/client.ts";
import { useLocalServer } from "../support/localServer.ts";

const server = useLocalServer();
let url: string;
let key: string;

beforeAll(() => {
  url = server.baseUrl;
  key = server.apiKey;
});

describe("401 unauthorized: missing, not Bearer, or a key that is unknown", () => {
  it("a missing key gets WWW-Authenticate with the realm and says it is missing", async () => {
    const answer = await send(url, { path: "/v1/categories", key: null });
    expect(answer).toBeApiError(401, "unauthorized", /required/);
    expect(answer.headers["www-authenticate"]).toBe('Bearer realm="petstore"');
  });

  it.each(["Basic dXNlcjpwYXNz", "Token abc", "petstore_a-key-without-its-scheme"])(
    "a header that is not the Bearer scheme (%s) is refused",
    async (value) => {
      const answer = await send(url, {
        path: "/v1/categories",
        headers: { authorization: value },
      });
      expect(answer).toBeApiError(401, "unauthorized");
    },
  );

  it('an unknown key gets error="invalid_token" and is not echoed back', async () => {
    const guess = `${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`;
    const answer = await send(url, { path: "/v1/categories", key: guess });
    expect(answer).toBeApiError(401, "unauthorized");
    expect(answer.headers["www-authenticate"]).toBe(
      'Bearer realm="petstore", error="invalid_token"',
    );
    expect(answer.text).not.toContain(guess);
  });

  it("the scheme name is case-insensitive", async () => {
    const answer = await send(url, {
      path: "/v1/categories",
      headers: { authorization: `bEaReR ${key}` },
    });
    expect(answer.status).toBe(200);
  });
});

describe("404 not_found and 405 method_not_allowed come first and need no key", () => {
  it.each(["/", "/v1", "/v1/categories/1", "/v2/categories", "/v1/pets", "/categories"])(
    "%s → 404",
    async (path) => {
      expect(await send(url, { path, key: null })).toBeApiError(404, "not_found");
    },
  );

  it.each(["PUT", "DELETE", "PATCH"])(
    "%s /v1/categories → 405 with Allow: GET, POST",
    async (method) => {
      const answer = await send(url, { method, path: "/v1/categories", key: null, body: "{}" });
      expect(answer).toBeApiError(405, "method_not_allowed");
      expect(answer.headers.allow).toBe("GET, POST");
    },
  );

  it("POST to a named read-only route is 405 with Allow: GET", async () => {
    const answer = await send(url, { method: "POST", path: "/v1/store/orders", key: null });
    expect(answer).toBeApiError(405, "method_not_allowed");
    expect(answer.headers.allow).toBe("GET");
  });
});

describe("501 not_implemented: the named-but-unspecified routes, after authentication", () => {
  it("GET /v1/pets/{petId} is 501 and deprecated (RFC 9745)", async () => {
    const answer = await send(url, { path: "/v1/pets/42", key });
    expect(answer).toBeApiError(501, "not_implemented");
    expect(answer.headers.deprecation).toMatch(/^@\d+$/);
  });

  it("GET /v1/store/orders is 501", async () => {
    expect(await send(url, { path: "/v1/store/orders", key })).toBeApiError(501, "not_implemented");
  });

  it.each(["/v1/pets/42", "/v1/store/orders"])("%s without a key is 401, not 501", async (path) => {
    const answer = await send(url, { path, key: null });
    expect(answer).toBeApiError(401, "unauthorized");
  });
});

describe("order of checks: route, authentication, media type, size, JSON syntax, fields", () => {
  const huge = `{"name": ${"[".repeat(70_000)}`;

  it("an unauthenticated request with a bad body gets 401, never 400", async () => {
    expect(await createCategory(url, null, "{bad json")).toBeApiError(401, "unauthorized");
    expect(await createCategory(url, "wrong", { id: 1 })).toBeApiError(401, "unauthorized");
  });

  it("an unauthenticated request with a bad media type and size gets 401", async () => {
    expect(await createCategory(url, null, huge, { "content-type": "text/plain" })).toBeApiError(
      401,
      "unauthorized",
    );
  });

  it("media type is checked before size", async () => {
    expect(await createCategory(url, key, huge, { "content-type": "text/plain" })).toBeApiError(
      415,
      "unsupported_media_type",
    );
  });

  it("size is checked before JSON syntax", async () => {
    expect(await createCategory(url, key, huge)).toBeApiError(413, "payload_too_large");
  });

  it("JSON syntax is checked before fields", async () => {
    expect(await createCategory(url, key, '{"id": 1,')).toBeApiError(400, "invalid_json");
  });
});

describe("every answer carries the contract's headers", () => {
  it.each([
    ["GET", "/v1/categories", true],
    ["GET", "/v1/categories", false],
    ["DELETE", "/v1/categories", false],
    ["GET", "/v1/nowhere", false],
    ["GET", "/v1/pets/1", true],
  ])("%s %s (key: %s)", async (method, path, withKey) => {
    const answer = await send(url, { method, path, key: withKey ? key : null });
    // The list's 200 may be cached if revalidated (contract "Responses"); the rest never.
    const listed = method === "GET" && path === "/v1/categories" && withKey;
    expect(answer.headers).toMatchObject({
      "content-type": "application/json; charset=utf-8",
      "cache-control": listed ? "private, no-cache" : "no-store",
      "x-content-type-options": "nosniff",
    });
  });
});
