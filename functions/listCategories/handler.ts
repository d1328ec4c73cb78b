import middy from "@middy/core";
import type { ServiceDeps } from "../../lib/deps.ts";
import type { HttpEvent, HttpResponse } from "../../lib/http/message.ts";
import type { ServiceContext, ServiceHandler, ServiceResult } from "../../lib/middleware.ts";
import { authenticatedService, deadlineOf } from "../../lib/middleware.ts";

/** GET /v1/categories: every category, in id order. */
export function listCategoriesHandler(deps: ServiceDeps): ServiceHandler {
  return middy<HttpEvent, ServiceResult, Error, ServiceContext>()
    .use(authenticatedService(deps))
    .handler<HttpEvent, HttpResponse>(async (_event, context) => {
      const categories = await deps.categories.list(deadlineOf(context, deps.now));
      deps.metrics.listSize(categories.length);
      return { statusCode: 200, data: categories };
    });
}
