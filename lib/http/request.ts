/**
 * Reading the parts of a request the contract checks before any JSON parsing or business rule:
 * media type, body size and encoding, and the Idempotency-Key header.
 */
import { isUtf8 } from "node:buffer";
import { errors } from "../errors.ts";
import type { HttpEvent } from "./message.ts";

export const maxRequestBytes = 64 * 1024;

/**
 * `application/json` or `application/*+json`, with any parameters but a charset other than
 * UTF-8: JSON is UTF-8 (RFC 8259 §8.1), and the body is read as UTF-8 whatever it is labelled.
 */
export function isJsonMediaType(contentType: string): boolean {
  const [essence = "", ...parameters] = contentType.toLowerCase().split(";");
  if (!/^application\/(?:[a-z0-9!#$&^_.-]+\+)?json$/.test(essence.trim())) return false;
  return parameters.every((parameter) => {
    const [name = "", value = ""] = parameter.split("=", 2).map((part) => part.trim());
    return name !== "charset" || /^"?utf-8"?$/.test(value);
  });
}

/**
 * The request body as text: base64 undone, size and UTF-8 checked. Returns undefined for a
 * missing or empty body.
 */
export function readBodyText(
  event: Pick<HttpEvent, "body" | "isBase64Encoded">,
): string | undefined {
  // Hand-written events may carry `"body": null`; API Gateway leaves a missing body out.
  if (typeof event.body !== "string" || event.body === "") return undefined;
  // Text is UTF-8 by construction; only decoded base64 bytes can fail to be.
  if (!event.isBase64Encoded) {
    if (Buffer.byteLength(event.body) > maxRequestBytes) {
      throw errors.payloadTooLarge(maxRequestBytes);
    }
    return event.body;
  }
  const bytes = Buffer.from(event.body, "base64");
  if (bytes.length > maxRequestBytes) throw errors.payloadTooLarge(maxRequestBytes);
  if (!isUtf8(bytes)) throw errors.invalidJson("the request body is not UTF-8 text");
  return bytes.toString("utf8");
}

/** Idempotency-Key: 1 to 255 printable ASCII characters (contract); undefined when not sent. */
export function parseIdempotencyKey(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^[\x20-\x7e]{1,255}$/.test(value)) {
    throw errors.invalidIdempotencyKey();
  }
  return value;
}
