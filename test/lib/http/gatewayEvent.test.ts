/** The payload 2.0 event, as API Gateway derives its parameters from the request it received. */
import { describe, expect, it } from "vitest";
import type { GatewayRequest } from "../../../lib/http/gatewayEvent.ts";
import { gatewayEvent } from "../../../lib/http/gatewayEvent.ts";

const request = (overrides: Partial<GatewayRequest>): GatewayRequest => ({
  method: "GET",
  rawPath: "/v1/pets/42",
  headers: { host: "api.example.com" },
  routeKey: "GET /v1/pets/{petId}",
  requestId: "gw-1",
  timeEpoch: 1_700_000_000_000,
  ...overrides,
});

describe("path parameters are the route's {name} segments, decoded once more than the path", () => {
  it("names each segment by the route key's name", () => {
    expect(gatewayEvent(request({})).pathParameters).toEqual({ petId: "42" });
  });

  it("decodes a value twice in all (%252F arrives as /), and keeps one that does not decode", () => {
    expect(gatewayEvent(request({ rawPath: "/v1/pets/a%252Fb" })).pathParameters).toEqual({
      petId: "a/b",
    });
    expect(gatewayEvent(request({ rawPath: "/v1/pets/%2541" })).pathParameters).toEqual({
      petId: "A",
    });
    expect(gatewayEvent(request({ rawPath: "/v1/pets/%25zz" })).pathParameters).toEqual({
      petId: "%zz",
    });
  });

  it("has none on $default, on a route without any, or on a path that does not decode", () => {
    expect(gatewayEvent(request({ routeKey: "$default" }))).not.toHaveProperty("pathParameters");
    expect(
      gatewayEvent(request({ routeKey: "GET /v1/categories", rawPath: "/v1/categories" })),
    ).not.toHaveProperty("pathParameters");
    expect(gatewayEvent(request({ rawPath: "/v1/pets/%ff" }))).not.toHaveProperty("pathParameters");
  });
});

describe("the query string is kept raw and parsed, repeated names joined with commas", () => {
  it("parses and joins", () => {
    const event = gatewayEvent(request({ rawQueryString: "a=1&b=x%20y&a=2" }));
    expect(event.rawQueryString).toBe("a=1&b=x%20y&a=2");
    expect(event.queryStringParameters).toEqual({ a: "1,2", b: "x y" });
  });

  it("has no parameters without a query", () => {
    expect(gatewayEvent(request({}))).not.toHaveProperty("queryStringParameters");
    expect(gatewayEvent(request({})).rawQueryString).toBe("");
  });
});

describe("the request context is the request's", () => {
  it("carries the route key, method, raw path, request id and time", () => {
    const event = gatewayEvent(request({ method: "DELETE", rawPath: "/v1/pets/%34%32" }));
    expect(event.routeKey).toBe("GET /v1/pets/{petId}");
    expect(event.requestContext).toMatchObject({
      routeKey: "GET /v1/pets/{petId}",
      requestId: "gw-1",
      domainName: "api.example.com",
      domainPrefix: "api",
      stage: "$default",
      timeEpoch: 1_700_000_000_000,
      http: { method: "DELETE", path: "/v1/pets/%34%32" },
    });
    expect(event.requestContext.time).toBe(new Date(1_700_000_000_000).toUTCString());
  });

  it("carries a body as given, base64 only when told", () => {
    expect(gatewayEvent(request({ body: "{}" }))).toMatchObject({
      body: "{}",
      isBase64Encoded: false,
    });
    expect(gatewayEvent(request({}))).not.toHaveProperty("body");
    expect(gatewayEvent(request({ body: "AAE=", isBase64Encoded: true })).isBase64Encoded).toBe(
      true,
    );
  });
});
