/**
 * The load test inside `npm test` (it takes ~10 s): 5,000 creates at concurrency 50 against a
 * fresh local server, with two list loops alongside; zero errors, zero lost, zero duplicate ids,
 * every list holding every 201 that preceded it, one log line per request. `npm run load` runs the
 * same code from the command line and prints the figures (`--quick`: 500 creates).
 */
import { describe, expect, it } from "vitest";
import { formatReport, runLoad } from "../../scripts/load.ts";

const creates = 5_000;

describe("under load (5,000 creates at concurrency 50, lists alongside): zero errors, zero lost, zero duplicate ids", () => {
  it(`${creates} creates at concurrency 50 with 2 list loops`, { timeout: 300_000 }, async () => {
    const report = await runLoad({
      creates,
      concurrency: 50,
      listConcurrency: 2,
      listPauseMs: 100,
      build: false,
    });
    console.info(`[reliability] load:\n${formatReport(report)}`);
    expect(report).toMatchObject({
      errors: {},
      lost: 0,
      duplicateIds: 0,
      unexpected: 0,
      staleLists: 0,
      malformedLists: 0,
      finalListCount: creates,
    });
    expect(report.createLatencyMs.count).toBe(creates);
    expect(report.lists).toBeGreaterThan(0);
    expect(report.logLines).toMatchObject({ count: report.requests + 1, non2xx: 0 });
    expect(report.ok).toBe(true);
  });
});
