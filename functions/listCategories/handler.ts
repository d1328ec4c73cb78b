import middy from "@middy/core";
import type { ServiceDeps } from "../../lib/deps.ts";
import type { HttpEvent, HttpResponse } from "../../lib/http.ts";
import { header, jsonResponse } from "../../lib/http.ts";
import type { ServiceContext, ServiceHandler } from "../../lib/middleware.ts";
import { authenticatedService, deadlineOf } from "../../lib/middleware.ts";

/** GET /v1/categories: every category, in id order. */
export function listCategoriesHandler(deps: ServiceDeps): ServiceHandler {
  return middy<HttpEvent, HttpResponse, Error, ServiceContext>()
    .use(authenticatedService(deps))
    .handler(async (event, context) => {
      const categories = await deps.categories.list(deadlineOf(context));
      return jsonResponse(200, categories, header(event, "accept-encoding"));
    });
}
