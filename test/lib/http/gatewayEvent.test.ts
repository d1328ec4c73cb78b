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
  // A value is decoded twice in all (%252F arrives as /); one that does not decode is kept.
  it.each([
    ["/v1/pets/42", "GET /v1/pets/{petId}", { petId: "42" }],
    ["/v1/pets/a%252Fb", "GET /v1/pets/{petId}", { petId: "a/b" }],
    ["/v1/pets/%2541", "GET /v1/pets/{petId}", { petId: "A" }],
    ["/v1/pets/%25zz", "GET /v1/pets/{petId}", { petId: "%zz" }],
    ["/v1/pets/42", "$default", undefined],
    ["/v1/categories", "GET /v1/categories", undefined],
    ["/v1/pets/%ff", "GET /v1/pets/{petId}", undefined],
  ])("%s on %s → %j", (rawPath, routeKey, expected) => {
    const event = gatewayEvent(request({ rawPath, routeKey }));
    if (expected) expect(event.pathParameters).toEqual(expected);
    else expect(event).not.toHaveProperty("pathParameters");
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
  it("carries the route key, method, path (decoded once, as HTTP APIs hand it over), request id and time", () => {
    const event = gatewayEvent(request({ method: "DELETE", rawPath: "/v1/pets/%34%32" }));
    expect(event.rawPath).toBe("/v1/pets/42");
    expect(event.routeKey).toBe("GET /v1/pets/{petId}");
    expect(event.requestContext).toMatchObject({
      routeKey: "GET /v1/pets/{petId}",
      requestId: "gw-1",
      domainName: "api.example.com",
      domainPrefix: "api",
      stage: "$default",
      timeEpoch: 1_700_000_000_000,
      http: { method: "DELETE", path: "/v1/pets/42" },
    });
    expect(event.requestContext.time).toBe(new Date(1_700_000_000_000).toUTCString());
  });

  it("carries a path whose escapes do not decode as it was sent", () => {
    const event = gatewayEvent(request({ rawPath: "/v1/pets/%ff", routeKey: "$default" }));
    expect(event.rawPath).toBe("/v1/pets/%ff");
    expect(event.requestContext.http.path).toBe("/v1/pets/%ff");
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
