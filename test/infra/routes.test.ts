/**
 * The routes the local server serves are exactly the template's: each route key answers from
 * the function the template gives it, and everything else falls to $default (404 / 405).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { routesOf } from "../../local/template.ts";
import { localServer } from "../support/localServer.ts";
import { objectAt } from "../support/openapiDocument.ts";
import { openApiOperations } from "../openapi/operations.ts";

const routes = routesOf();
const operations = new Map(openApiOperations());

/**
 * What a route answers an authenticated request: the success openapi.yaml declares for its
 * operation (the lowest 2xx), or 501 for a route the interface names without specifying (its
 * only answers are errors: the route fallback's).
 */
function answerOf(routeKey: string): number {
  const operation = operations.get(routeKey.replace(" /v1/", " /"));
  const successes = Object.keys(objectAt(operation, "responses"))
    .filter((status) => /^2\d\d$/.test(status))
    .map(Number);
  return successes.length > 0 ? Math.min(...successes) : 501;
}
const methods = ["GET", "POST", "PUT", "PATCH", "DELETE"];

const server = await localServer();
beforeAll(async () => {
  // An item route (a `{param}`, made concrete as 1 below) answers its success only for an item
  // that exists: category 1.
  expect((await call("POST", "/v1/categories")).status).toBe(201);
});

async function call(method: string, path: string, withKey = true): Promise<Response> {
  const base = server.baseUrl.replace(/\/v1$/, "");
  return fetch(`${base}${path}`, {
    method,
    headers: {
      ...(withKey && { authorization: `Bearer ${server.apiKey}` }),
      ...(method === "POST" && { "content-type": "application/json" }),
    },
    ...(method === "POST" && { body: JSON.stringify({ name: "route test" }) }),
  });
}

function concrete(pattern: string): string {
  return pattern.replaceAll(/\{[^}]+\}/g, "1");
}

describe("template routes", () => {
  // Which routes there are: test/openapi/code.test.ts holds the template to openapi.yaml.
  const served = [...routes.entries()].filter(([key]) => key !== "$default");
  it.each(served)("%s answers from %s", async (routeKey) => {
    const [method = "", pattern = ""] = routeKey.split(" ");
    const response = await call(method, concrete(pattern));
    expect(response.status, await response.clone().text()).toBe(answerOf(routeKey));
    // And every one of them is behind the key, as in the contract.
    expect((await call(method, concrete(pattern), false)).status).toBe(401);
  });

  const servedPaths = [...new Set(served.map(([key]) => key.split(" ")[1] ?? ""))];
  it.each(servedPaths)(
    "%s: any other method is 405 with exactly the template's methods",
    async (p) => {
      const allowed = served
        .filter(([key]) => key.endsWith(` ${p}`))
        .map(([key]) => key.split(" ")[0]);
      for (const method of methods.filter((m) => !allowed.includes(m))) {
        const response = await call(method, concrete(p), false);
        expect(response.status, `${method} ${p}`).toBe(405);
        const allow = (response.headers.get("allow") ?? "").split(/,\s*/).sort();
        expect(allow, `${method} ${p}`).toEqual([...allowed].sort());
      }
    },
  );

  it.each([
    "/",
    "/v1",
    "/v1/",
    "/v1/categories/1/x",
    "/v1/categories/",
    "/v1/pets",
    "/v1/pets/1/photos",
    "/v1/store",
    "/v2/categories",
    "/categories",
  ])("%s is not a route: 404 from $default", async (path) => {
    const response = await call("GET", path, false);
    const headers = Object.fromEntries(response.headers);
    const answer = { status: response.status, headers, text: await response.text() };
    expect(answer).toBeApiError(404, "not_found");
  });
});
