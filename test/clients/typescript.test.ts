/**
 * The typed client (clients/typescript) against the local server: bearer auth, creates and
 * lists, errors narrowed by `code`, idempotent retries, the Stability header, and generated types
 * that match openapi.yaml as it is now.
 */
import { readFileSync } from "node:fs";
import { describe, expect, expectTypeOf, it } from "vitest";
import { generateSchema, schemaFile } from "../../clients/typescript/generate.ts";
import type { ErrorCode, PetstoreClient } from "../../clients/typescript/index.ts";
import {
  createCategory,
  createPetstoreClient,
  isServiceError,
  newIdempotencyKey,
} from "../../clients/typescript/index.ts";
import { localServer } from "../support/localServer.ts";
import { loadOpenApi } from "../support/openapiDocument.ts";

const server = await localServer();
const client = (apiKey = server.apiKey): PetstoreClient =>
  createPetstoreClient({ baseUrl: server.baseUrl, apiKey });

describe("the generated types match openapi.yaml", () => {
  it("regenerating clients/typescript/schema.ts changes nothing (else: npm run client:generate)", async () => {
    expect(await generateSchema()).toBe(readFileSync(schemaFile, "utf8"));
  });
});

describe("the client sends the API key as a bearer token", () => {
  it("creates a category and lists it", async () => {
    const created = await client().POST("/categories", { body: { name: " ferret " } });
    expect(created.response.status).toBe(201);
    expect(created.data?.name).toBe("ferret");
    const listed = await client().GET("/categories");
    expect(listed.data?.map((category) => category.id)).toContain(created.data?.id);
  });
});

describe("errors are narrowed by code", () => {
  it("a key that is not accepted is 401 unauthorized", async () => {
    const { error, response } = await client("petstore_not-a-key").GET("/categories");
    expect(response.status).toBe(401);
    if (!error || !isServiceError(error)) throw new Error("expected the service's Error");
    expectTypeOf(error.code).toEqualTypeOf<
      | "unauthorized"
      | "insufficient_scope"
      | "rate_limited"
      | "response_too_large"
      | "request_timeout"
      | "request_header_fields_too_large"
      | "internal_error"
      | "service_unavailable"
    >();
    expect(error.code).toBe("unauthorized");
  });

  it("a body breaking a rule is 400 invalid_body, typed among createCategory's codes", async () => {
    const { error } = await client().POST("/categories", { body: { name: "   " } });
    if (!error || !isServiceError(error)) throw new Error("expected the service's Error");
    expectTypeOf(error.code).toExtend<ErrorCode>();
    switch (error.code) {
      case "invalid_body":
        expect(error.status).toBe(400);
        expect(error.message).toMatch(/name/);
        break;
      default:
        throw new Error(`unexpected ${error.code}`);
    }
  });
});

describe("creates are safe to retry with one Idempotency-Key", () => {
  it("a repeat with the same key replays the same category and stores nothing new", async () => {
    const idempotencyKey = newIdempotencyKey();
    const send = () =>
      client().POST("/categories", {
        body: { name: "hamster" },
        params: { header: { "Idempotency-Key": idempotencyKey } },
      });
    const first = await send();
    const again = await send();
    expect(again.data).toEqual(first.data);
    expect(again.response.headers.get("idempotent-replayed")).toBe("true");
  });

  it("createCategory retries a gateway 503 with the same key: one category stored", async () => {
    const keys: (string | null)[] = [];
    let calls = 0;
    const flaky = createPetstoreClient({
      baseUrl: server.baseUrl,
      apiKey: server.apiKey,
      fetch: async (request) => {
        calls += 1;
        keys.push(request.headers.get("idempotency-key"));
        // The first attempt reaches the service, then its answer is lost behind API Gateway's 503.
        const answer = await fetch(request);
        if (calls > 1) return answer;
        return Response.json({ message: "Service Unavailable" }, { status: 503 });
      },
    });
    const name = `gerbil-${newIdempotencyKey()}`;
    const result = await createCategory(flaky, { name }, { baseDelayMs: 1 });
    expect(result.response.status).toBe(201);
    expect(new Set(keys).size).toBe(1);
    const listed = await client().GET("/categories");
    expect(listed.data?.filter((category) => category.name === name)).toHaveLength(1);
  });
});

describe("answers of non-stable operations carry the Stability header", () => {
  const document = loadOpenApi();
  const storeOrders = (document.paths as Record<string, Record<string, Record<string, unknown>>>)[
    "/store/orders"
  ]?.get;

  it("GET /store/orders (x-stability experimental) sends Stability: experimental, with or without a key", async () => {
    expect(storeOrders?.["x-stability"]).toBe("experimental");
    for (const apiKey of [server.apiKey, "petstore_not-a-key"]) {
      const { response } = await client(apiKey).GET("/store/orders");
      expect(response.headers.get("stability")).toBe("experimental");
    }
  });

  it("stable operations send none", async () => {
    const { response } = await client().GET("/categories");
    expect(response.headers.get("stability")).toBeNull();
    const pets = await client().GET("/pets/{petId}", { params: { path: { petId: "7" } } });
    expect(pets.response.headers.get("stability")).toBeNull();
  });
});
