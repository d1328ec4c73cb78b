/**
 * Generated createCategory requests and the statuses the contract's order of checks allows for
 * them (key, then media type, size, JSON syntax, fields, Idempotency-Key).
 */
import fc from "fast-check";
import { expect } from "vitest";
import type { HttpEvent } from "../../../lib/http/message.ts";
import type { Category } from "../../../lib/category.ts";
import { bodyText, loadEvent } from "../../functions/harness.ts";
import { authorizationArb } from "./authorization.ts";
import { bodyArb } from "./bodies.ts";
import type { BodyCase } from "./bodyCase.ts";
import type { Common } from "./handlerEvents.ts";
import { commonArbs, decodedBody, presentedBy, withBody } from "./handlerEvents.ts";
import type { HostileHandlers } from "./handlerRig.ts";
import type { IdempotencyCase, MediaCase } from "./headers.ts";
import { contentTypeArb, contentTypeName, idempotencyArb, setHeader } from "./headers.ts";

export interface CreateCase extends Common {
  readonly media: MediaCase;
  readonly mediaName: string;
  readonly body: BodyCase;
  readonly idempotency: IdempotencyCase;
}

/** Everything random: mostly decided by the key and the media type. */
export function createCaseArb(key: string): fc.Arbitrary<CreateCase> {
  return fc.record({
    ...commonArbs(key),
    media: contentTypeArb,
    mediaName: contentTypeName,
    body: bodyArb,
    idempotency: idempotencyArb,
  });
}

/** The same, with an accepted key and mostly a JSON media type, so the body decides. */
export function createBodyCaseArb(key: string): fc.Arbitrary<CreateCase> {
  return fc.record({
    ...commonArbs(key),
    auth: authorizationArb(key).filter((auth) => auth.verdict === "accept"),
    media: fc.oneof(
      { weight: 9, arbitrary: contentTypeArb.filter((media) => media.verdict === "json") },
      { weight: 1, arbitrary: contentTypeArb },
    ),
    mediaName: contentTypeName,
    body: bodyArb,
    idempotency: idempotencyArb,
  });
}

/** Serves one generated create and checks its status against what the generators made. */
export async function checkCreate(rig: HostileHandlers, input: CreateCase): Promise<void> {
  const { response } = await rig.serve(
    rig.create(),
    createEvent(rig, input),
    presentedBy(input, input.idempotency.value),
    { idempotencyKey: input.idempotency.value !== undefined },
  );
  const expected = expectedCreate(input);
  if (expected) {
    expect(expected, `${input.auth.label} / ${input.body.label}`).toContain(response.statusCode);
  }
  if (response.statusCode === 201 && input.body.verdict === "valid") {
    const sent = JSON.parse(decodedBody(input.body)) as { name: string };
    expect((JSON.parse(bodyText(response)) as Category).name).toBe(sent.name.trim());
  }
}

function createEvent(rig: HostileHandlers, input: CreateCase): HttpEvent {
  const event = rig.withHeaders(loadEvent("create-ok.json"), input);
  setHeader(event.headers, input.mediaName, input.media.value);
  setHeader(event.headers, "idempotency-key", input.idempotency.value);
  return withBody(event, input.body);
}

/** The statuses the contract's order of checks allows for what the generators made. */
function expectedCreate(input: CreateCase): readonly number[] | undefined {
  if (input.auth.verdict === "refuse") return [401];
  if (input.media.verdict === "not_json") return [415];
  if (input.media.verdict === "unknown") return undefined;
  switch (input.body.verdict) {
    case "too_large":
      return [413];
    case "bad_request":
      return [400];
    case "unknown":
      return undefined;
    case "valid":
      if (input.idempotency.verdict === "invalid") return [400];
      if (input.idempotency.verdict === "shared") return [201, 422];
      return [201];
  }
}
