import { createServiceDeps } from "../../lib/deps.ts";
import { listCategoriesHandler } from "./handler.ts";

export const handler = listCategoriesHandler(createServiceDeps({ operation: "listCategories" }));
