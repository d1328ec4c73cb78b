/** The hook's probes come from the routes: a new operation is checked without code of its own. */
import { describe, expect, it } from "vitest";
import { probesFor } from "../../../lib/deployHook/probes.ts";
import { routesOf } from "../../../local/template.ts";

const templateRoutes: Record<string, string> = Object.fromEntries(
  [...routesOf()].map(([routeKey, spec]) => [routeKey, spec.name]),
);

describe("every route a function of its own serves is probed without a key", () => {
  it("for the template's routes and for one more, its {params} filled in", () => {
    const routes: Record<string, string> = { ...templateRoutes, "GET /v1/things/{id}": "getThing" };
    const keyless = probesFor(routes).filter((probe) => !probe.withKey);
    expect(keyless.map(({ method, path }) => `${method} ${path}`).sort()).toEqual(
      Object.entries(routes)
        .filter(([routeKey, name]) => routeKey !== "$default" && name !== routes.$default)
        .map(([routeKey]) => routeKey.replace("{id}", "1"))
        .sort(),
    );
    expect(keyless.map((probe) => probe.check)).toContain(
      "GET /v1/things/{id} without a key answers 401 unauthorized",
    );
  });

  it("not the fallback's routes: they are not operations", () => {
    const probed = probesFor(templateRoutes).map(({ path }) => path);
    expect(probed).not.toContain("/v1/pets/1");
    expect(probed).not.toContain("/v1/store/orders");
  });

  it("a refused request must be 401 with the Error shape", () => {
    const [probe] = probesFor({ "GET /v1/things": "getThing" }).filter((p) => !p.withKey);
    const json = { "content-type": "application/json" };
    const error = { code: "unauthorized", message: "no key", status: 401 };
    expect(() => probe?.verify({ statusCode: 401, headers: json, body: error })).not.toThrow();
    expect(() => probe?.verify({ statusCode: 200, headers: json, body: [] })).toThrow(/401/);
  });
});
