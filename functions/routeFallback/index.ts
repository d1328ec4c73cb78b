import { createServiceParts } from "../../lib/deps.ts";
import type { RouteTable } from "../../lib/routes.ts";
import { routeFallbackHandler } from "./handler.ts";

/** Injected by scripts/build.ts from infra/template.yaml: the function's name, the routes. */
declare const __PETSTORE_FUNCTION__: string;
declare const __PETSTORE_ROUTES__: RouteTable;

// The shared parts are all it uses: the key check, the log, the metrics, the pets dates.
export const handler = routeFallbackHandler(
  createServiceParts({ operation: __PETSTORE_FUNCTION__ }),
  __PETSTORE_ROUTES__,
);
