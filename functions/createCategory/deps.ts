/** createCategory's parts: the shared ones, the category store and idempotent creation. */
import type { Category, NewCategory } from "../../lib/category.ts";
import type { DepsOptions, ServiceDeps } from "../../lib/deps.ts";
import { createServiceParts } from "../../lib/deps.ts";
import { IdempotentCreator } from "../../lib/idempotency/creator.ts";
import { CategoryStore } from "../../lib/repositories/categories.ts";
import { IdempotencyRecordStore } from "../../lib/repositories/idempotencyRecords.ts";

export interface CreateCategoryDeps extends ServiceDeps {
  readonly categories: CategoryStore;
  readonly idempotency: IdempotentCreator<NewCategory, Category>;
}

export function createCategoryDeps(options: DepsOptions): CreateCategoryDeps {
  const { db, ...shared } = createServiceParts(options);
  const { tableName } = shared.config;
  const categories = new CategoryStore(db, tableName, shared.now);
  const records = new IdempotencyRecordStore(db, tableName);
  return {
    ...shared,
    categories,
    idempotency: new IdempotentCreator(records, categories, shared.now, options.operation),
  };
}
