/**
 * What `npm run invoke` checks of an event and shows of a result. The event must be one API
 * Gateway would send a function (HTTP API, payload format 2.0): a function fed some other shape
 * fails in ways that teach nothing about the function.
 */
import { decodeBody } from "../lib/bodyText.ts";

/** What the event lacks to be one API Gateway would send (payload format 2.0), if anything. */
export function notAnHttpApiEvent(event: unknown): string | undefined {
  if (typeof event !== "object" || event === null || Array.isArray(event))
    return "it is not a JSON object";
  const { version, routeKey, rawPath, headers, requestContext } = event as Record<string, unknown>;
  if (version !== "2.0") return 'it has no "version": "2.0"';
  if (typeof routeKey !== "string") return 'it has no "routeKey"';
  if (typeof rawPath !== "string") return 'it has no "rawPath"';
  if (typeof headers !== "object" || headers === null) return 'it has no "headers" object';
  const http = (requestContext as { http?: { method?: unknown } } | undefined)?.http;
  if (typeof http?.method !== "string") return 'it has no "requestContext.http.method"';
  return undefined;
}

/** A compressed result body stays base64 in the result; a person gets to read it here. */
export function describeBody(result: unknown): string {
  if (typeof result !== "object" || result === null) return "";
  const { body, isBase64Encoded, headers } = result as {
    body?: unknown;
    isBase64Encoded?: unknown;
    headers?: Record<string, unknown>;
  };
  if (isBase64Encoded !== true || typeof body !== "string") return "";
  const bytes = Buffer.from(body, "base64");
  const encoding = headers?.["content-encoding"];
  let text: string;
  try {
    text = decodeBody(bytes, typeof encoding === "string" ? encoding : undefined);
  } catch (error) {
    return `note: the ${String(encoding)} body does not decompress: ${String(error)}\n`;
  }
  const shown = text.length > 2000 ? `${text.slice(0, 2000)}… (${text.length} characters)` : text;
  const what = typeof encoding === "string" ? `${encoding}-compressed ` : "";
  return `note: the body is base64 of ${bytes.length} ${what}bytes; decoded:\n${shown}\n`;
}
