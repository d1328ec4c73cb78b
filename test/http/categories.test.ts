/**
 * Creating and listing categories over HTTP: ids, trimming, limits, concurrency, large lists, and
 * conditional lists (contract "Responses"): the 200's ETag sent back in If-None-Match gets 304
 * with no body until a category is created. Every answer is checked against openapi.yaml by the
 * client.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Category } from "../support/client.ts";
import { createCategory, inParallel, listCategories, send } from "../support/client.ts";
import { localServer } from "../support/localServer.ts";

const { baseUrl: url, apiKey: key } = await localServer();
const list = (headers: Record<string, string> = {}) =>
  send(url, { path: "/v1/categories", key, headers: { "accept-encoding": "gzip", ...headers } });

beforeAll(async () => {
  for (const name of ["dog", "cat", "bird"]) await createCategory(url, key, { name });
});

describe("a created category is answered 201 with its id and listed in id order", () => {
  it("creates, answers the stored category, and lists it", async () => {
    const answer = await createCategory(url, key, { name: "dog", description: "Canines" });
    expect(answer.status).toBe(201);
    const created = answer.json<Category>();
    expect(created).toEqual({ id: created.id, name: "dog", description: "Canines" });
    expect(Number.isSafeInteger(created.id) && created.id >= 1).toBe(true);
    expect(await listCategories(url, key)).toContainEqual(created);
  });

  it("omits description when none was sent", async () => {
    const created = (await createCategory(url, key, { name: "cat" })).json<Category>();
    expect(created).not.toHaveProperty("description");
  });

  it("names need not be unique", async () => {
    const a = (await createCategory(url, key, { name: "twin" })).json<Category>();
    const b = (await createCategory(url, key, { name: "twin" })).json<Category>();
    expect(b.id).toBeGreaterThan(a.id);
  });
});

describe("name is trimmed and limited to 1..100 code points; description to 1,000, kept as sent", () => {
  it("trims the name before storing it", async () => {
    expect((await createCategory(url, key, { name: " \t rabbit \n" })).json<Category>().name).toBe(
      "rabbit",
    );
  });

  it("accepts 100 code points (emoji count once) and refuses 101", async () => {
    expect((await createCategory(url, key, { name: "🐇".repeat(100) })).status).toBe(201);
    expect((await createCategory(url, key, { name: "🐇".repeat(101) })).status).toBe(400);
  });

  it("keeps description white space and accepts 1,000 code points, refuses 1,001", async () => {
    const kept = (
      await createCategory(url, key, { name: "x", description: "  two\n\tlines  " })
    ).json<Category>();
    expect(kept.description).toBe("  two\n\tlines  ");
    expect(
      (await createCategory(url, key, { name: "x", description: "ü".repeat(1000) })).status,
    ).toBe(201);
    expect(
      (await createCategory(url, key, { name: "x", description: "ü".repeat(1001) })).status,
    ).toBe(400);
  });
});

describe("100 concurrent creates get distinct ids and none is lost", () => {
  it("answers 100 × 201 with 100 distinct ids, all listed", async () => {
    const names = Array.from({ length: 100 }, (_, i) => `concurrent-${i}`);
    const answers = await Promise.all(names.map((name) => createCategory(url, key, { name })));
    expect(answers.map((a) => a.status)).toEqual(names.map(() => 201));
    const ids = answers.map((a) => a.json<Category>().id);
    expect(new Set(ids).size).toBe(100);
    const listed = await listCategories(url, key);
    const listedIds = new Set(listed.map((c) => c.id));
    expect(ids.every((id) => listedIds.has(id))).toBe(true);
    expect(listed.map((c) => c.id)).toEqual([...listed.map((c) => c.id)].sort((x, y) => x - y));
  });
});

describe("a store holding well over 1 MB of categories lists whole", () => {
  const description = "A category with a long description. ".repeat(27).slice(0, 1000);

  it("lists 1,300 categories of ~1 KB each (1.3 MB, two DynamoDB pages) complete and in order", async () => {
    const before = (await listCategories(url, key)).length;
    await inParallel(
      Array.from({ length: 1300 }, (_, i) => i),
      16,
      async (i) => {
        const answer = await createCategory(url, key, { name: `bulk-${i}`, description });
        expect(answer.status).toBe(201);
      },
    );
    const plain = await send(url, { path: "/v1/categories", key });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.raw.length).toBeGreaterThan(1_300_000);
    const listed = plain.json<Category[]>();
    expect(listed).toHaveLength(before + 1300);
    expect(listed.every((c, i) => i === 0 || c.id > (listed[i - 1]?.id ?? 0))).toBe(true);
  });

  it.each(["gzip", "br"])(
    "sends the same list %s-compressed when the client accepts it",
    async (encoding) => {
      // Thirty long descriptions of its own: a list far over the 1 KiB compression threshold.
      await inParallel(
        Array.from({ length: 30 }, (_, i) => i),
        8,
        (i) => createCategory(url, key, { name: `packed-${encoding}-${i}`, description }),
      );
      const plain = await send(url, { path: "/v1/categories", key });
      const packed = await send(url, {
        path: "/v1/categories",
        key,
        headers: { "accept-encoding": encoding },
      });
      expect(packed.headers["content-encoding"]).toBe(encoding);
      expect(packed.headers.vary).toMatch(/accept-encoding/i);
      expect(packed.raw.length).toBeLessThan(plain.raw.length / 5);
      expect(packed.text).toBe(plain.text);
    },
  );
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
