/**
 * Conditional list requests through the local server (contract "Responses"): the 200's ETag sent
 * back in If-None-Match gets 304 with no body until a category is created. Every answer is
 * checked against openapi.yaml by the client.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createCategory, send } from "../support/client.ts";
import { localServer } from "../support/localServer.ts";

const { baseUrl: url, apiKey: key } = await localServer();
const list = (headers: Record<string, string> = {}) =>
  send(url, { path: "/v1/categories", key, headers: { "accept-encoding": "gzip", ...headers } });

beforeAll(async () => {
  for (const name of ["dog", "cat", "bird"]) await createCategory(url, key, { name });
});

describe("a list revalidated with its ETag answers 304 with no body over HTTP", () => {
  it("answers 304, no body, no Content-Type, with the same validators", async () => {
    const first = await list();
    expect(first.status).toBe(200);
    expect(first.headers["cache-control"]).toBe("private, no-cache");
    const tag = first.headers.etag ?? "";
    const again = await list({ "if-none-match": tag });
    expect(again.status).toBe(304);
    expect(again.raw.length).toBe(0);
    expect(again.headers).not.toHaveProperty("content-type");
    expect(again.headers).toMatchObject({ etag: tag, "cache-control": "private, no-cache" });
  });

  it("answers 200 with the new category after a create", async () => {
    const tag = (await list()).headers.etag ?? "";
    const created = await createCategory(url, key, { name: "ferret" });
    expect(created.headers["cache-control"]).toBe("no-store");
    const after = await list({ "if-none-match": tag });
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(tag);
    expect(after.json<{ name: string }[]>().map((c) => c.name)).toContain("ferret");
  });

  it("does not answer 304 to a tag of another content coding", async () => {
    const gzipTag = (await list()).headers.etag ?? "";
    expect((await list({ "accept-encoding": "br", "if-none-match": gzipTag })).status).toBe(200);
  });
});
