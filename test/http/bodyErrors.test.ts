/**
 * The contract's errors for a request body, over HTTP against the local server (the built
 * bundles behind the template's routes): 400, 413 and 415, each changing nothing. Every answer is
 * also checked against openapi.yaml. Route and key errors: ./routeErrors.test.ts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createCategory, listCategories, send } from "../support/client.ts";
import { useLocalServer } from "../support/localServer.ts";

const server = useLocalServer();
let url: string;
let key: string;

beforeAll(() => {
  url = server.baseUrl;
  key = server.apiKey;
});

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
