import { createServiceDeps } from "../../lib/deps.ts";
import type { RouteTable } from "../../lib/routes.ts";
import { routeFallbackHandler } from "./handler.ts";

/** Injected by scripts/build.ts from infra/template.yaml, so the routes are declared once. */
declare const __PETSTORE_ROUTES__: RouteTable;

export const handler = routeFallbackHandler(
  createServiceDeps({ operation: "routeFallback" }),
  __PETSTORE_ROUTES__,
);
