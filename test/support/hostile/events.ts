/**
 * Generated API Gateway (payload 2.0) events for the handler-level hostile-input properties: the
 * headers every request may carry, a generated body put on an event, and what of a request may
 * not come back in an answer.
 */
import type fc from "fast-check";
import type { HttpEvent } from "../../../lib/http/message.ts";
import type { BodyCase } from "./bodyCases.ts";
import { acceptEncodingArb, extraHeadersArb } from "./headers.ts";
import type { AuthCase } from "./keys.ts";
import { authorizationArb, authorizationName, keyLikeRuns } from "./keys.ts";

/** What any generated request carries besides its route, media type and body. */
export interface Common {
  readonly auth: AuthCase;
  readonly authName: string;
  readonly acceptEncoding: string | undefined;
  readonly extra: Readonly<Record<string, string>>;
}

/** The generators of `Common`, around the one valid key (spread into fc.record). */
export const commonArbs = (key: string): { [K in keyof Common]: fc.Arbitrary<Common[K]> } => ({
  auth: authorizationArb(key),
  authName: authorizationName,
  acceptEncoding: acceptEncodingArb,
  extra: extraHeadersArb,
});

export function withBody(event: HttpEvent, body: BodyCase): HttpEvent {
  if (body.body === undefined) Reflect.deleteProperty(event, "body");
  else event.body = body.body;
  event.isBase64Encoded = body.isBase64Encoded;
  return event;
}

/** The body as the handler reads it: decoded from base64 if flagged so. */
export function decodedBody(body: BodyCase): string {
  const raw = body.body ?? "";
  return body.isBase64Encoded ? Buffer.from(raw, "base64").toString("utf8") : raw;
}

/** The values a request presented whose key-like runs must not come back. */
export function presentedBy(
  input: Common,
  ...more: (string | undefined)[]
): (string | undefined)[] {
  return [input.auth.value, ...Object.values(input.extra), ...more];
}

/** The request body as sent and as decoded from base64, for `echoable`. */
export function sentText(event: HttpEvent): string {
  const raw = event.body ?? "";
  return event.isBase64Encoded ? `${raw}\n${Buffer.from(raw, "base64").toString("utf8")}` : raw;
}

/**
 * The key-like runs of the presented values that must not come back. A run the body also holds
 * is left out: an unknown field is named in the answer by contract, and fast-check likes to
 * draw words such as "prototype" or "constructor" for headers and field names alike.
 */
export function echoable(presented: readonly (string | undefined)[], body: string): string[] {
  return keyLikeRuns(...presented).filter((run) => !body.includes(run));
}
