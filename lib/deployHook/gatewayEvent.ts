/** The event a probe sends: what API Gateway would hand the function for that request. */
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import type { Request } from "./probes.ts";

/** An API Gateway HTTP API (payload 2.0) request, as the gateway would hand it to the alias. */
export function gatewayEvent(
  probe: Pick<Request, "method" | "path" | "body">,
  routeKey: string,
  apiKey: string | undefined,
  requestId: string,
  now: number,
): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {
    host: "pre-traffic-check.invalid",
    "user-agent": "petstore-pre-traffic-hook",
    ...(apiKey !== undefined && { authorization: `Bearer ${apiKey}` }),
    ...(probe.body !== undefined && { "content-type": "application/json" }),
  };
  return {
    version: "2.0",
    routeKey,
    rawPath: probe.path,
    rawQueryString: "",
    headers,
    requestContext: {
      accountId: "pre-traffic-hook",
      apiId: "pre-traffic-hook",
      domainName: headers.host ?? "",
      domainPrefix: "pre-traffic-check",
      http: {
        method: probe.method,
        path: probe.path,
        protocol: "HTTP/1.1",
        sourceIp: "127.0.0.1",
        userAgent: headers["user-agent"] ?? "",
      },
      requestId,
      routeKey,
      stage: "$default",
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    ...(probe.body !== undefined && { body: probe.body }),
    isBase64Encoded: false,
  };
}
