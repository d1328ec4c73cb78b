/**
 * lib/metrics.ts writes CloudWatch Embedded Metric Format documents: each one a raw JSON line on
 * stdout (not wrapped by a logger), with `_aws.CloudWatchMetrics` declaring the namespace, the
 * dimension set and the metrics, and the values at the top level where CloudWatch reads them.
 */
import type { MiddlewareObj } from "@middy/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMetrics, metricNames, metricsNamespace } from "../../lib/metrics.ts";
import type { Declared, EmfDocument } from "../support/emf.ts";
import { declared as declaredBy, parseEmf } from "../support/emf.ts";

let lines: string[] = [];
const write = process.stdout.write.bind(process.stdout);

beforeEach(() => {
  lines = [];
  process.stdout.write = (chunk: string | Uint8Array) => {
    lines.push(...String(chunk).split("\n").filter(Boolean));
    return true;
  };
});
afterEach(() => {
  process.stdout.write = write;
});

function documents(): EmfDocument[] {
  return lines.map(parseEmf);
}

function declared(document: EmfDocument): Declared {
  const found = declaredBy(document);
  expect(found.namespace).toBe(metricsNamespace);
  return found;
}

describe("one invocation's metrics are one EMF line on stdout", () => {
  it("flush writes the recorded metrics with service, stage and function dimensions", () => {
    const metrics = createMetrics({ function: "createCategory", stage: "production" });
    for (const name of ["categoriesCreated", "idempotentReplays", "storeRetries"] as const) {
      metrics.count(name);
    }
    metrics.count("storeRetries");
    metrics.count("storeUnavailable");
    metrics.flush();

    expect(lines).toHaveLength(1);
    expect(lines[0]?.startsWith('{"_aws":')).toBe(true);
    const [document] = documents();
    if (!document) throw new Error("no EMF document");
    const { names, dimensions } = declared(document);
    expect(names.sort()).toEqual(
      [
        metricNames.categoriesCreated,
        metricNames.idempotentReplays,
        metricNames.storeRetries,
        metricNames.storeUnavailable,
      ].sort(),
    );
    expect(dimensions).toEqual(["function", "service", "stage"]);
    expect(document).toMatchObject({
      service: "petstore",
      stage: "production",
      function: "createCategory",
      [metricNames.categoriesCreated]: 1,
      [metricNames.storeRetries]: [1, 1],
    });
    expect(Math.abs(document._aws.Timestamp - Date.now())).toBeLessThan(60_000);
  });

  it("listSize records the count of categories answered", () => {
    const metrics = createMetrics({ function: "listCategories", stage: "staging" });
    metrics.count("listSize", 42);
    metrics.flush();
    expect(documents()[0]).toMatchObject({ [metricNames.listSize]: 42, stage: "staging" });
  });

  it("writes nothing, on stdout or stderr, when the invocation recorded nothing", () => {
    const metrics = createMetrics({ function: "routeFallback", stage: "staging" });
    metrics.flush();
    expect(lines).toEqual([]);
  });

  it("a flushed metric is not written again by the next invocation", () => {
    const metrics = createMetrics({ function: "createCategory", stage: "staging" });
    metrics.count("categoriesCreated");
    metrics.flush();
    metrics.flush();
    expect(lines).toHaveLength(1);
  });
});

describe("errors are counted by code, in their own document", () => {
  it("error(code) adds the code dimension to that metric only", () => {
    const metrics = createMetrics({ function: "createCategory", stage: "production" });
    metrics.count("categoriesCreated");
    metrics.error("service_unavailable");
    metrics.flush();

    const [error, invocation] = documents();
    if (!error || !invocation) throw new Error(`expected two documents, got ${lines.length}`);
    expect(declared(error)).toEqual({
      namespace: metricsNamespace,
      names: [metricNames.errors],
      dimensions: ["code", "function", "service", "stage"],
    });
    expect(error).toMatchObject({ code: "service_unavailable", [metricNames.errors]: 1 });
    expect(declared(invocation).dimensions).toEqual(["function", "service", "stage"]);
    expect(invocation.code).toBeUndefined();
  });
});

describe("the middy middleware flushes per invocation", () => {
  type Request = Parameters<NonNullable<MiddlewareObj["after"]>>[0];
  const request = (): Request =>
    ({ event: {}, context: {}, response: undefined, error: undefined, internal: {} }) as never;

  const listing = (initializationType: string) =>
    createMetrics({ function: "listCategories", stage: "staging", initializationType });

  it("after: writes the cold start once and the invocation's metrics each time", async () => {
    const metrics = listing("on-demand");
    const middleware = metrics.middleware();
    for (const size of [3, 4]) {
      await middleware.before?.(request());
      metrics.count("listSize", size);
      await middleware.after?.(request());
    }
    const names = documents().map((document) => declared(document).names.join());
    expect(names).toEqual([metricNames.coldStart, metricNames.listSize, metricNames.listSize]);
  });

  it("counts no cold start where no caller waited for it (provisioned concurrency)", async () => {
    const metrics = listing("provisioned-concurrency");
    await metrics.middleware().before?.(request());
    expect(lines).toEqual([]);
  });

  it("onError: a failed invocation's metrics are written too", async () => {
    const metrics = createMetrics({ function: "createCategory", stage: "staging" });
    const middleware = metrics.middleware();
    metrics.count("storeUnavailable");
    await middleware.onError?.(request());
    expect(documents().some((d) => declared(d).names.includes("StoreUnavailable"))).toBe(true);
  });
});

describe("every metric line names its request, as the request log line does", () => {
  it("carries API Gateway's request id as a property, never as a dimension", async () => {
    const metrics = createMetrics({ function: "createCategory", stage: "staging" });
    const middleware = metrics.middleware();
    const request = { event: { requestContext: { requestId: "Ab3xQhFqDoEEJcw=" } } } as never;
    await middleware.before?.(request);
    metrics.error("unauthorized");
    metrics.count("categoriesCreated");
    await middleware.after?.(request);
    expect(documents()).toHaveLength(2);
    for (const document of documents()) {
      expect(document.requestId).toBe("Ab3xQhFqDoEEJcw=");
      expect(declared(document).dimensions).not.toContain("requestId");
    }
  });
});
