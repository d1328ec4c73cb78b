/**
 * The mutation summary (scripts/mutation.ts): Stryker's outcomes counted per file, and the rule
 * CI holds the committed summary to — every deciding file present, each at or above the
 * threshold, with at most 5 % of its mutants disabled as equivalent.
 */
import { describe, expect, it } from "vitest";
import type { FileScore, Killer, Scores } from "../../scripts/mutation.ts";
import {
  codeOf,
  decidingFiles,
  killersOf,
  scoreFiles,
  scoreProblems,
  sourceHashes,
  staleFiles,
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

describe("a summary holds for the code and the killing tests it was measured on", () => {
  const file = "lib/auth.ts";
  const killer = "test/lib/auth.test.ts";
  const other = "test/functions/keyScopes.test.ts";
  // 100 mutants that count (5 more disabled), 95 killed and 1 timed out: 96 %. Losing 6 kills
  // leaves exactly the bar, 90 %; losing 7, 89 %.
  const score: FileScore = {
    mutants: 105,
    killed: 95,
    survived: 4,
    noCoverage: 0,
    timedOut: 1,
    disabled: 5,
    setAside: 0,
    score: 96,
  };
  const now = sourceHashes([...decidingFiles, killer, other]);
  const record = (
    killers: Record<string, Killer>,
  ): Pick<Scores, "sources" | "killers" | "files"> => ({
    sources: Object.fromEntries(decidingFiles.map((f) => [f, now[f] ?? ""])),
    files: Object.fromEntries(decidingFiles.map((f) => [f, score])),
    killers: Object.fromEntries(decidingFiles.map((f) => [f, f === file ? killers : {}])),
  });
  const asNow = (test: string, kills: number): Killer => ({ kills, code: now[test] ?? "" });
  const changed = (kills: number): Killer => ({ kills, code: "0".repeat(64) });

  it("names no file when every deciding file and every killing test hashes as recorded", () => {
    const summary = record({ [killer]: asNow(killer, 60), [other]: asNow(other, 32) });
    expect(staleFiles(summary)).toEqual([]);
  });

  it("names a file whose killing tests changed enough to take it under the bar, and why", () => {
    const summary = record({ [killer]: changed(6), [other]: changed(1) });
    expect(staleFiles(summary)).toEqual([
      { file, why: `${killer}, ${other} changed, which made 7 of its kills` },
    ]);
  });

  it("names it when a killing test file is gone", () => {
    const summary = record({ "test/lib/gone.test.ts": { kills: 7, code: now[killer] ?? "" } });
    expect(staleFiles(summary).map((s) => s.file)).toEqual([file]);
  });

  it("keeps a file that stays at the bar even had every changed test lost all its kills", () => {
    const summary = record({ [killer]: changed(6), [other]: asNow(other, 80) });
    expect(staleFiles(summary)).toEqual([]);
  });

  it("names a file with no record of its killing tests, and one whose code changed", () => {
    const summary = record({});
    const killers = Object.fromEntries(Object.entries(summary.killers).filter(([f]) => f !== file));
    const sources = { ...summary.sources, "lib/scopes.ts": "0".repeat(64) };
    expect(staleFiles({ ...summary, killers, sources })).toEqual([
      { file, why: "no record of the tests that killed its mutants" }, // listed before scopes
      { file: "lib/scopes.ts", why: "its code" },
    ]);
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

  it("a comment inside an array or object literal is not code either", () => {
    const file = 'export const kinds = new Set([\n  "a",\n  "b",\n]);\nexport const o = { k: 1 };';
    const commented = [
      "export const kinds = new Set([",
      '  "a",',
      "  // Why b is here.",
      '  "b",',
      "]);",
      "export const o = {",
      "  /*! kept by a printer that keeps legal comments */",
      "  k: 1, // one",
      "};",
    ].join("\n");
    expect(codeOf(commented)).toBe(codeOf(file));
    expect(codeOf(commented.replace('"b"', '"c"'))).not.toBe(codeOf(file));
  });
});

describe("the killing tests are read from Stryker's report, one kill per mutant per test file", () => {
  it("counts per test file the mutants its tests killed, by the project's paths", () => {
    const report = {
      files: {
        [`${process.cwd()}/lib/auth.ts`]: {
          mutants: [
            { killedBy: ["1"] },
            { killedBy: ["1", "2"] }, // two tests of one file: one kill for it
            { killedBy: ["3"] },
            {}, // survived
          ],
        },
      },
      testFiles: {
        "test/lib/auth.test.ts": { tests: [{ id: "1" }, { id: "2" }] },
        "test/functions/keyScopes.test.ts": { tests: [{ id: "3" }] },
      },
    };
    const tests = { "test/lib/auth.test.ts": "a".repeat(64) };
    expect(killersOf(report, ["lib/auth.ts", "lib/scopes.ts"], tests)).toEqual({
      "lib/auth.ts": {
        "test/functions/keyScopes.test.ts": { kills: 1, code: "" },
        "test/lib/auth.test.ts": { kills: 2, code: "a".repeat(64) },
      },
      "lib/scopes.ts": {},
    });
  });
});
