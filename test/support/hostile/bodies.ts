/**
 * Any request body, weighted across the themes: valid documents, sizes and nesting, encodings,
 * and refused documents. Each case says what it is (see bodyCase.ts).
 */
import fc from "fast-check";
import type { BodyCase } from "./bodyCase.ts";
import { text, validCategoryText } from "./bodyCase.ts";
import { prototypeBodies, duplicatedKeys, plainBadBodies } from "./bodyDocuments.ts";
import { base64Bodies, surrogateBodies } from "./bodyEncodings.ts";
import { deepDocument, sizedBody } from "./bodySizes.ts";

export const bodyArb: fc.Arbitrary<BodyCase> = fc.oneof(
  { weight: 8, arbitrary: validCategoryText.map(text("valid", "valid")) },
  { weight: 2, arbitrary: deepDocument },
  { weight: 1, arbitrary: sizedBody },
  { weight: 3, arbitrary: surrogateBodies },
  { weight: 3, arbitrary: prototypeBodies },
  { weight: 2, arbitrary: duplicatedKeys },
  { weight: 5, arbitrary: plainBadBodies },
  { weight: 4, arbitrary: base64Bodies },
);
