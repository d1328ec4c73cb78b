import middy from "@middy/core";
import type { CreateCategoryDeps } from "./deps.ts";
import { createCategoryDeps } from "./deps.ts";
import type { DepsOptions } from "../../lib/deps.ts";
import { errors } from "../../lib/errors.ts";
import { jsonRequestBody } from "../../lib/http/jsonBody.ts";
import type { HttpEvent, HttpResponse } from "../../lib/http/message.ts";
import { header } from "../../lib/http/message.ts";
import { parseIdempotencyKey } from "../../lib/http/request.ts";
import type { ServiceContext, ServiceHandler, ServiceResult } from "../../lib/middleware.ts";
import {
  authenticatedService,
  deadlineOf,
  requestIdOf,
  requireScope,
} from "../../lib/middleware.ts";
import { categoryBodyFields, parseNewCategory } from "../../lib/category.ts";
import type { Declared } from "../../lib/routes.ts";
import { requiredScope } from "../../lib/routes.ts";
import type { Scope } from "../../lib/scopes.ts";

/**
 * POST /v1/categories: validates a NewCategory and stores it under the next id; with an
 * Idempotency-Key, a repeat replays the first answer instead of creating again.
 */
export function createCategoryHandler(deps: CreateCategoryDeps, scope: Scope): ServiceHandler {
  return middy<HttpEvent, ServiceResult, Error, ServiceContext>()
    .use(authenticatedService(deps))
    .use(requireScope(scope))
    .use(jsonRequestBody(categoryBodyFields))
    .handler<HttpEvent, HttpResponse>(async (event, context) => {
      // The JSON body parser has replaced the text with the parsed value: validate it as unknown.
      const input = parseNewCategory(event.body);
      const idempotencyKey = parseIdempotencyKey(header(event, "idempotency-key"));
      const requestId = requestIdOf(event, context);
      const keyId = context.principal?.keyId;
      const deadline = deadlineOf(context, deps.now);
      if (idempotencyKey === undefined) {
        const created = await deps.categories.create(input, requestId, deadline, keyId);
        deps.metrics.count("categoriesCreated");
        return { statusCode: 201, data: created };
      }
      if (!context.principal) throw errors.internal(new Error("create ran without a principal"));
      const { category, replayed } = await deps.idempotency.create(
        context.principal.keyHash,
        idempotencyKey,
        input,
        requestId,
        deadline,
        keyId,
      );
      context.replayed = replayed;
      if (replayed) deps.metrics.count("idempotentReplays");
      else deps.metrics.count("categoriesCreated");
      return { statusCode: 201, data: category };
    });
}

/** The function as its index.ts and the tests build it (test/functions/harness.ts). */
export function build(options: DepsOptions, declared: Declared): ServiceHandler {
  return createCategoryHandler(createCategoryDeps(options), requiredScope(declared, options));
}
