/**
 * Scopes (contract: "Keys: scopes"): categories:read lists, categories:write creates; a valid
 * key without the scope gets 403 insufficient_scope with RFC 6750's challenge, after
 * authentication and before the body; keys from before scopes have both; the 501/410 routes
 * need only a valid key.
 */
import { describe, expect, it } from "vitest";
import type { HttpEvent } from "../../lib/http/message.ts";
import { ApiKeyStore, hashApiKey } from "../../lib/repositories/apiKeys.ts";
import type { Scope } from "../../lib/scopes.ts";
import { Table } from "../../lib/table/table.ts";
import { keys } from "../../lib/table/schema.ts";
import { soon } from "../support/dynamo.ts";
import { expectContractHeaders, expectOneLogLine, loadEvent, useHarness } from "./harness.ts";

const harness = useHarness();

const challenge = (scope: Scope): string =>
  `Bearer realm="petstore", error="insufficient_scope", scope="${scope}"`;

async function keyWith(scopes: readonly Scope[]): Promise<string> {
  const { db, tableName } = harness.table();
  const issued = await new ApiKeyStore(db, tableName).issue("scoped", soon(), { scopes });
  return issued.apiKey;
}

function withKey(name: string, key: string): HttpEvent {
  const event = loadEvent(name);
  event.headers.authorization = `Bearer ${key}`;
  return event;
}

/** `file` sent with `key` to the function the template gives its route; the one log line checked. */
async function send(functionName: string, file: string, key: string) {
  const event = withKey(file, key);
  const invocation = await harness.invoke(await harness.handler(functionName), event);
  expectOneLogLine(invocation, event);
  return invocation.response;
}
const list = (key: string) => send("listCategories", "list-ok.json", key);
const create = (key: string, file = "create-ok.json") => send("createCategory", file, key);

describe("a read-only key lists, and gets 403 with the challenge on create", () => {
  it("lists (200) and is refused a create with scope categories:write named", async () => {
    const key = await keyWith(["categories:read"]);
    expect((await list(key)).statusCode).toBe(200);
    const refused = await create(key);
    expect(refused).toBeApiError(403, "insufficient_scope");
    expect(refused.headers["www-authenticate"]).toBe(challenge("categories:write"));
    expectContractHeaders(refused);
    expect(await harness.stored()).toEqual([]);
  });

  it("gets 403, not 400, for a create whose body is also wrong: the scope is checked first", async () => {
    const key = await keyWith(["categories:read"]);
    for (const name of [
      "create-invalid.json",
      "create-malformed-json.json",
      "create-wrong-media-type.json",
    ])
      expect(await create(key, name)).toBeApiError(403, "insufficient_scope");
  });
});

describe("a write-only key creates, and gets 403 with the challenge on list", () => {
  it("creates (201) and is refused a list with scope categories:read named", async () => {
    const key = await keyWith(["categories:write"]);
    expect((await create(key)).statusCode).toBe(201);
    const refused = await list(key);
    expect(refused).toBeApiError(403, "insufficient_scope");
    expect(refused.headers["www-authenticate"]).toBe(challenge("categories:read"));
  });
});

describe("authentication comes before the scope", () => {
  it("an unknown key gets 401, never 403", async () => {
    expect(await create("petstore_never-issued")).toBeApiError(401, "unauthorized");
  });
});

describe("keys stored before scopes existed have both", () => {
  it("a key record without a scopes attribute lists and creates", async () => {
    const { db, tableName } = harness.table();
    const key = "petstore_issued-before-scopes-existed";
    await new Table(db, tableName).put(
      keys.apiKey(hashApiKey(key)),
      { keyId: "key_old", label: "old", createdAt: "2026-01-01T00:00:00.000Z" },
      soon(),
    );
    expect((await list(key)).statusCode).toBe(200);
    expect((await create(key)).statusCode).toBe(201);
  });
});

describe("the 501 routes need only a valid key, whatever its scopes", () => {
  it.each([[["categories:read"]], [["categories:write"]]] as [Scope[]][])(
    "a key with %j gets 501 on the pets and store routes",
    async (scopes) => {
      const key = await keyWith(scopes);
      for (const name of ["pets-get.json", "store-orders.json"]) {
        expect(await send("routeFallback", name, key)).toBeApiError(501, "not_implemented");
      }
    },
  );
});
