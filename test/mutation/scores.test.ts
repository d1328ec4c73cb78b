/**
 * The committed mutation summary (test/mutation/scores.json): every deciding file recorded, each
 * at or above the bar. Whether the summary still describes the code is not this suite's question:
 * `npm test` never fails because a deciding file changed. CI answers it by running the mutants of
 * the files whose code, or whose killing tests, differ from the record enough to matter
 * (`npm run mutation -- --changed`, .ci/run), and the
 * weekly workflow re-records every file (.github/workflows/mutation.yml).
 */
import { describe, expect, it } from "vitest";
import { decidingFiles, readSummary, scoreProblems, threshold } from "../../scripts/mutation.ts";

const summary = readSummary();

describe("every file that decides an answer kills at least 90 % of its mutants", () => {
  it("names every deciding file, each at or above the threshold, at most 5 % disabled", () => {
    expect(summary?.threshold).toBe(threshold);
    expect(scoreProblems(summary?.files ?? {})).toEqual([]);
  });

  it("holds no file that is no longer a deciding file, the code each was measured on and its killing tests", () => {
    expect(Object.keys(summary?.files ?? {}).sort()).toEqual([...decidingFiles].sort());
    expect(Object.keys(summary?.sources ?? {}).sort()).toEqual([...decidingFiles].sort());
    expect(Object.keys(summary?.killers ?? {}).sort()).toEqual([...decidingFiles].sort());
  });

  it("names the commit it was last recorded on, its date and the run's wall time", () => {
    expect(summary?.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(Number.isNaN(Date.parse(summary?.date ?? ""))).toBe(false);
    expect(summary?.wallTimeSeconds).toBeGreaterThan(0);
  });
});
