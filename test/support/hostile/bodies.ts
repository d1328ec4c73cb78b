/** Every kind of request body, mixed: the body generator the hostile-input properties draw from. */
import fc from "fast-check";
import type { BodyCase } from "./bodyCases.ts";
import { text, validCategoryText } from "./bodyCases.ts";
import { base64Bodies, deepDocument, sizedBody } from "./bodyEncodings.ts";
import { duplicatedKeys, plainBadBodies, prototypeBodies, surrogateBodies } from "./bodyTraps.ts";

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
