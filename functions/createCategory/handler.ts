import middy from "@middy/core";
import httpJsonBodyParser from "@middy/http-json-body-parser";
import type { ServiceDeps } from "../../lib/deps.ts";
import type { HttpEvent, HttpResponse } from "../../lib/http.ts";
import { header, jsonResponse } from "../../lib/http.ts";
import type { ServiceContext, ServiceHandler } from "../../lib/middleware.ts";
import { authenticatedService, deadlineOf, jsonRequestBody } from "../../lib/middleware.ts";
import { parseNewCategory } from "../../lib/validation.ts";

/** POST /v1/categories: validates a NewCategory and stores it under the next id. */
export function createCategoryHandler(deps: ServiceDeps): ServiceHandler {
  return middy<HttpEvent, HttpResponse, Error, ServiceContext>()
    .use(authenticatedService(deps))
    .use(jsonRequestBody())
    .use(httpJsonBodyParser({ disableContentTypeCheck: true }))
    .handler(async (event, context) => {
      // The JSON body parser has replaced the text with the parsed value: validate it as unknown.
      const input = parseNewCategory(event.body);
      const category = await deps.categories.create(
        input,
        context.awsRequestId || event.requestContext.requestId,
        deadlineOf(context),
      );
      return jsonResponse(201, category, header(event, "accept-encoding"));
    });
}
