import { createCategoryDeps } from "./deps.ts";
import { createCategoryHandler } from "./handler.ts";

/** Injected by scripts/build.ts: the function's name in infra/template.yaml. */
declare const __PETSTORE_FUNCTION__: string;

export const handler = createCategoryHandler(
  createCategoryDeps({ operation: __PETSTORE_FUNCTION__ }),
);
