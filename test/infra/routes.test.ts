/**
 * The routes the local server serves are exactly the template's: each route key answers from
 * the function the template gives it, and everything else falls to $default (404 / 405).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routesOf } from "../../local/template.ts";
import type { RunningServer } from "../support/localServer.ts";
import { startServer } from "../support/localServer.ts";

const routes = routesOf();
/** What each function answers to an authenticated request on one of its own routes. */
const answerOf: Record<string, number> = {
  listCategories: 200,
  createCategory: 201,
  routeFallback: 501,
};
const methods = ["GET", "POST", "PUT", "PATCH", "DELETE"];

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.stop();
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
  it("are the contract's operations, the two named-but-unspecified routes and $default", () => {
    expect([...routes.keys()].sort()).toEqual(
      [
        "$default",
        "GET /v1/categories",
        "GET /v1/pets/{petId}",
        "GET /v1/store/orders",
        "POST /v1/categories",
      ].sort(),
    );
  });

  const served = [...routes.entries()].filter(([key]) => key !== "$default");
  it.each(served)("%s answers from %s", async (routeKey, spec) => {
    const [method = "", pattern = ""] = routeKey.split(" ");
    const response = await call(method, concrete(pattern));
    expect(answerOf[spec.name], `no expected answer for ${spec.name}`).toBeDefined();
    expect(response.status, await response.clone().text()).toBe(answerOf[spec.name]);
    // And every one of them is behind the key, as in the contract.
    expect((await call(method, concrete(pattern), false)).status).toBe(401);
  });

  const paths = [...new Set(served.map(([key]) => key.split(" ")[1] ?? ""))];
  it.each(paths)("%s: any other method is 405 with exactly the template's methods", async (p) => {
    const allowed = served
      .filter(([key]) => key.endsWith(` ${p}`))
      .map(([key]) => key.split(" ")[0]);
    for (const method of methods.filter((m) => !allowed.includes(m))) {
      const response = await call(method, concrete(p), false);
      expect(response.status, `${method} ${p}`).toBe(405);
      const allow = (response.headers.get("allow") ?? "").split(/,\s*/).sort();
      expect(allow, `${method} ${p}`).toEqual([...allowed].sort());
    }
  });

  it.each([
    "/",
    "/v1",
    "/v1/",
    "/v1/categories/1",
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
