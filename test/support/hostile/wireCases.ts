/**
 * One generated wire request (method, Authorization and Content-Type lines, extra lines, raw
 * body) and the status the contract's order of checks demands for it, where it is certain.
 */
import fc from "fast-check";
import type { WireBody } from "./wireBodies.ts";
import { wireBodyArb } from "./wireBodies.ts";
import type { AuthLines, MediaLines } from "./wireHeaders.ts";
import { authLinesArb, extraLinesArb, mediaLinesArb } from "./wireHeaders.ts";

export interface WireCase {
  readonly method: "GET" | "POST";
  readonly authName: string;
  readonly auth: AuthLines;
  readonly mediaName: string;
  readonly media: MediaLines;
  readonly extra: readonly (readonly [string, Buffer])[];
  readonly body: WireBody;
}

export function expectedStatus(input: WireCase): number | undefined {
  if (input.auth.verdict === undefined) return undefined;
  if (input.auth.verdict === "refuse") return 401;
  if (input.method === "GET") return 200;
  if (input.media.verdict === "unknown") return undefined;
  if (input.media.verdict === "not_json") return 415;
  return { valid: 201, bad_request: 400, too_large: 413 }[input.body.kind];
}

export function wireCaseArb(key: string): fc.Arbitrary<WireCase> {
  return fc.record({
    method: fc.constantFrom("POST", "POST", "POST", "GET"),
    authName: fc.constantFrom("Authorization", "authorization", "AUTHORIZATION"),
    auth: authLinesArb(key),
    mediaName: fc.constantFrom("Content-Type", "content-type", "CONTENT-TYPE"),
    media: mediaLinesArb,
    extra: extraLinesArb,
    body: wireBodyArb,
  });
}
