/**
 * The service's CloudWatch metrics as the built bundles write them: each invocation's EMF
 * document on its own raw stdout line (beside the request log line, not inside it), in the
 * PetStore namespace, with the dimensions service, stage and function (and `code` on Errors),
 * as infra/template.yaml's dashboard and alarms read them. The bundles run as `npm run invoke`
 * and the local server run them (local/functionPool.ts), with the environment the template gives
 * (STAGE) and a fault proxy between them and the embedded store.
 */
import { describe, expect, it } from "vitest";
import { metricNames } from "../../lib/metrics.ts";
import { CategoryStore } from "../../lib/repositories/categories.ts";
import { declared, declaring, isEmfLine, total } from "../support/emf.ts";
import { loadEvent } from "./harness.ts";
import type { Invocation } from "./metricsRig.ts";
import { db, invoke, metric, proxy, tableName, useMetricsRig, withKey } from "./metricsRig.ts";

useMetricsRig();

/** The count of `name` in the one document of `invocation` that declares it (checked by metric). */
const counted = (invocation: Invocation, name: string, operation: string): number =>
  total(metric(invocation, name, operation), name);

describe("each invocation writes its metrics as raw EMF lines beside the one request log line", () => {
  it("a create: CategoriesCreated 1; the request log line is a separate, plain line", async () => {
    const created = await invoke("createCategory", loadEvent("create-ok.json"));
    expect(created.statusCode).toBe(201);
    expect(counted(created, metricNames.categoriesCreated, "createCategory")).toBe(1);
    const logLines = created.lines.filter((line) => !isEmfLine(line));
    expect(logLines).toHaveLength(1);
    expect(JSON.parse(logLines[0] ?? "")).toMatchObject({ status: 201 });
    expect(JSON.parse(logLines[0] ?? "")).not.toHaveProperty("_aws");
  });

  it("a replay: IdempotentReplays 1 and no CategoriesCreated", async () => {
    const event = withKey(loadEvent("create-ok.json"), `metrics-${String(Date.now())}`);
    const first = await invoke("createCategory", event);
    const replay = await invoke("createCategory", event);
    expect([first.statusCode, replay.statusCode]).toEqual([201, 201]);
    expect(declaring(first.lines, metricNames.idempotentReplays)).toEqual([]);
    expect(counted(replay, metricNames.idempotentReplays, "createCategory")).toBe(1);
    expect(declaring(replay.lines, metricNames.categoriesCreated)).toEqual([]);
  });

  it("a list: ListSize is the number of categories the answer carried", async () => {
    const store = new CategoryStore(db, tableName);
    for (const name of ["Ferrets", "Parrots"])
      await store.create({ name }, `seed-${name}`, Date.now() + 5_000);
    const listed = await invoke("listCategories", loadEvent("list-ok.json"));
    expect(listed.statusCode).toBe(200);
    const count = (JSON.parse(listed.body) as unknown[]).length;
    expect(count).toBeGreaterThanOrEqual(2);
    expect(counted(listed, metricNames.listSize, "listCategories")).toBe(count);
  });
});

describe("every error answer is counted once, by its code, with the code dimension", () => {
  it.each([
    ["createCategory", "create-no-key.json", 401, "unauthorized"],
    ["createCategory", "create-invalid.json", 400, "invalid_body"],
    ["routeFallback", "unknown-route.json", 404, "not_found"],
  ] as const)("%s on %s: Errors with code %s", async (operation, file, status, code) => {
    const answer = await invoke(operation, loadEvent(file));
    expect(answer.statusCode).toBe(status);
    const errors = metric(answer, metricNames.errors, operation);
    expect(errors).toMatchObject({ code, [metricNames.errors]: 1 });
    // The code stays on its own document: no other metric of the invocation carries it.
    const others = answer.documents.filter((d) => !declared(d).names.includes(metricNames.errors));
    for (const other of others) expect(other.code).toBeUndefined();
  });
});

describe("the store's retries and give-ups are counted", () => {
  it("two throttled store attempts: StoreRetries 2, and the answer is still 200", async () => {
    proxy.inject({ fault: "throttling", times: 2 });
    try {
      const listed = await invoke("listCategories", loadEvent("list-ok.json"));
      expect(listed.statusCode).toBe(200);
      expect(counted(listed, metricNames.storeRetries, "listCategories")).toBe(2);
      expect(declaring(listed.lines, metricNames.storeUnavailable)).toEqual([]);
    } finally {
      proxy.clear();
    }
  });

  it("a store that stays down: StoreUnavailable 1 and Errors service_unavailable on the 503", async () => {
    proxy.inject({ fault: "service_unavailable", times: Infinity });
    try {
      const answer = await invoke("listCategories", loadEvent("list-ok.json"));
      expect(answer.statusCode).toBe(503);
      const unavailable = metric(answer, metricNames.storeUnavailable, "listCategories");
      expect(total(unavailable, metricNames.storeUnavailable)).toBe(1);
      expect(total(unavailable, metricNames.storeRetries)).toBeGreaterThanOrEqual(1);
      expect(metric(answer, metricNames.errors, "listCategories")).toMatchObject({
        code: "service_unavailable",
      });
    } finally {
      proxy.clear();
    }
  });
});
