/** A rotation the test expects to be made: its new key and the old one's new expiry. */
import type { Rotation, KeyRefused } from "../../lib/repositories/apiKeys.ts";

export function made(rotation: Rotation | KeyRefused | undefined): Rotation {
  if (!rotation || "refused" in rotation)
    throw new Error(`expected a rotation, got ${JSON.stringify(rotation)}`);
  return rotation;
}
