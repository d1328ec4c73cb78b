import { buildFunctions } from "../../scripts/build.ts";

export default async function setup(): Promise<void> {
  await buildFunctions();
}
