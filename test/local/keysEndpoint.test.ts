/**
 * `npm run keys` chooses the local store exactly as `npm start` does: DYNAMODB_ENDPOINT when set
 * (the key goes into that store, not the data folder's), else the data folder; every answer
 * names the store it used; an endpoint that is not a URL or does not answer is one line.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStore } from "../../lib/repositories/apiKeys.ts";
import type { EmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import { localClient, startEmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import { localTableName } from "../../local/localKeys.ts";
import { keysCommandAsync } from "../support/keysCli.ts";
import { scratchDir } from "../support/scratchDir.ts";

const scratch = scratchDir("petstore-keys-endpoint-");
let shared: EmbeddedDynamo;
beforeAll(async () => {
  shared = await startEmbeddedDynamo();
});
afterAll(async () => {
  await shared.close();
});

describe("keys with DYNAMODB_ENDPOINT: that store, named in the output", () => {
  it("create writes the key into the store at DYNAMODB_ENDPOINT, not the data folder", async () => {
    const dataDir = join(scratch, "unused-data");
    const where = `the store at ${shared.endpoint} (DYNAMODB_ENDPOINT), table ${localTableName}`;
    const run = await keysCommandAsync(
      dataDir,
      { DYNAMODB_ENDPOINT: shared.endpoint },
      "create",
      "--label",
      "shared",
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(`issued in ${where}\n`);
    const keyId = /^(key_[0-9a-f]+)/m.exec(run.stdout)?.[1];
    const db = localClient(shared.endpoint);
    try {
      const stored = await new ApiKeyStore(db, localTableName).list(Date.now() + 5000);
      expect(stored.map((record) => record.keyId)).toContain(keyId);
    } finally {
      db.close();
    }
    expect(existsSync(dataDir)).toBe(false);
    const list = await keysCommandAsync(dataDir, { DYNAMODB_ENDPOINT: shared.endpoint }, "list");
    expect(list.stdout.split("\n")[0]).toBe(`keys in ${where}:`);
    expect(list.stdout).toContain(`${keyId ?? "?"}  shared`);
  });

  it("without it, the data folder's store, named", async () => {
    const dataDir = join(scratch, "data");
    const run = await keysCommandAsync(dataDir, { DYNAMODB_ENDPOINT: "" }, "list");
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^no keys in the store of \/.*\/data, table petstore-local\n$/);
  });

  it.each([
    [
      "does not answer",
      "http://127.0.0.1:1",
      /^keys: no DynamoDB answer from http:\/\/127\.0\.0\.1:1 within 3 s \(.*\): start that store, or unset DYNAMODB_ENDPOINT to use the data folder's\n$/,
    ],
    [
      "is no URL (as npm start says it)",
      "not a url",
      /^keys: DYNAMODB_ENDPOINT must be an http\(s\) URL such as http:\/\/127\.0\.0\.1:8000\n$/,
    ],
    [
      "is mistyped around a password (never repeated)",
      "http://admin:s3cret-pw@127.0.0.1:80000",
      /^keys: DYNAMODB_ENDPOINT must be an http\(s\) URL such as http:\/\/127\.0\.0\.1:8000\n$/,
    ],
    [
      "has no http(s) scheme",
      "admin:s3cret-pw@127.0.0.1:8000",
      /^keys: DYNAMODB_ENDPOINT must be an http\(s\) URL such as http:\/\/127\.0\.0\.1:8000\n$/,
    ],
    [
      "holds a password (never repeated)",
      "http://admin:s3cret-pw@127.0.0.1:1",
      /^keys: DYNAMODB_ENDPOINT must not hold a user or password .*http:\/\/127\.0\.0\.1:8000\n$/,
    ],
  ])("an endpoint that %s: one line, exit 1", async (_why, endpoint, says) => {
    const run = await keysCommandAsync(join(scratch, "x"), { DYNAMODB_ENDPOINT: endpoint }, "list");
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(says);
    expect(run.stderr).not.toContain("s3cret");
  });
});
