/**
 * Request ids (contract: "Request ids"): every answer the functions give, whatever its status,
 * carries `Request-Id` equal to API Gateway's id for the request (the event's
 * requestContext.requestId), and the request's log line names the same id (with Lambda's own).
 */
import { describe, expect, it } from "vitest";
import { createCategoryHandler } from "../../functions/createCategory/handler.ts";
import { listCategoriesHandler } from "../../functions/listCategories/handler.ts";
import { routeFallbackHandler } from "../../functions/routeFallback/handler.ts";
import type { HttpEvent } from "../../lib/http/message.ts";
import type { ServiceHandler } from "../../lib/middleware.ts";
import { ApiKeyStore } from "../../lib/repositories/apiKeys.ts";
import { routeTableOf } from "../../lib/routes.ts";
import { lambdaContext } from "../../local/apiGateway.ts";
import { routesOf } from "../../local/template.ts";
import { soon } from "../support/dynamo.ts";
import type { Harness } from "./harness.ts";
import { expectOneLogLine, loadEvent, useHarness } from "./harness.ts";
import { listCategoriesDeps } from "../../functions/listCategories/deps.ts";
import { createCategoryDeps } from "../../functions/createCategory/deps.ts";
import { createServiceParts } from "../../lib/deps.ts";

const harness = useHarness();
const routes = routeTableOf([...routesOf().keys()].filter((key) => key !== "$default"));
const past = "2020-01-01T00:00:00Z";

type Case = [status: number, build: (h: Harness) => Promise<[ServiceHandler, HttpEvent]>];

const event = (name: string, change: (e: HttpEvent) => void = () => undefined): HttpEvent => {
  const loaded = loadEvent(name);
  change(loaded);
  // Each case its own id, as API Gateway gives every request its own.
  loaded.requestContext.requestId = `${name.slice(0, 8)}${Math.random().toString(36).slice(2, 8)}=`;
  return loaded;
};
const list = (h: Harness) => listCategoriesHandler(h.deps(listCategoriesDeps));
const create = (h: Harness) => createCategoryHandler(h.deps(createCategoryDeps));
const fallback = (h: Harness, env: Record<string, string> = {}) =>
  routeFallbackHandler(h.deps(createServiceParts, env), routes);
const readOnlyKey = async (h: Harness): Promise<string> => {
  const { db, tableName } = h.table();
  const store = new ApiKeyStore(db, tableName);
  return (await store.issue("ro", soon(), { scopes: ["categories:read"] })).apiKey;
};

const cases: Case[] = [
  [200, (h) => Promise.resolve([list(h), event("list-ok.json")])],
  [
    304,
    async (h) => {
      const first = await list(h)(event("list-ok.json"), lambdaContext("l", 10));
      const etag = first.headers.etag ?? "";
      return [list(h), event("list-ok.json", (e) => (e.headers["if-none-match"] = etag))];
    },
  ],
  [201, (h) => Promise.resolve([create(h), event("create-ok.json")])],
  [400, (h) => Promise.resolve([create(h), event("create-invalid.json")])],
  [401, (h) => Promise.resolve([list(h), event("list-no-key.json")])],
  [
    403,
    async (h) => {
      const key = await readOnlyKey(h);
      return [
        create(h),
        event("create-ok.json", (e) => (e.headers.authorization = `Bearer ${key}`)),
      ];
    },
  ],
  [404, (h) => Promise.resolve([fallback(h), event("unknown-route.json")])],
  [405, (h) => Promise.resolve([fallback(h), event("method-not-allowed.json")])],
  [410, (h) => Promise.resolve([fallback(h, { PETS_SUNSET_AT: past }), event("pets-get.json")])],
  [
    413,
    (h) =>
      Promise.resolve([
        create(h),
        event("create-ok.json", (e) => (e.body = `"${"x".repeat(70_000)}"`)),
      ]),
  ],
  [415, (h) => Promise.resolve([create(h), event("create-wrong-media-type.json")])],
  [501, (h) => Promise.resolve([fallback(h), event("store-orders.json")])],
];

describe("every answer carries Request-Id, the event's request id, named in the log line", () => {
  it.each(cases)("status %i", async (status, build) => {
    const [handler, request] = await build(harness);
    const invocation = await harness.invoke(handler, request);
    expect(invocation.response.statusCode).toBe(status);
    expect(invocation.response.headers["request-id"]).toBe(request.requestContext.requestId);
    // expectOneLogLine: the line's requestId is the event's, lambdaRequestId Lambda's.
    const line = expectOneLogLine(invocation, request);
    expect(line.requestId).toBe(request.requestContext.requestId);
    expect(line.lambdaRequestId).toBe(invocation.awsRequestId);
  });

  it("status 503: the store out of reach for the whole budget", async () => {
    const deps = harness.deps(listCategoriesDeps, {
      DYNAMODB_ENDPOINT: "http://127.0.0.1:9",
      STORE_ATTEMPT_TIMEOUT_MS: "100",
    });
    const request = event("list-ok.json");
    const response = await listCategoriesHandler(deps)(request, lambdaContext("l", 1));
    expect(response.statusCode).toBe(503);
    expect(response.headers["request-id"]).toBe(request.requestContext.requestId);
  });
});
