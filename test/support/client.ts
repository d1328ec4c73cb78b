/**
 * The HTTP tests' client: the project's one client (scripts/lib/httpClient.ts) with every answer
 * checked against openapi.yaml.
 */
import type { Answer, Call, Category } from "../../scripts/lib/httpClient.ts";
import * as client from "../../scripts/lib/httpClient.ts";
import { assertMatchesOpenApi } from "./openapi.ts";

export type { Answer, Call, Category, ErrorBody } from "../../scripts/lib/httpClient.ts";

const checked = { check: assertMatchesOpenApi };

export function send(baseUrl: string, call: Call): Promise<Answer> {
  return client.send(baseUrl, call, checked);
}

/** A JSON POST to /v1/categories. */
export function createCategory(
  baseUrl: string,
  key: string | null,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return client.createCategory(baseUrl, key, body, headers, checked);
}

export function listCategories(baseUrl: string, key: string): Promise<Category[]> {
  return client.listCategories(baseUrl, key, checked);
}

/** Runs `task` over `inputs` with at most `limit` running at once; results keep input order. */
export async function inParallel<T, R>(
  inputs: readonly T[],
  limit: number,
  task: (input: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < inputs.length) {
      const index = next++;
      results[index] = await task(inputs[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, inputs.length) }, worker));
  return results;
}
