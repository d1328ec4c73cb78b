/**
 * No answer carries a usable piece of the presented key: whatever part of it a request repeats
 * (as a field name, inside one, as a value, in malformed JSON, in the Idempotency-Key, in the
 * path), no error message holds 8 or more of its characters in a row (lib/http/errorResponse.ts).
 * Property-based (fast-check) through the real create and fallback handlers on the embedded store,
 * with a key of the stage's format issued there.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scopeOf } from "../support/handlers.ts";
import { createCategoryDeps } from "../../functions/createCategory/deps.ts";
import { createCategoryHandler } from "../../functions/createCategory/handler.ts";
import { routeFallbackHandler } from "../../functions/routeFallback/handler.ts";
import { createServiceParts } from "../../lib/deps.ts";
import type { HttpEvent } from "../../lib/http/message.ts";
import { ApiKeyStore } from "../../lib/repositories/apiKeys.ts";
import { routeTableOf } from "../../lib/routes.ts";
import { routesOf } from "../../local/template.ts";
import { loadEvent, useHarness } from "../functions/harness.ts";

const harness = useHarness();

/** The first run of 8 or more of the key's characters the text holds, if any. */
function pieceOf(text: string, key: string): string | undefined {
  for (let start = 0; start + 8 <= key.length; start++) {
    const piece = key.slice(start, start + 8);
    if (text.includes(piece)) return piece;
  }
  return undefined;
}

/** Where a request may repeat part of the key: the body it sends, and the headers and path. */
type Placement = (piece: string) => { body?: string; idempotencyKey?: string; path?: string };

const around = fc.string({ maxLength: 6 });
const placement: fc.Arbitrary<Placement> = fc.oneof(
  fc.constant((piece: string) => ({ body: JSON.stringify({ name: "Dogs", [piece]: 1 }) })),
  fc.tuple(around, around).map(([pre, post]) => (piece: string) => ({
    body: JSON.stringify({ [`${pre}${piece}${post}`]: true }),
  })),
  fc.constant((piece: string) => ({ body: JSON.stringify({ name: 42, extra: piece }) })),
  fc.constant((piece: string) => ({ body: JSON.stringify({ name: { [piece]: piece } }) })),
  fc.constant((piece: string) => ({ body: JSON.stringify({ name: piece.repeat(20) }) })),
  fc.constant((piece: string) => ({
    body: JSON.stringify({ name: "Dogs", description: [piece] }),
  })),
  fc.constant((piece: string) => ({ body: `{"${piece}": }` })),
  fc.constant((piece: string) => ({ body: `{"name": "${piece}` })),
  fc.constant((piece: string) => ({ body: piece })),
  fc.constant((piece: string) => ({ body: '{"name":"Dogs"}', idempotencyKey: piece })),
  fc.constant((piece: string) => ({ path: `/v1/categories/${piece}` })),
  fc.constant((piece: string) => ({ path: `/v1/${piece}` })),
);

describe("no error message carries 8 or more characters of the presented key in a row", () => {
  it("whatever part of the key the request repeats, and wherever", async () => {
    const { db, tableName } = harness.table();
    const { apiKey } = await new ApiKeyStore(db, tableName).issue("echo", Date.now() + 10_000);
    const create = createCategoryHandler(
      harness.deps(createCategoryDeps),
      scopeOf("createCategory"),
    );
    const routes = routeTableOf([...routesOf().keys()].filter((key) => key !== "$default"));
    const fallback = routeFallbackHandler(harness.deps(createServiceParts), routes);
    const piece = fc
      .tuple(fc.nat({ max: apiKey.length - 8 }), fc.integer({ min: 8, max: apiKey.length }))
      .map(([start, length]) => apiKey.slice(start, start + length))
      .filter((part) => part.length >= 8);
    await fc.assert(
      fc.asyncProperty(piece, placement, async (part, place) => {
        const { body, idempotencyKey, path } = place(part);
        const event: HttpEvent = loadEvent("create-ok.json");
        event.headers.authorization = `Bearer ${apiKey}`;
        if (body !== undefined) event.body = body;
        if (idempotencyKey !== undefined) event.headers["idempotency-key"] = idempotencyKey;
        if (path !== undefined) {
          event.rawPath = path;
          event.requestContext.http.path = path;
          event.routeKey = "$default";
        }
        const handler = path === undefined ? create : fallback;
        const { response } = await harness.invoke(handler, event);
        if (response.statusCode < 400) return;
        expect(pieceOf(response.body, apiKey), response.body).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });
});
