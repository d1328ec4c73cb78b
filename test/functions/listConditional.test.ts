/**
 * Contract "Responses": the list is a cacheable representation that is always revalidated. Its
 * 200 carries `Cache-Control: private, no-cache` and an ETag per store version and content
 * coding; If-None-Match naming the current tag gets 304 with no body; other answers stay no-store.
 */
import { describe, expect, it } from "vitest";
import type { HttpEvent } from "../../lib/http/message.ts";
import { loadEvent, useHarness } from "./harness.ts";

const harness = useHarness();
/** A list, each in a fresh container (no list cache). */
const list = async (headers: Record<string, string> = {}) => {
  const event = loadEvent("list-ok.json");
  Object.assign(event.headers, headers);
  return (await harness.invoke(await harness.handler("listCategories"), event)).response;
};
const create = async (name: string) => {
  const event: HttpEvent = loadEvent("create-ok.json");
  event.body = JSON.stringify({ name });
  return (await harness.invoke(await harness.handler("createCategory"), event)).response;
};

describe("a list's 200 is cacheable, always revalidated, and tagged per version and coding", () => {
  it("carries a weak ETag, private no-cache and Vary: accept-encoding", async () => {
    const response = await list();
    expect(response.statusCode).toBe(200);
    expect(response.headers.etag).toMatch(/^W\/"[0-9a-z]+\.\d+"$/);
    expect(response.headers["cache-control"]).toBe("private, no-cache");
    expect(response.headers.vary).toBe("accept-encoding");
  });

  it("names the content coding in the tag", async () => {
    const identity = (await list()).headers.etag;
    const br = (await list({ "accept-encoding": "br" })).headers.etag;
    const gzip = (await list({ "accept-encoding": "gzip" })).headers.etag;
    expect(new Set([identity, br, gzip]).size).toBe(3);
  });

  it("changes the tag when a category is created, and keeps no-store on the create's answer", async () => {
    const before = (await list()).headers.etag;
    const created = await create("ferret");
    expect(created.statusCode).toBe(201);
    expect(created.headers["cache-control"]).toBe("no-store");
    expect(created.headers).not.toHaveProperty("etag");
    expect((await list()).headers.etag).not.toBe(before);
  });
});

describe("If-None-Match with the current tag answers 304 with no body", () => {
  it("answers 304 with the validators and neither body nor Content-Type", async () => {
    const first = await list({ "accept-encoding": "gzip" });
    const tag = first.headers.etag ?? "";
    // A fresh container (no cache) decides from the counter alone.
    const response = await list({ "accept-encoding": "gzip", "if-none-match": `"x", ${tag}` });
    expect(response.statusCode).toBe(304);
    expect(response.body).toBe("");
    expect(response.headers).not.toHaveProperty("content-type");
    expect(response.headers).toMatchObject({
      etag: tag,
      "cache-control": "private, no-cache",
      vary: "accept-encoding",
    });
  });

  it("answers 200 to a tag of another coding, an old version, or after a create", async () => {
    const gzipTag = (await list({ "accept-encoding": "gzip" })).headers.etag ?? "";
    expect((await list({ "accept-encoding": "br", "if-none-match": gzipTag })).statusCode).toBe(
      200,
    );
    await create("stoat");
    const after = await list({ "accept-encoding": "gzip", "if-none-match": gzipTag });
    expect(after.statusCode).toBe(200);
    expect(
      JSON.parse(Buffer.from(after.body, after.isBase64Encoded ? "base64" : "utf8").toString()),
    ).toEqual(await harness.stored());
  });

  it("answers 304 to `*`", async () => {
    expect((await list({ "if-none-match": "*" })).statusCode).toBe(304);
  });

  it("checks the key first: a request without one is 401 whatever it names", async () => {
    const event = loadEvent("list-no-key.json");
    event.headers["if-none-match"] = "*";
    const { response } = await harness.invoke(await harness.handler("listCategories"), event);
    expect(response.statusCode).toBe(401);
    expect(response.headers["cache-control"]).toBe("no-store");
  });
});
