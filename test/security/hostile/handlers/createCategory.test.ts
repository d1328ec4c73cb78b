/**
 * Property-based hostile input against createCategory, invoked directly with generated API
 * Gateway (payload 2.0) events: random and deeply nested bodies, bodies near and over 64 KiB,
 * lone surrogates, prototype keys, duplicated JSON keys, base64 flags that lie, invalid UTF-8,
 * odd Content-Types and Idempotency-Keys, and every kind of wrong Authorization value. Where the
 * generator knows what it made, the status is the one the contract's order of checks demands;
 * the invariants of every answer are checked by the rig (test/support/hostile/handlerRig.ts).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hashApiKey } from "../../../../lib/repositories/apiKeys.ts";
import type { Category } from "../../../../lib/category.ts";
import { bodyText } from "../../../functions/harness.ts";
import { validDescriptionArb, validNameArb } from "../../../support/hostile/bodies.ts";
import { checkCreate, createBodyCaseArb, createCaseArb } from "../../../support/hostile/cases.ts";
import { scaledRuns, useHostileHandlers } from "../../../support/hostile/handlerRig.ts";
import { setHeader } from "../../../support/hostile/headers.ts";
import { expectNoSecretIn } from "../../../support/hostile/invariants.ts";

const runs = scaledRuns({
  /** Everything random: mostly decided by the key and the media type. */
  create: 1_400,
  /** An accepted key and (mostly) a JSON media type: decided by the body. */
  createBodies: 2_100,
  validCreate: 300,
  keyInBody: 200,
});
const rig = useHostileHandlers();
const key = rig.key;
const check = (input: Parameters<typeof checkCreate>[1]) => checkCreate(rig, input);

describe("createCategory: any body, media type, Authorization or header: the contract's status in its order of checks, never a 5xx, nothing stored unless 201", () => {
  it(`holds for ${runs.create} generated requests`, async () => {
    await fc.assert(fc.asyncProperty(createCaseArb(key), check), { numRuns: runs.create });
  });

  it(`holds for ${runs.createBodies} generated bodies sent with an accepted key`, async () => {
    await fc.assert(fc.asyncProperty(createBodyCaseArb(key), check), {
      numRuns: runs.createBodies,
    });
  });

  it(`a valid key with a valid body is always stored and answered 201 (${runs.validCreate} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        validNameArb,
        fc.option(validDescriptionArb, { nil: undefined }),
        fc.constantFrom(undefined, "application/json", "application/json; charset=utf-8"),
        fc.boolean(),
        async (name, description, contentType, asBase64) => {
          const event = rig.withValidKey("create-ok.json");
          setHeader(event.headers, "content-type", contentType);
          const json = JSON.stringify({ name, ...(description !== undefined && { description }) });
          event.body = asBase64 ? Buffer.from(json).toString("base64") : json;
          event.isBase64Encoded = asBase64;
          const { response, calls } = await rig.serve(rig.create(), event, []);
          expect(response.statusCode).toBe(201);
          const category = JSON.parse(bodyText(response)) as Category;
          expect(category).toStrictEqual({
            id: category.id,
            name: name.trim(),
            ...(description !== undefined && { description }),
          });
          expect(calls.some((call) => call.operation === "PutItem")).toBe(true);
        },
      ),
      { numRuns: runs.validCreate },
    );
  });
});

describe("a key pasted into a refused body is not echoed whole: field names are quoted to 40 characters", () => {
  it(`holds for ${runs.keyInBody} generated bodies`, async () => {
    const pasted = fc.constantFrom(key, `Bearer ${key}`, hashApiKey(key));
    await fc.assert(
      fc.asyncProperty(
        pasted,
        fc.constantFrom(
          (k: string) => ({ [k]: 1 }),
          (k: string) => ({ name: "x", [k]: "y" }),
          (k: string) => ({ name: "x", description: { [k]: 1 } }),
          (k: string) => ({ [`${k}${k}`]: true }),
          (k: string) => ({ name: "x", id: k }),
          (k: string) => ({ name: `${k}\u0000` }),
          (k: string) => ({ name: k.repeat(3) }),
          (k: string) => ({ name: [k] }),
          (k: string) => ({ name: "x", description: null, [k]: k }),
        ),
        async (secret, shape) => {
          const event = rig.withValidKey("create-ok.json");
          event.body = JSON.stringify(shape(secret));
          const { response } = await rig.serve(rig.create(), event, []);
          expect(response.statusCode).toBe(400);
          expectNoSecretIn(response.body, [key, hashApiKey(key), secret]);
        },
      ),
      { numRuns: runs.keyInBody },
    );
  });
});
