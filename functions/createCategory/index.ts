import { build } from "./handler.ts";

/** Injected by scripts/build.ts: the function's name in infra/template.yaml. */
declare const __PETSTORE_FUNCTION__: string;

export const handler = build({ operation: __PETSTORE_FUNCTION__ });
