/**
 * `npm start` keeps its data in a folder: categories, the id counter and keys survive a restart,
 * and so does the key it prints.
 */
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Category } from "../support/client.ts";
import { createCategory, listCategories } from "../support/client.ts";
import { startServer } from "../support/localServer.ts";
import { keysCommand } from "../support/keysCli.ts";
import { scratchDir } from "../support/scratchDir.ts";
import { localKeyFile } from "../../local/localKeys.ts";

const root = scratchDir("petstore-persist-");
/** Each test's own data folder: what one test stores, no other sees. */
const freshDataDir = (): string => mkdtempSync(join(root, "dynamodb-"));

describe("data survives a restart of the local server", () => {
  it("lists what was created before the restart and continues the id sequence", async () => {
    const dataDir = freshDataDir();
    const fixedKey = "petstore_persistence-test-key";
    const first = await startServer({ dataDir, apiKey: fixedKey });
    const dog = (await createCategory(first.baseUrl, fixedKey, { name: "dog" })).json<Category>();
    const cat = (
      await createCategory(first.baseUrl, fixedKey, { name: "cat", description: "Felines" })
    ).json<Category>();
    await first.stop();

    const second = await startServer({ dataDir });
    expect(await listCategories(second.baseUrl, second.apiKey)).toEqual([dog, cat]);
    const next = (
      await createCategory(second.baseUrl, second.apiKey, { name: "rabbit" })
    ).json<Category>();
    expect(next.id).toBe(cat.id + 1);
    // The fixed key of the first run is still in the store, as keys are until revoked.
    expect(await listCategories(second.baseUrl, fixedKey)).toHaveLength(3);
    await second.stop();
  });

  it("keeps its generated key across a restart, in the data folder, readable by its owner only", async () => {
    const dataDir = freshDataDir();
    const first = await startServer({ dataDir });
    await first.stop();
    const second = await startServer({ dataDir });
    expect(second.apiKey).toBe(first.apiKey);
    expect(second.stderr()).toMatch(/the same as last time/);
    expect(await listCategories(second.baseUrl, second.apiKey)).toBeInstanceOf(Array);
    await second.stop();
    const file = localKeyFile(dataDir);
    expect(readFileSync(file, "utf8").trim()).toBe(first.apiKey);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("issues a new key when the kept one was revoked, and says so", async () => {
    const dataDir = freshDataDir();
    const first = await startServer({ dataDir });
    await first.stop();
    const keyId = /^(key_\S+)\s+local-server\s.*active$/m.exec(
      keysCommand(dataDir, "list").stdout,
    )?.[1];
    expect(keysCommand(dataDir, "revoke", keyId ?? "").status).toBe(0);
    const second = await startServer({ dataDir });
    expect(second.apiKey).not.toBe(first.apiKey);
    expect(second.stderr()).toMatch(/\(new; kept in DATA_DIR/);
    await expect(listCategories(second.baseUrl, first.apiKey)).rejects.toThrow(/401/);
    await second.stop();
  });
});
