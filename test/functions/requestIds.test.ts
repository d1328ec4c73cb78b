/**
 * Request ids (contract: "Request ids"): every answer the functions give, whatever its status,
 * carries `Request-Id` equal to API Gateway's id for the request (the event's
 * requestContext.requestId), and the request's log line names the same id (with Lambda's own).
 */
import { describe, expect, it } from "vitest";
import type { HttpEvent } from "../../lib/http/message.ts";
import { ApiKeyStore } from "../../lib/repositories/apiKeys.ts";
import { lambdaContext } from "../../local/apiGateway.ts";
import { soon } from "../support/dynamo.ts";
import type { Harness } from "./harness.ts";
import { expectOneLogLine, loadEvent, useHarness } from "./harness.ts";

const harness = useHarness();
const past = "2020-01-01T00:00:00Z";

type Case = [
  status: number,
  functionName: string,
  request: (h: Harness) => Promise<HttpEvent>,
  env?: Record<string, string>,
];

const event = (name: string, change: (e: HttpEvent) => void = () => undefined): HttpEvent => {
  const loaded = loadEvent(name);
  change(loaded);
  // Each case its own id, as API Gateway gives every request its own.
  loaded.requestContext.requestId = `${name.slice(0, 8)}${Math.random().toString(36).slice(2, 8)}=`;
  return loaded;
};
const sample = (name: string) => () => Promise.resolve(event(name));
const readOnlyKey = async (h: Harness): Promise<string> => {
  const { db, tableName } = h.table();
  const store = new ApiKeyStore(db, tableName);
  return (await store.issue("ro", soon(), { scopes: ["categories:read"] })).apiKey;
};

const cases: Case[] = [
  [200, "listCategories", sample("list-ok.json")],
  [
    304,
    "listCategories",
    async (h) => {
      const list = await h.handler("listCategories");
      const first = await list(event("list-ok.json"), lambdaContext("l", 10));
      const etag = first.headers.etag ?? "";
      return event("list-ok.json", (e) => (e.headers["if-none-match"] = etag));
    },
  ],
  [201, "createCategory", sample("create-ok.json")],
  [400, "createCategory", sample("create-invalid.json")],
  [401, "listCategories", sample("list-no-key.json")],
  [
    403,
    "createCategory",
    async (h) => {
      const key = await readOnlyKey(h);
      return event("create-ok.json", (e) => (e.headers.authorization = `Bearer ${key}`));
    },
  ],
  [404, "routeFallback", sample("unknown-route.json")],
  [405, "routeFallback", sample("method-not-allowed.json")],
  [410, "routeFallback", sample("pets-get.json"), { PETS_SUNSET_AT: past }],
  [
    413,
    "createCategory",
    () => Promise.resolve(event("create-ok.json", (e) => (e.body = `"${"x".repeat(70_000)}"`))),
  ],
  [415, "createCategory", sample("create-wrong-media-type.json")],
  [501, "routeFallback", sample("store-orders.json")],
];

describe("every answer carries Request-Id, the event's request id, named in the log line", () => {
  it.each(cases)("status %i", async (status, functionName, build, env) => {
    const request = await build(harness);
    const invocation = await harness.invoke(await harness.handler(functionName, env), request);
    expect(invocation.response.statusCode).toBe(status);
    // The answer's Request-Id and the line's requestId are the event's; lambdaRequestId Lambda's.
    expectOneLogLine(invocation, request);
  });

  it("status 503: the store out of reach for the whole budget", async () => {
    const list = await harness.handler("listCategories", {
      DYNAMODB_ENDPOINT: "http://127.0.0.1:9",
      STORE_ATTEMPT_TIMEOUT_MS: "100",
    });
    const request = event("list-ok.json");
    const response = await list(request, lambdaContext("l", 1));
    expect(response.statusCode).toBe(503);
    expect(response.headers["request-id"]).toBe(request.requestContext.requestId);
  });
});
