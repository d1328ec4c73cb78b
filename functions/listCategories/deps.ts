/** listCategories' parts: the shared ones and the container's list cache, nothing else. */
import { CategoryList } from "../../lib/categoryList/reader.ts";
import type { DepsOptions, ServiceDeps } from "../../lib/deps.ts";
import { createServiceParts } from "../../lib/deps.ts";

export interface ListCategoriesDeps extends ServiceDeps {
  /** The container's list cache: one per container, so built here, once. */
  readonly categoryList: CategoryList;
}

export function listCategoriesDeps(options: DepsOptions): ListCategoriesDeps {
  const { db, ...shared } = createServiceParts(options);
  return { ...shared, categoryList: new CategoryList(db, shared.config.tableName, shared.now) };
}
