/**
 * Generated createCategory requests and the statuses the contract's order of checks allows for
 * them (route, key, media type, size, JSON, fields), for the handler-level hostile properties.
 */
import fc from "fast-check";
import { expect } from "vitest";
import type { HttpEvent } from "../../../lib/http/message.ts";
import type { Category } from "../../../lib/repositories/categories.ts";
import { bodyText, loadEvent } from "../../functions/harness.ts";
import type { HostileHandlers } from "../hostileHandlers.ts";
import { bodyArb } from "./bodies.ts";
import type { BodyCase } from "./bodyCases.ts";
import type { Common } from "./events.ts";
import { commonArbs, decodedBody, presentedBy, withBody } from "./events.ts";
import type { IdempotencyCase, MediaCase } from "./headers.ts";
import { contentTypeArb, contentTypeName, idempotencyArb, setHeader } from "./headers.ts";

export interface CreateCase extends Common {
  readonly media: MediaCase;
  readonly mediaName: string;
  readonly body: BodyCase;
  readonly idempotency: IdempotencyCase;
}

export interface CreateCaseArbs {
  /** Everything random: mostly decided by the key and the media type. */
  readonly any: fc.Arbitrary<CreateCase>;
  /** An accepted key and mostly a JSON media type, so the body decides. */
  readonly byBody: fc.Arbitrary<CreateCase>;
}

export function createCaseArbs(key: string): CreateCaseArbs {
  const common = commonArbs(key);
  return {
    any: fc.record({
      ...common,
      media: contentTypeArb,
      mediaName: contentTypeName,
      body: bodyArb,
      idempotency: idempotencyArb,
    }),
    byBody: fc.record({
      ...common,
      auth: common.auth.filter((auth) => auth.verdict === "accept"),
      media: fc.oneof(
        { weight: 9, arbitrary: contentTypeArb.filter((media) => media.verdict === "json") },
        { weight: 1, arbitrary: contentTypeArb },
      ),
      mediaName: contentTypeName,
      body: bodyArb,
      idempotency: idempotencyArb,
    }),
  };
}

/** The statuses the contract's order of checks allows for what the generators made. */
export function expectedCreate(input: CreateCase): readonly number[] | undefined {
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

/** Serves one generated create through `rig` and checks its status and, on 201, its name. */
export function checkCreate(rig: HostileHandlers): (input: CreateCase) => Promise<void> {
  const createEvent = (input: CreateCase): HttpEvent => {
    const event = rig.withHeaders(loadEvent("create-ok.json"), input);
    setHeader(event.headers, input.mediaName, input.media.value);
    setHeader(event.headers, "idempotency-key", input.idempotency.value);
    return withBody(event, input.body);
  };
  return async (input) => {
    const { response } = await rig.serve(
      rig.handlers().create,
      createEvent(input),
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
  };
}
