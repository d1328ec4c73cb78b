/**
 * CI's hold on mutation testing. CI does not run the mutants (a full run takes about 2 h on two
 * cores; the weekly workflow runs them, .github/workflows/mutation.yml): it checks the committed
 * summary of the last recorded run (`npm run mutation -- --record`, test/mutation/scores.json).
 * A summary measured on other code than the deciding files' committed code says nothing about
 * them, so a change to one of them needs a new record (which reuses the last run's results for
 * what did not change).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Scores } from "../../scripts/mutation.ts";
import {
  changedSince,
  decidingFiles,
  scoreProblems,
  scoresFile,
  threshold,
} from "../../scripts/mutation.ts";

const summary = JSON.parse(readFileSync(scoresFile, "utf8")) as Scores;

describe("every file that decides an answer kills at least 90 % of its mutants", () => {
  it("names every deciding file, each at or above the threshold, at most 5 % disabled", () => {
    expect(summary.threshold).toBe(threshold);
    expect(scoreProblems(summary.files)).toEqual([]);
  });

  it("holds no file that is no longer a deciding file (the list moved: record again)", () => {
    expect(Object.keys(summary.files).sort()).toEqual([...decidingFiles].sort());
  });
});

// By content (each file's SHA-256 as the run read it), not by git history: CI's clone may be
// shallow or carry none.
describe("the summary was measured on the deciding files as they are", () => {
  it("names the commit it was run on, its date and the run's wall time", () => {
    expect(summary.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(Number.isNaN(Date.parse(summary.date))).toBe(false);
    expect(summary.wallTimeSeconds).toBeGreaterThan(0);
  });

  it("no deciding file changed since that run (else: npm run mutation -- --record)", () => {
    expect(changedSince(summary.sources)).toEqual([]);
  });
});
