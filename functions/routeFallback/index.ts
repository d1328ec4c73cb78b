import type { RouteTable } from "../../lib/routes.ts";
import { build } from "./handler.ts";

/** Injected by scripts/build.ts from infra/template.yaml: the function's name, the routes. */
declare const __PETSTORE_FUNCTION__: string;
declare const __PETSTORE_ROUTES__: RouteTable;

export const handler = build({ operation: __PETSTORE_FUNCTION__ }, __PETSTORE_ROUTES__);
