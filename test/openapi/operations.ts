/**
 * Every operation openapi.yaml describes, as `["GET /categories", operation]` (paths as the
 * document spells them, without the servers' /v1): one walk of the declaration for the tests
 * that check each operation.
 */
import type { JsonObject } from "../support/openapiDocument.ts";
import { loadOpenApi, objectAt, operationMethods } from "../support/openapiDocument.ts";

export function openApiOperations(): [string, JsonObject][] {
  return Object.entries(objectAt(loadOpenApi(), "paths")).flatMap(([path, item]) =>
    operationMethods
      .filter((method) => (item as JsonObject)[method] !== undefined)
      .map((method): [string, JsonObject] => [
        `${method.toUpperCase()} ${path}`,
        (item as JsonObject)[method] as JsonObject,
      ]),
  );
}
