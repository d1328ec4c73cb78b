/**
 * Hostile API Gateway events for the handler-level tests: a sample event from events/ with the
 * generated headers and body put on it, and what the request presented (whose key-like runs must
 * not come back).
 */
import type fc from "fast-check";
import type { HttpEvent } from "../../../lib/http/message.ts";
import { loadEvent } from "../../functions/harness.ts";
import type { AuthCase } from "./authorization.ts";
import { authorizationArb, authorizationName } from "./authorization.ts";
import type { BodyCase } from "./bodyCase.ts";
import { acceptEncodingArb, extraHeadersArb, setHeader } from "./headers.ts";

/** What every generated request carries, whatever the route. */
export interface Common {
  readonly auth: AuthCase;
  readonly authName: string;
  readonly acceptEncoding: string | undefined;
  readonly extra: Readonly<Record<string, string>>;
}

/** The record of arbitraries behind `Common`, around one valid key. */
export function commonArbs(key: string): { [Field in keyof Common]: fc.Arbitrary<Common[Field]> } {
  return {
    auth: authorizationArb(key),
    authName: authorizationName,
    acceptEncoding: acceptEncodingArb,
    extra: extraHeadersArb,
  };
}

/** Puts the generated headers on `event` (its Content-Length dropped: the body will change). */
export function withHeaders(event: HttpEvent, input: Common, requestId: string): HttpEvent {
  const headers = event.headers;
  Reflect.deleteProperty(headers, "content-length");
  setHeader(headers, input.authName, input.auth.value);
  setHeader(headers, "accept-encoding", input.acceptEncoding);
  Object.assign(headers, input.extra);
  event.requestContext.requestId = requestId;
  return event;
}

export function withBody(event: HttpEvent, body: BodyCase): HttpEvent {
  if (body.body === undefined) Reflect.deleteProperty(event, "body");
  else event.body = body.body;
  event.isBase64Encoded = body.isBase64Encoded;
  return event;
}

/** A sample event carrying `key`. */
export function withKey(name: string, key: string): HttpEvent {
  const event = loadEvent(name);
  event.headers.authorization = `Bearer ${key}`;
  return event;
}

/** The body as the service reads it: decoded from base64 when the flag says so. */
export function decodedBody(body: BodyCase): string {
  const raw = body.body ?? "";
  return body.isBase64Encoded ? Buffer.from(raw, "base64").toString("utf8") : raw;
}

/** The request body as sent and as decoded from base64, for `echoable`. */
export function sentText(event: HttpEvent): string {
  const raw = event.body ?? "";
  return event.isBase64Encoded ? `${raw}\n${Buffer.from(raw, "base64").toString("utf8")}` : raw;
}

/** The values of a generated request that must not come back: Authorization, extra headers, more. */
export function presentedBy(
  input: Common,
  ...more: (string | undefined)[]
): (string | undefined)[] {
  return [input.auth.value, ...Object.values(input.extra), ...more];
}

/** Runs per property, times HOSTILE_RUNS_FACTOR (10 makes a soak run). */
export function scaledRuns<Name extends string>(
  counts: Readonly<Record<Name, number>>,
): Readonly<Record<Name, number>> {
  const factor = Number(process.env.HOSTILE_RUNS_FACTOR ?? "1");
  return Object.fromEntries(
    Object.entries<number>(counts).map(([name, count]) => [name, Math.round(count * factor)]),
  ) as Record<Name, number>;
}
