import middy from "@middy/core";
import { listVersion } from "../../lib/categoryList/cache.ts";
import type { ListCategoriesDeps } from "./deps.ts";
import { listCategoriesDeps } from "./deps.ts";
import type { DepsOptions } from "../../lib/deps.ts";
import { isNotModified } from "../../lib/http/conditional.ts";
import type { HttpEvent, HttpResponse } from "../../lib/http/message.ts";
import type { ServiceContext, ServiceHandler, ServiceResult } from "../../lib/middleware.ts";
import { authenticatedService, deadlineOf, requireScope } from "../../lib/middleware.ts";
import type { Declared } from "../../lib/routes.ts";
import { requiredScope } from "../../lib/routes.ts";
import type { Scope } from "../../lib/scopes.ts";

/**
 * GET /v1/categories: every category, in id order, from the container's list cache; 304 when
 * If-None-Match names the current version's tag, decided from the list's first read alone.
 */
export function listCategoriesHandler(deps: ListCategoriesDeps, scope: Scope): ServiceHandler {
  return middy<HttpEvent, ServiceResult, Error, ServiceContext>()
    .use(authenticatedService(deps))
    .use(requireScope(scope))
    .handler<HttpEvent, HttpResponse>(async (event, context) => {
      const deadline = deadlineOf(context, deps.now);
      const current = await deps.categoryList.version(deadline);
      const version = listVersion(current.counter);
      if (isNotModified(event, version)) return { statusCode: 304, data: undefined, version };
      const data = await deps.categoryList.categories(current, deadline);
      deps.metrics.count("listSize", data.length);
      return { statusCode: 200, data, version };
    });
}

/** The function as its index.ts and the tests build it (test/functions/harness.ts). */
export function build(options: DepsOptions, declared: Declared): ServiceHandler {
  return listCategoriesHandler(listCategoriesDeps(options), requiredScope(declared, options));
}
