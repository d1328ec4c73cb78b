import { createServiceDeps } from "../../lib/deps.ts";
import { createCategoryHandler } from "./handler.ts";

export const handler = createCategoryHandler(createServiceDeps({ operation: "createCategory" }));
