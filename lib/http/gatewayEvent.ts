/**
 * The event API Gateway (HTTP API, payload format 2.0) hands a function for a request: the one
 * builder of it, for the local gateway (local/apiGateway.ts), the pre-traffic hook's probes
 * (lib/deployHook/) and the tests. Query parameters and path parameters are derived as the
 * gateway derives them; what the request is (method, raw path and query, lower-cased headers,
 * body) is the caller's.
 */
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { decodedOnce, gatewayPath } from "../routes.ts";

export interface GatewayRequest {
  readonly method: string;
  /** The path exactly as sent: the event carries it decoded once, as HTTP APIs hand it over. */
  readonly rawPath: string;
  readonly rawQueryString?: string;
  /** Lower-cased names; repeated headers already joined with commas. */
  readonly headers: Readonly<Record<string, string>>;
  readonly cookies?: readonly string[];
  readonly body?: string;
  readonly isBase64Encoded?: boolean;
  /** The route API Gateway matched: "GET /v1/pets/{petId}", or "$default". */
  readonly routeKey: string;
  readonly requestId: string;
  readonly timeEpoch: number;
  readonly sourceIp?: string;
  readonly protocol?: string;
  /** Who the gateway is: the account and API ids of its requestContext. */
  readonly apiId?: string;
}

export function gatewayEvent(request: GatewayRequest): APIGatewayProxyEventV2 {
  const { headers, routeKey } = request;
  const rawQueryString = request.rawQueryString ?? "";
  const query: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(rawQueryString))
    query[key] = key in query ? `${query[key] ?? ""},${value}` : value;
  // An HTTP API hands the path over decoded once (lib/routes.ts, decideFallback), in `rawPath`
  // and `requestContext.http.path` alike.
  const path = gatewayPath(request.rawPath);
  const pathParameters = pathParametersOf(routeKey, decodedOnce(request.rawPath));
  const host = headers.host ?? "localhost";
  const apiId = request.apiId ?? "local";
  return {
    version: "2.0",
    routeKey,
    rawPath: path,
    rawQueryString,
    headers: { ...headers },
    ...(request.cookies && request.cookies.length > 0 && { cookies: [...request.cookies] }),
    ...(Object.keys(query).length > 0 && { queryStringParameters: query }),
    ...(pathParameters && { pathParameters }),
    requestContext: {
      accountId: apiId,
      apiId,
      domainName: host,
      domainPrefix: host.split(".")[0] ?? host,
      http: {
        method: request.method,
        path,
        protocol: request.protocol ?? "HTTP/1.1",
        sourceIp: request.sourceIp ?? "127.0.0.1",
        userAgent: headers["user-agent"] ?? "",
      },
      requestId: request.requestId,
      routeKey,
      stage: "$default",
      time: new Date(request.timeEpoch).toUTCString(),
      timeEpoch: request.timeEpoch,
    },
    ...(request.body !== undefined && { body: request.body }),
    isBase64Encoded: request.isBase64Encoded ?? false,
  };
}

/**
 * The route's `{name}` segments from the once-decoded path (none when it does not decode). API
 * Gateway decodes a parameter's value once more before handing it over (so `%252F` arrives as
 * `/`); a value that does not decode again is passed as it is.
 */
function pathParametersOf(
  routeKey: string,
  path: string | undefined,
): Record<string, string> | undefined {
  const pattern = routeKey.split(" ")[1];
  if (pattern === undefined || path === undefined) return undefined;
  const values = path.split("/");
  const parameters: Record<string, string> = {};
  pattern.split("/").forEach((segment, index) => {
    const match = /^\{([^}]+)\}$/.exec(segment);
    const value = values[index] ?? "";
    if (match?.[1]) parameters[match[1]] = decodedOnce(value) ?? value;
  });
  return Object.keys(parameters).length > 0 ? parameters : undefined;
}
