/**
 * The contract's error table and order of checks, over HTTP against the local server (the built
 * bundles behind the template's routes): 400, 401, 404, 405, 413, 415 and 501, a refused body
 * changing nothing, and the contract's headers on every answer. Every answer is also checked
 * against openapi.yaml.
 */
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { createCategory, listCategories, send } from "../support/client.ts";
import { localServer } from "../support/localServer.ts";

const { baseUrl: url, apiKey: key } = await localServer();

/** Runs `refused` and checks the store lists the same categories after it as before. */
async function storesNothing(refused: () => Promise<void>): Promise<void> {
  const before = await listCategories(url, key);
  await refused();
  expect(await listCategories(url, key)).toEqual(before);
}

describe("400 invalid_json: the body is not well-formed JSON, or not UTF-8", () => {
  it.each(['{"name":', "{name: 'dog'}", '{"name":"dog"} trailing', "[", '"unterminated'])(
    "refuses %j",
    async (body) => {
      expect(await createCategory(url, key, body)).toBeApiError(400, "invalid_json");
    },
  );

  it.each([[{}], [{ "content-type": "application/json" }]])(
    "refuses bytes that are not UTF-8 (headers %j)",
    async (headers) => {
      const body = Buffer.concat([
        Buffer.from('{"name":"'),
        Buffer.from([0xc3, 0x28]),
        Buffer.from('"}'),
      ]);
      await storesNothing(async () => {
        const answer = await send(url, {
          method: "POST",
          path: "/v1/categories",
          key,
          body,
          headers,
        });
        expect(answer).toBeApiError(400, "invalid_json");
      });
    },
  );
});

const refusedBodies: [string, string, RegExp][] = [
  ["an empty body", "", /missing/],
  ["only white space", "  \n ", /missing/],
  ["null", "null", /JSON object/],
  ["an array", '[{"name":"dog"}]', /JSON object/],
  ["a string", '"dog"', /JSON object/],
  ["no name", '{"description":"x"}', /'name' is required/],
  ["an id", '{"name":"dog","id":1}', /"id"/],
  ["an unknown field", '{"name":"dog","colour":"brown"}', /"colour"/],
  ["a __proto__ key", '{"name":"dog","__proto__":{"admin":true}}', /"__proto__"/],
  ["a number name", '{"name":7}', /'name' must be a string/],
  [
    "a null description",
    '{"name":"dog","description":null}',
    /'description' must be a string, not null/,
  ],
  ["a control character in name", '{"name":"d\\u0000og"}', /control characters/],
];

describe("400 invalid_body: missing, empty, not an object, no name, unknown field, or a broken rule", () => {
  it.each(refusedBodies)("refuses %s, naming the field and rule", async (_, body, message) => {
    expect(await createCategory(url, key, body)).toBeApiError(400, "invalid_body", message);
  });

  it("refuses well-formed JSON nested far deeper than any NewCategory (not a stack overflow)", async () => {
    const deep = `{"name":"x","description":${"[".repeat(20_000)}${"]".repeat(20_000)}}`;
    expect(await createCategory(url, key, deep)).toBeApiError(400, "invalid_body", /nests deeper/);
    expect(await createCategory(url, key, "[".repeat(20_000))).toBeApiError(400, "invalid_json");
  });

  it("never echoes the presented key, even as a field name", async () => {
    const answer = await createCategory(url, key, { name: "dog", [key]: 1 });
    expect(answer).toBeApiError(400, "invalid_body");
    expect(answer.text).not.toContain(key.slice(0, 20));
  });

  it("stores nothing for any refused body", async () => {
    await storesNothing(async () => {
      for (const [, body] of refusedBodies) {
        expect((await createCategory(url, key, body)).status).toBe(400);
      }
    });
  });
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
  it.each(["/", "/v1", "/v1/categories/1/x", "/v2/categories", "/v1/pets", "/categories"])(
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

describe("413 payload_too_large: bodies over 64 KiB", () => {
  it("accepts 64 KiB exactly as far as size goes, refuses one byte more", async () => {
    const padded = (size: number) => {
      const base = '{"name":"dog","description":""}';
      return `{"name":"dog","description":"${"x".repeat(size - base.length)}"}`;
    };
    expect(await createCategory(url, key, padded(65_536))).toBeApiError(400, "invalid_body"); // 64 KiB: the 1,000 limit answers
    expect(await createCategory(url, key, padded(65_537))).toBeApiError(413, "payload_too_large");
  });
});

describe("415 unsupported_media_type: a Content-Type that is present and not JSON", () => {
  it.each([
    "text/plain",
    "application/xml",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/json; charset=utf-16",
  ])("refuses %s", async (type) => {
    expect(await createCategory(url, key, { name: "dog" }, { "content-type": type })).toBeApiError(
      415,
      "unsupported_media_type",
    );
  });

  it.each(["application/json; charset=utf-8", "application/vnd.petstore+json", "APPLICATION/JSON"])(
    "accepts %s",
    async (type) => {
      const answer = await createCategory(url, key, { name: "typed" }, { "content-type": type });
      expect(answer.status).toBe(201);
    },
  );

  it.each(["gzip", "br", "deflate"])(
    "refuses a body sent with Content-Encoding: %s, compressed or not, and stores nothing",
    async (coding) => {
      const plain = await createCategory(
        url,
        key,
        { name: `coded-${coding}` },
        {
          "content-encoding": coding,
        },
      );
      expect(plain).toBeApiError(415, "unsupported_media_type");
      expect(plain.json()).toMatchObject({
        message: expect.stringContaining("Content-Encoding") as string,
      });
      const zipped = await send(url, {
        method: "POST",
        path: "/v1/categories",
        key,
        headers: { "content-type": "application/json", "content-encoding": coding },
        body: gzipSync('{"name":"zipped"}'),
      });
      expect(zipped).toBeApiError(415, "unsupported_media_type");
      const names = (await listCategories(url, key)).map((category) => category.name);
      expect(names).not.toContain(`coded-${coding}`);
    },
  );

  it("reads a POST without Content-Type as JSON (API Gateway hands it over base64-encoded)", async () => {
    const answer = await send(url, {
      method: "POST",
      path: "/v1/categories",
      key,
      body: '{"name":"untyped"}',
    });
    expect(answer.status).toBe(201);
    expect(answer.json()).toMatchObject({ name: "untyped" });
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
  const plain = { "content-type": "text/plain" };

  it.each([
    ["no key and a bad body: 401, never 400", null, "{bad json", {}, 401, "unauthorized"],
    ["a wrong key and an id in the body: 401", "wrong", { id: 1 }, {}, 401, "unauthorized"],
    ["no key, a bad media type and size: 401", null, huge, plain, 401, "unauthorized"],
    ["media type before size", "key", huge, plain, 415, "unsupported_media_type"],
    ["size before JSON syntax", "key", huge, {}, 413, "payload_too_large"],
    ["JSON syntax before fields", "key", '{"id": 1,', {}, 400, "invalid_json"],
  ] as const)("%s", async (_, sent, body, headers, status, code) => {
    const answer = await createCategory(url, sent === "key" ? key : sent, body, headers);
    expect(answer).toBeApiError(status, code);
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
