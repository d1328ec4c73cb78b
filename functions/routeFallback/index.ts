import type { Declared } from "../../lib/routes.ts";
import { build } from "./handler.ts";

/** Injected by scripts/build.ts: the function's name in infra/template.yaml, and its declarations. */
declare const __PETSTORE_FUNCTION__: string;
declare const __PETSTORE_DECLARED__: Declared;

export const handler = build({ operation: __PETSTORE_FUNCTION__ }, __PETSTORE_DECLARED__);
