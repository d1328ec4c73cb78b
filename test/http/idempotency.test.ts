/** Retries without duplicates, over HTTP: the contract's Idempotency-Key rules. */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Category } from "../support/client.ts";
import { createCategory, listCategories } from "../support/client.ts";
import { issueKey, keysCommand } from "../support/keysCli.ts";
import { localServer } from "../support/localServer.ts";
import { scratchDir } from "../support/scratchDir.ts";

const dataDir = join(scratchDir("petstore-idem-"), "dynamodb");
const { baseUrl: url, apiKey: key } = await localServer({ dataDir });

describe("a repeat with the same key and body gets the same answer and stores nothing new", () => {
  it("replays status and body with Idempotent-Replayed: true", async () => {
    const before = (await listCategories(url, key)).length;
    const first = await createCategory(url, key, { name: "dog" }, { "idempotency-key": "order-1" });
    const again = await createCategory(url, key, { name: "dog" }, { "idempotency-key": "order-1" });
    expect(first.status).toBe(201);
    expect(first.headers["idempotent-replayed"]).toBeUndefined();
    expect(again.status).toBe(201);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.json()).toEqual(first.json());
    const listed = await listCategories(url, key);
    expect(listed.filter((c) => c.id === first.json<Category>().id)).toHaveLength(1);
    expect(listed).toHaveLength(before + 1);
  });

  it("without the header, every POST creates", async () => {
    const before = (await listCategories(url, key)).length;
    await createCategory(url, key, { name: "dog" });
    await createCategory(url, key, { name: "dog" });
    expect(await listCategories(url, key)).toHaveLength(before + 2);
  });
});

describe("a repeat with a different body is 422 idempotency_key_reused", () => {
  it("refuses and stores nothing", async () => {
    await createCategory(url, key, { name: "cat" }, { "idempotency-key": "order-2" });
    const before = (await listCategories(url, key)).length;
    const reused = await createCategory(
      url,
      key,
      { name: "cow" },
      { "idempotency-key": "order-2" },
    );
    expect(reused).toBeApiError(422, "idempotency_key_reused");
    expect(await listCategories(url, key)).toHaveLength(before);
  });
});

describe("keys are scoped to the API key that sent them", () => {
  it("the same Idempotency-Key and body from another API key creates its own category", async () => {
    const other = issueKey(dataDir).key;
    const mine = await createCategory(url, key, { name: "x" }, { "idempotency-key": "shared" });
    const theirs = await createCategory(url, other, { name: "x" }, { "idempotency-key": "shared" });
    expect(theirs.status).toBe(201);
    expect(theirs.headers["idempotent-replayed"]).toBeUndefined();
    expect(theirs.json<Category>().id).not.toBe(mine.json<Category>().id);
  });

  it("a key that replaced it by rotation is another key: its retry creates; the old key's, in its grace, replays", async () => {
    const { key: old, keyId } = issueKey(dataDir);
    const body = { name: "rotated" };
    const headers = { "idempotency-key": "across-rotation" };
    const first = await createCategory(url, old, body, headers);
    const rotated = keysCommand(dataDir, "rotate", keyId, "--grace", "1h");
    const fresh = /^(petstore_\S+)$/m.exec(rotated.stdout)?.[1] ?? "";
    const withNew = await createCategory(url, fresh, body, headers);
    expect(withNew.status).toBe(201);
    expect(withNew.headers["idempotent-replayed"]).toBeUndefined();
    expect(withNew.json<Category>().id).not.toBe(first.json<Category>().id);
    const withOld = await createCategory(url, old, body, headers);
    expect(withOld.headers["idempotent-replayed"]).toBe("true");
    expect(withOld.json()).toEqual(first.json());
  });
});

describe("concurrent repeats of one key: one category, one 201, the others replay or hear 409", () => {
  it("stores exactly one category for 25 simultaneous repeats", async () => {
    const before = (await listCategories(url, key)).length;
    const answers = await Promise.all(
      Array.from({ length: 25 }, () =>
        createCategory(url, key, { name: "burst" }, { "idempotency-key": "burst-1" }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    const originals = answers.filter((a) => a.status === 201 && !a.headers["idempotent-replayed"]);
    expect(originals).toHaveLength(1);
    const ids = new Set(answers.filter((a) => a.status === 201).map((a) => a.json<Category>().id));
    expect(ids.size).toBe(1);
    for (const conflict of answers.filter((a) => a.status === 409)) {
      expect(conflict).toBeApiError(409, "idempotency_in_progress");
    }
    expect(await listCategories(url, key)).toHaveLength(before + 1);
  });
});

describe("an Idempotency-Key that is not 1 to 255 printable ASCII characters is refused", () => {
  it.each([["x".repeat(256)], ["caf\u00e9"]])("refuses %j with 400", async (value) => {
    const answer = await createCategory(url, key, { name: "dog" }, { "idempotency-key": value });
    expect(answer).toBeApiError(400, "invalid_idempotency_key");
  });
});
