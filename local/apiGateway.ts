/**
 * What API Gateway (HTTP API, payload format 2.0) does between an HTTP client and a Lambda:
 * read the request into the event (lower-cased headers, base64 for non-text bodies; the event
 * itself is lib/http/gatewayEvent.ts's, with the route key and path parameters), invoke, and turn the result back into an HTTP response, including the 500
 * `{"message":"Internal Server Error"}` it answers when a function throws or returns too much.
 */
import { isUtf8 } from "node:buffer";
import { randomBytes, randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Context,
} from "aws-lambda";
import { gatewayEvent } from "../lib/http/gatewayEvent.ts";
import { decodedOnce } from "../lib/routes.ts";

/** API Gateway passes these as text; anything else (or no Content-Type) arrives base64-encoded. */
function isTextMediaType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const essence = contentType.split(";", 1)[0]?.trim().toLowerCase() ?? "";
  return (
    essence.startsWith("text/") ||
    /^application\/(?:[\w.+-]+\+)?(?:json|xml|javascript)$/.test(essence)
  );
}

/**
 * The request target as API Gateway reads it: the raw path and query exactly as sent (never
 * through `new URL`, which reads `//x/...` as a host), and the path percent-decoded once for
 * matching routes. HTTP APIs decode the whole path before matching, so `%2F` splits segments;
 * a path whose escapes do not decode to UTF-8 (`%ff`, `%zz`, a cut `%A`) matches no route and
 * goes to `$default`, like any other unknown path.
 */
export interface RequestTarget {
  readonly rawPath: string;
  readonly rawQueryString: string;
  readonly decodedPath: string | undefined;
}

export function parseTarget(target: string): RequestTarget {
  // The absolute form (`GET http://host/v1/categories`), which a server must accept (RFC 9112
  // §3.2.2), names the same path after its scheme and authority.
  const requestUrl = target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, "") || "/";
  const question = requestUrl.indexOf("?");
  const rawPath = question === -1 ? requestUrl : requestUrl.slice(0, question);
  return {
    rawPath,
    rawQueryString: question === -1 ? "" : requestUrl.slice(question + 1),
    decodedPath: decodedOnce(rawPath),
  };
}

/**
 * A request id as API Gateway HTTP APIs make them (`$context.requestId`, e.g. "Ab3xQhFqDoEEJcw="):
 * 16 base64 characters. The local gateway makes one per request, sends it as `apigw-requestid`
 * on every answer as API Gateway does, and hands it to the function in `requestContext`.
 */
export function gatewayRequestId(): string {
  return randomBytes(11).toString("base64");
}

/** The event for a request as it arrived (lib/http/gatewayEvent.ts builds it). */
export function toEvent(
  request: IncomingMessage,
  body: Buffer,
  target: RequestTarget,
  routeKey: string,
  requestId: string = gatewayRequestId(),
): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    const name = (request.rawHeaders[i] ?? "").toLowerCase();
    const value = request.rawHeaders[i + 1] ?? "";
    if (name === "cookie") cookies.push(...value.split(";").map((c) => c.trim()));
    else headers[name] = name in headers ? `${headers[name] ?? ""},${value}` : value;
  }
  // Bytes that are not UTF-8 cannot be handed over as a text string without loss, so they go
  // base64 whatever their declared type; the function can then refuse them (invalid_json).
  const base64 = body.length > 0 && (!isTextMediaType(headers["content-type"]) || !isUtf8(body));
  return gatewayEvent({
    method: request.method ?? "GET",
    rawPath: target.rawPath,
    rawQueryString: target.rawQueryString,
    headers,
    cookies,
    ...(body.length > 0 && { body: base64 ? body.toString("base64") : body.toString("utf8") }),
    isBase64Encoded: base64,
    routeKey,
    requestId,
    timeEpoch: Date.now(),
    sourceIp: request.socket.remoteAddress ?? "127.0.0.1",
    protocol: `HTTP/${request.httpVersion}`,
  });
}

export function lambdaContext(functionName: string, timeoutSeconds: number): Context {
  const deadline = Date.now() + timeoutSeconds * 1000;
  const context: Omit<Context, "done" | "fail" | "succeed"> = {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: "$LATEST",
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: "512",
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: "local",
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  // The legacy done/fail/succeed callbacks are not offered: the handlers are async.
  return context as Context;
}

export interface HttpAnswer {
  readonly status: number;
  /** `set-cookie` may be several: one header each. */
  readonly headers: Record<string, string | string[]>;
  readonly body: Buffer;
}

/** Lambda's limit on a synchronous invocation's serialized result. */
const maxResultBytes = 6 * 1024 * 1024;
const gatewayError: HttpAnswer = {
  status: 500,
  headers: { "content-type": "application/json" },
  body: Buffer.from('{"message":"Internal Server Error"}'),
};

export function fromResult(result: unknown): HttpAnswer {
  if (result === undefined || result === null) return gatewayError;
  if (Buffer.byteLength(JSON.stringify(result)) > maxResultBytes) return gatewayError;
  if (typeof result !== "object" || !("statusCode" in result)) {
    // Payload 2.0: a result without statusCode is itself the JSON body of a 200.
    return {
      status: 200,
      headers: { "content-type": "application/json" },
      body: Buffer.from(JSON.stringify(result)),
    };
  }
  const structured = result as APIGatewayProxyStructuredResultV2;
  const headers: HttpAnswer["headers"] = {};
  for (const [name, value] of Object.entries(structured.headers ?? {}))
    headers[name] = String(value);
  // Payload 2.0's `cookies`: "in the response to the client, each cookie becomes a set-cookie
  // header" (docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-lambda.html).
  const cookies = structured.cookies ?? [];
  if (cookies.length > 0)
    headers["set-cookie"] = [...[headers["set-cookie"] ?? []].flat(), ...cookies];
  const text = structured.body ?? "";
  return {
    status: structured.statusCode ?? 200,
    headers,
    body: structured.isBase64Encoded ? Buffer.from(text, "base64") : Buffer.from(text, "utf8"),
  };
}

export { gatewayError };
