/**
 * What bench/results.json must record (written by `npm run bench`, bench/report.ts): the import
 * target, and every request priced at its steady-state store units, never at a cold list's
 * whole-store read, with the cold units kept alongside.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { prices } from "../../bench/cost.ts";
import type { Results } from "../../bench/report.ts";
import { projectRoot } from "../../local/template.ts";

const results = JSON.parse(
  readFileSync(resolve(projectRoot, "bench/results.json"), "utf8"),
) as Results;

describe("bench/results.json records the import target", () => {
  it("has, per function, ours' import over the typical stack's at the worst size", () => {
    const names = results.targets.map((target) => target.name);
    expect(names).toEqual([
      "listCategories: import vs typical, worst size",
      "createCategory: import vs typical, worst size",
    ]);
  });
});

describe("bench/results.json prices each request at its steady-state store units", () => {
  it("records a cold and a steady-state figure for every workload", () => {
    const workloads = new Set(results.warm.map((row) => row.workload));
    expect(Object.keys(results.storeUnits).sort()).toEqual([...workloads].sort());
  });

  it("charges DynamoDB for the steady-state units of the row's workload", () => {
    for (const row of results.warm) {
      const { readUnits, writeUnits } = results.storeUnits[row.workload]?.steady ?? {};
      const dollars =
        1e6 *
        ((readUnits ?? NaN) * prices.dynamoReadUnit + (writeUnits ?? NaN) * prices.dynamoWriteUnit);
      // Recorded to a tenth of a cent (bench/cost.ts rounds): within half of that, inclusive.
      expect(
        Math.abs(row.costPerMillion.dynamo - dollars),
        `${String(row.memoryMb)} MB ${row.variant} ${row.workload}`,
      ).toBeLessThanOrEqual(0.0005 + 1e-9);
    }
  });

  it("keeps a list's cold read, the whole store, out of the steady state", () => {
    const lists = Object.entries(results.storeUnits).filter(([id]) => id.startsWith("list"));
    expect(lists.length).toBeGreaterThan(0);
    for (const [, units] of lists)
      expect(units.steady.readUnits).toBeLessThan(units.cold.readUnits);
  });
});
