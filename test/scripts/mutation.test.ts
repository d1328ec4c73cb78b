/**
 * The mutation summary (scripts/mutation.ts): Stryker's outcomes counted per file, and the rule
 * CI holds the committed summary to — every deciding file present, each at or above the
 * threshold, with at most 5 % of its mutants disabled as equivalent.
 */
import { describe, expect, it } from "vitest";
import type { FileScore } from "../../scripts/mutation.ts";
import {
  changedSince,
  codeOf,
  decidingFiles,
  scoreFiles,
  scoreProblems,
  sourceHashes,
  threshold,
} from "../../scripts/mutation.ts";

const outcome = (fileName: string, status: string) => ({ fileName, status });

describe("a file's score is Stryker's: killed and timed out over every mutant not disabled", () => {
  it("counts each outcome and leaves disabled (Ignored) mutants out of the score", () => {
    const file = "lib/scopes.ts";
    const outcomes = [
      ...Array.from({ length: 16 }, () => outcome(file, "Killed")),
      outcome(file, "Timeout"),
      outcome(file, "Survived"),
      outcome(file, "NoCoverage"),
      outcome(file, "Ignored"),
      outcome("lib/auth.ts", "Survived"),
    ];
    expect(scoreFiles(outcomes, [file])).toEqual({
      [file]: {
        mutants: 20,
        killed: 16,
        survived: 1,
        noCoverage: 1,
        timedOut: 1,
        disabled: 1,
        setAside: 0,
        score: 89.4, // 17 / 19, rounded down: a file just under the bar is not shown at it
      },
    });
  });

  it("leaves out the mutants --ignore-static set aside: they are not disabled in the code", () => {
    const file = "lib/scopes.ts";
    const setAside = {
      fileName: file,
      status: "Ignored",
      statusReason: 'Static mutant (and "ignoreStatic" was enabled)',
    };
    expect(scoreFiles([outcome(file, "Killed"), setAside], [file])[file]).toMatchObject({
      mutants: 1,
      disabled: 0,
      setAside: 1,
      score: 100,
    });
  });

  it("names files by their path in the project, whatever form Stryker reports", () => {
    const scores = scoreFiles([outcome(`${process.cwd()}/lib/auth.ts`, "Killed")], ["lib/auth.ts"]);
    expect(scores["lib/auth.ts"]?.killed).toBe(1);
  });
});

describe("CI refuses a summary missing a deciding file, below the bar or with too much disabled", () => {
  const passing: FileScore = {
    mutants: 100,
    killed: 90,
    survived: 5,
    noCoverage: 0,
    timedOut: 0,
    disabled: 5,
    setAside: 0,
    score: threshold,
  };
  const all = Object.fromEntries(decidingFiles.map((file) => [file, passing]));

  it("accepts every deciding file at the threshold with 5 % disabled", () => {
    expect(scoreProblems(all)).toEqual([]);
  });

  it("names a missing file", () => {
    const rest = Object.fromEntries(Object.entries(all).filter(([file]) => file !== "lib/auth.ts"));
    expect(scoreProblems(rest)).toEqual(["lib/auth.ts: not in the summary"]);
  });

  it("names a file below the threshold", () => {
    const low = { ...all, "lib/auth.ts": { ...passing, score: threshold - 0.1 } };
    expect(scoreProblems(low)).toEqual([`lib/auth.ts: ${threshold - 0.1} % < ${threshold} %`]);
  });

  it("names a file with more than 5 % of its mutants disabled", () => {
    const disabled = { ...all, "lib/auth.ts": { ...passing, disabled: 6 } };
    expect(scoreProblems(disabled)).toEqual(["lib/auth.ts: 6 of 100 mutants disabled (> 5 %)"]);
  });
});

describe("a summary holds for the code it was measured on, whatever the git history", () => {
  it("names no file when every deciding file hashes as recorded", () => {
    expect(changedSince(sourceHashes(decidingFiles))).toEqual([]);
  });

  it("a comment or the layout is not code; a statement, a string or a Stryker directive is", () => {
    const file = [
      "// A comment.",
      "export function f(a: number): number {",
      "  // Stryker disable next-line ArithmeticOperator: why",
      "  return a + 1;",
      "}",
    ].join("\n");
    const same = [
      "/** Another comment, longer, */",
      "export function f(a: number): number {",
      "  // Stryker disable next-line ArithmeticOperator: why",
      "  return a+1;",
      "}",
    ].join("\n");
    expect(codeOf(same)).toBe(codeOf(file));
    for (const changed of [
      file.replace("a + 1", "a + 2"),
      file.replace("// A comment.", 'const x = "a";'),
      file.replace("ArithmeticOperator", "EqualityOperator"),
      file
        .replace("  return a + 1;", "  return a\n    + 1;")
        .replace("// Stryker", "\n  // Stryker"),
    ]) {
      expect(codeOf(changed)).not.toBe(codeOf(file));
    }
  });

  it("names each deciding file whose code differs from the run's, or that it lacks", () => {
    const sources = new Map(Object.entries(sourceHashes(decidingFiles)));
    sources.delete("lib/auth.ts");
    sources.set("lib/scopes.ts", "0".repeat(64));
    expect(changedSince(Object.fromEntries(sources))).toEqual(["lib/auth.ts", "lib/scopes.ts"]);
  });
});
