/**
 * Request ids through the local gateway (contract: "Request ids"): every answer carries
 * `apigw-requestid`, as API Gateway's do, and every answer of the service `Request-Id` with the
 * same value, which the request's log line names; the gateway's own Error-shaped answers too.
 */
import { describe, expect, it } from "vitest";
import { createCategory, send } from "../support/client.ts";
import type { Answer } from "../support/client.ts";
import { localServer } from "../support/localServer.ts";
import { exchangeBytes } from "../support/rawHttp.ts";

const server = await localServer({ env: { PETS_SUNSET_AT: "2020-01-01T00:00:00Z" } });

function expectJoined(
  answer: Answer | { status: number; headers: Readonly<Record<string, string>> },
) {
  const id = answer.headers["request-id"];
  expect(id).toMatch(/^[A-Za-z0-9+/]{15}=$/);
  expect(answer.headers["apigw-requestid"]).toBe(id);
  return id ?? "";
}

async function logLineOf(id: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 50; i++) {
    const line = server.logLines.find((text) => text.includes(id));
    if (line) return JSON.parse(line) as Record<string, unknown>;
    await new Promise((done) => setTimeout(done, 20));
  }
  throw new Error(`no log line names ${id}`);
}

describe("every status the service answers carries Request-Id, named in its log line", () => {
  it.each([
    [200, () => send(server.baseUrl, { path: "/v1/categories", key: server.apiKey })],
    [201, () => createCategory(server.baseUrl, server.apiKey, { name: "ids" })],
    [400, () => createCategory(server.baseUrl, server.apiKey, { nope: 1 })],
    [401, () => send(server.baseUrl, { path: "/v1/categories", key: null })],
    [404, () => send(server.baseUrl, { path: "/v1/nowhere", key: null })],
    [405, () => send(server.baseUrl, { method: "DELETE", path: "/v1/categories", key: null })],
    [410, () => send(server.baseUrl, { path: "/v1/pets/1", key: server.apiKey })],
    [501, () => send(server.baseUrl, { path: "/v1/store/orders", key: server.apiKey })],
  ] as const)("status %i", async (status, request) => {
    const answer = await request();
    expect(answer.status).toBe(status);
    const id = expectJoined(answer);
    expect(await logLineOf(id)).toMatchObject({ requestId: id, status });
  });

  it("each request has its own id", async () => {
    const a = await send(server.baseUrl, { path: "/v1/categories", key: server.apiKey });
    const b = await send(server.baseUrl, { path: "/v1/categories", key: server.apiKey });
    expect(a.headers["request-id"]).not.toBe(b.headers["request-id"]);
  });
});

describe("the local gateway's own answers carry the id too", () => {
  it.each([
    ["a request Node's parser refuses", "Host: x\r\nBad Header: y\r\n"],
    ["a request without Host", ""],
  ])("%s (400) carries Request-Id and apigw-requestid", async (_, headers) => {
    const request = `GET /v1/categories HTTP/1.1\r\n${headers}\r\n`;
    const answer = await exchangeBytes(server.baseUrl, request);
    expect(answer.status).toBe(400);
    expectJoined(answer);
  });
});
