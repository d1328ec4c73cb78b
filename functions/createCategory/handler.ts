import middy from "@middy/core";
import httpJsonBodyParser from "@middy/http-json-body-parser";
import type { ServiceDeps } from "../../lib/deps.ts";
import { errors } from "../../lib/errors.ts";
import type { HttpEvent, HttpResponse } from "../../lib/http.ts";
import { header, jsonResponse } from "../../lib/http.ts";
import { parseIdempotencyKey } from "../../lib/idempotency.ts";
import type { ServiceContext, ServiceHandler } from "../../lib/middleware.ts";
import { authenticatedService, deadlineOf, jsonRequestBody } from "../../lib/middleware.ts";
import { parseNewCategory } from "../../lib/validation.ts";

/**
 * POST /v1/categories: validates a NewCategory and stores it under the next id; with an
 * Idempotency-Key, a repeat replays the first answer instead of creating again.
 */
export function createCategoryHandler(deps: ServiceDeps): ServiceHandler {
  return middy<HttpEvent, HttpResponse, Error, ServiceContext>()
    .use(authenticatedService(deps))
    .use(jsonRequestBody())
    .use(httpJsonBodyParser({ disableContentTypeCheck: true }))
    .handler(async (event, context) => {
      // The JSON body parser has replaced the text with the parsed value: validate it as unknown.
      const input = parseNewCategory(event.body);
      const idempotencyKey = parseIdempotencyKey(header(event, "idempotency-key"));
      const requestId = context.awsRequestId || event.requestContext.requestId;
      const acceptEncoding = header(event, "accept-encoding");
      if (idempotencyKey === undefined) {
        const category = await deps.categories.create(input, requestId, deadlineOf(context));
        return jsonResponse(201, category, acceptEncoding);
      }
      if (!context.principal) throw errors.internal(new Error("create ran without a principal"));
      const { category, replayed } = await deps.idempotency.create(
        context.principal.keyHash,
        idempotencyKey,
        input,
        requestId,
        deadlineOf(context),
      );
      context.replayed = replayed;
      return jsonResponse(
        201,
        category,
        acceptEncoding,
        replayed ? { "idempotent-replayed": "true" } : {},
      );
    });
}
