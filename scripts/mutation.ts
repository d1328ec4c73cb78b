/**
 * `npm run mutation [-- <file>… | --changed] [--record]`: StrykerJS as its own config
 * (stryker.config.json: the deciding files, the runner, reports, incremental runs) sets it up,
 * plus what Stryker cannot do. `--changed` chooses the deciding files whose score the summary
 * test/mutation/scores.json may no longer tell (`staleFiles`): their code (`codeOf`: no comments
 * or layout) differs from what was measured, or test files that killed their mutants changed
 * enough that the file could have fallen under the bar. A change that touches neither costs CI
 * nothing. `--record` merges the run's files (outcomes, score, SHA-256 of the code mutated, the
 * test files that killed its mutants) into that summary. Every file of the run is held
 * to the bars (`scoreProblems`: the threshold per file, at most 5 % disabled); exit 1 otherwise.
 * `npm test` never runs mutants (test/mutation/scores.test.ts checks the summary's bars only);
 * the weekly workflow re-records every file with --force (.github/workflows/mutation.yml).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { transformSync } from "esbuild";
import { projectRoot } from "../local/template.ts";
import { buildFunctions } from "./build.ts";
import { answersOf, commandLine, parseCommandLine, UsageError } from "./lib/args.ts";

/** Stryker's own config: the parts of it the gate reads. */
const strykerConfig = JSON.parse(
  readFileSync(resolve(projectRoot, "stryker.config.json"), "utf8"),
) as {
  readonly mutate: string[];
  readonly thresholds: { readonly break: number };
  readonly jsonReporter: { readonly fileName: string };
};

/** The files of lib/ that decide what is stored and what is answered: the config's `mutate`. */
export const decidingFiles: readonly string[] = strykerConfig.mutate;

/** The least share of a file's mutants its tests must kill (Stryker's break threshold, %). */
export const threshold = strykerConfig.thresholds.break;
/** The most share of a file's mutants that may be disabled as equivalent, in its code (%). */
export const disabledLimit = 5;

export const scoresFile = resolve(projectRoot, "test/mutation/scores.json");
const reportDir = dirname(strykerConfig.jsonReporter.fileName);

export interface FileScore {
  readonly mutants: number;
  readonly killed: number;
  readonly survived: number;
  readonly noCoverage: number;
  readonly timedOut: number;
  /** Disabled where they stand as equivalent (`// Stryker disable next-line …: <why>`). */
  readonly disabled: number;
  /** Static mutants --ignore-static set aside (not run, not counted). */
  readonly setAside: number;
  /** (killed + timed out) / (mutants − disabled), in %, to one decimal. */
  readonly score: number;
}

export interface Scores {
  /** The last recorded run's (it may have recorded only some files). */
  readonly commit: string;
  readonly date: string;
  /** The last run's: results it reused from the run before (incremental) took no time in it. */
  readonly wallTimeSeconds: number;
  readonly threshold: number;
  /** Whether the run set static mutants aside (--ignore-static): see each file's setAside. */
  readonly ignoreStatic: boolean;
  readonly files: Readonly<Record<string, FileScore>>;
  /** Per deciding file, the SHA-256 of the code the run mutated: CI compares it with the code. */
  readonly sources: Readonly<Record<string, string>>;
  /** Per deciding file, the test files whose tests killed its mutants (`killersOf`). */
  readonly killers: Readonly<Record<string, Readonly<Record<string, Killer>>>>;
}

/** A test file that killed some of a deciding file's mutants in the recorded run. */
export interface Killer {
  /** How many of the file's mutants a test of it killed (Stryker names one test per kill). */
  readonly kills: number;
  /** The SHA-256 of the test file's code (`codeOf`) in that run. */
  readonly code: string;
}

/**
 * What a file's mutants are made from: its code as esbuild prints it (no comments, no layout, no
 * types, none of which Stryker mutates), and each Stryker directive comment with the line after
 * it (they decide which mutants are disabled). So editing a comment or reformatting costs CI no
 * mutants; changing code, or a directive, does. Printed without whitespace: esbuild's readable
 * form keeps a comment written inside an array or object literal.
 */
export function codeOf(source: string): string {
  const lines = source.split("\n");
  const directives = lines.flatMap((line, i) =>
    /Stryker (disable|restore)/.test(line)
      ? [`${line.trim()} -> ${(lines[i + 1] ?? "").replace(/\s+/g, "")}`]
      : [],
  );
  const { code } = transformSync(source, {
    loader: "ts",
    format: "esm",
    minifyWhitespace: true,
    legalComments: "none",
  });
  return [code, ...directives].join("\n");
}

/** The SHA-256 (hex) of each file's code (`codeOf`) as it is in the project now; none if gone. */
export const sourceHashes = (files: readonly string[]): Record<string, string> =>
  Object.fromEntries(
    files.flatMap((file) => {
      const path = resolve(projectRoot, file);
      if (!existsSync(path)) return [];
      const code = codeOf(readFileSync(path, "utf8"));
      return [[file, createHash("sha256").update(code).digest("hex")]];
    }),
  );

/** The parts of Stryker's JSON report (mutation-testing-report-schema) the summary reads. */
export interface Report {
  readonly files: Readonly<
    Record<string, { readonly mutants: readonly { readonly killedBy?: readonly string[] }[] }>
  >;
  readonly testFiles?: Readonly<Record<string, { readonly tests: readonly { id: string }[] }>>;
}

/** A path as the project names it, whatever form a report gives. */
const inProject = (path: string): string => relative(projectRoot, resolve(projectRoot, path));

/**
 * Per deciding file of a run, the test files that killed its mutants, with how many each killed
 * and the code (`tests`: SHA-256 per test file, taken before the run) the kills were made with.
 */
export function killersOf(
  report: Report,
  files: readonly string[],
  tests: Readonly<Record<string, string>>,
): Record<string, Record<string, Killer>> {
  const fileOfTest = new Map<string, string>();
  for (const [path, { tests: cases }] of Object.entries(report.testFiles ?? {})) {
    for (const { id } of cases) fileOfTest.set(id, inProject(path));
  }
  const byFile = new Map(Object.entries(report.files).map(([path, f]) => [inProject(path), f]));
  return Object.fromEntries(
    files.map((file) => {
      const kills = new Map<string, number>();
      for (const mutant of byFile.get(file)?.mutants ?? []) {
        const by = new Set((mutant.killedBy ?? []).map((id) => fileOfTest.get(id) ?? id));
        for (const test of by) kills.set(test, (kills.get(test) ?? 0) + 1);
      }
      const entries = [...kills].sort(([a], [b]) => a.localeCompare(b));
      return [
        file,
        Object.fromEntries(entries.map(([t, n]) => [t, { kills: n, code: tests[t] ?? "" }])),
      ];
    }),
  );
}

/** A deciding file whose recorded score may no longer hold, and why. */
export interface Stale {
  readonly file: string;
  readonly why: string;
}

/**
 * The deciding files whose recorded score may no longer hold (docs/testing.md, "CI"): their code
 * changed, or killing test files changed or went that made enough kills to take them under the
 * bar. By content, not by git history: CI's clone may be shallow or have none.
 */
export function staleFiles(summary: Pick<Scores, "sources" | "killers" | "files">): Stale[] {
  const code = sourceHashes(decidingFiles);
  const killerFiles = Object.values(summary.killers).flatMap((k) => Object.keys(k));
  const tests = sourceHashes([...new Set(killerFiles)]);
  return decidingFiles.flatMap((file): Stale[] => {
    if (summary.sources[file] !== code[file]) return [{ file, why: "its code" }];
    const killers = summary.killers[file];
    const score = summary.files[file];
    if (killers === undefined || score === undefined) {
      return [{ file, why: "no record of the tests that killed its mutants" }];
    }
    const changed = Object.entries(killers).filter(([test, k]) => tests[test] !== k.code);
    const lost = changed.reduce((sum, [, k]) => sum + k.kills, 0);
    const valid = score.mutants - score.disabled;
    const floor = valid === 0 ? 100 : (100 * (score.killed + score.timedOut - lost)) / valid;
    if (floor >= threshold) return [];
    const names = changed.map(([test]) => test).join(", ");
    return [{ file, why: `${names} changed, which made ${lost} of its kills` }];
  });
}

/** The committed summary, if there is one. */
export function readSummary(): Scores | undefined {
  return existsSync(scoresFile)
    ? (JSON.parse(readFileSync(scoresFile, "utf8")) as Scores)
    : undefined;
}

/** The deciding files' entries of a record, in the list's order (a file no longer listed goes). */
const inListOrder = <T>(byFile: Readonly<Record<string, T>>): Record<string, T> =>
  Object.fromEntries(
    decidingFiles.flatMap((file) => (byFile[file] === undefined ? [] : [[file, byFile[file]]])),
  );

interface MutantOutcome {
  readonly fileName: string;
  readonly status: string;
  readonly statusReason?: string | undefined;
}

/** Set aside by --ignore-static, not disabled in the code: counted as neither. */
const setAsideStatic = (m: MutantOutcome): boolean =>
  m.status === "Ignored" && /^Static mutant/.test(m.statusReason ?? "");

/** Per file, the counts of Stryker's outcomes. Errors (compile, runtime) count as no mutant. */
export function scoreFiles(
  outcomes: readonly MutantOutcome[],
  files: readonly string[],
): Record<string, FileScore> {
  const scores: Record<string, FileScore> = {};
  for (const file of files) {
    const all = outcomes.filter((m) => inProject(m.fileName) === file);
    const mine = all.filter((m) => !setAsideStatic(m));
    const count = (status: string): number => mine.filter((m) => m.status === status).length;
    const [killed, survived, noCoverage, timedOut, disabled] = [
      "Killed",
      "Survived",
      "NoCoverage",
      "Timeout",
      "Ignored",
    ].map(count) as [number, number, number, number, number];
    const valid = killed + survived + noCoverage + timedOut;
    const score = valid === 0 ? 100 : Math.floor((1000 * (killed + timedOut)) / valid) / 10;
    scores[file] = {
      mutants: valid + disabled,
      killed,
      survived,
      noCoverage,
      timedOut,
      disabled,
      setAside: all.length - mine.length,
      score,
    };
  }
  return scores;
}

/** The problems a summary has: a deciding file missing, below the threshold, or too much disabled. */
export function scoreProblems(files: Readonly<Record<string, FileScore>>): string[] {
  const problems: string[] = [];
  for (const file of decidingFiles) {
    const score = files[file];
    if (score === undefined) problems.push(`${file}: not in the summary`);
    else {
      if (score.score < threshold) problems.push(`${file}: ${score.score} % < ${threshold} %`);
      if (score.disabled * 100 > score.mutants * disabledLimit) {
        problems.push(
          `${file}: ${score.disabled} of ${score.mutants} mutants disabled (> ${disabledLimit} %)`,
        );
      }
    }
  }
  return problems;
}

/** The project's test files (`test/**\/*.test.ts`), as the project names them. */
const testFiles = (): string[] =>
  readdirSync(resolve(projectRoot, "test"), { recursive: true, encoding: "utf8" })
    .filter((path) => path.endsWith(".test.ts"))
    .map((path) => `test/${path.split(sep).join("/")}`);

/** The JSON report the run just wrote (stryker.config.json, `jsonReporter`). */
const readReport = (): Report =>
  JSON.parse(
    readFileSync(resolve(projectRoot, strykerConfig.jsonReporter.fileName), "utf8"),
  ) as Report;

const usage = `usage: npm run mutation [-- <lib file>… | --changed] [--record] [--concurrency <n>]

Mutation testing (StrykerJS) over the files of lib/ that decide an answer, or the ones named.
Reports: ${reportDir}/ (HTML and JSON, outside git).
  --changed         only the deciding files whose code differs from the recorded summary's, or
                    whose killing tests changed enough to take them under the bar (what CI
                    runs; none: it says so and exits 0 at once)
  --record          write the run's files into test/mutation/scores.json, keeping the others
                    (with --ignore-static it says so, and how many it set aside per file)
  --force           test every mutant (otherwise results of unchanged code and tests are
                    reused from the last run in ${reportDir}/, --record included)
  --ignore-static   skip the mutants in code that runs as a module loads or a suite sets up
                    (each is run against every test): a quick look while writing tests
  --concurrency n   test workers (default: the machine's cores)`;

function readRun(argv: string[]) {
  const parsed = parseCommandLine({
    args: argv,
    allowPositionals: true,
    options: {
      record: { type: "boolean" },
      changed: { type: "boolean" },
      force: { type: "boolean" },
      "ignore-static": { type: "boolean" },
      concurrency: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (parsed.values.help === true) return "help";
  for (const file of parsed.positionals) {
    if (!decidingFiles.includes(file)) {
      throw new UsageError(
        `${file} is not a deciding file (the list: stryker.config.json, mutate)`,
      );
    }
  }
  if (parsed.values.changed === true && parsed.positionals.length > 0) {
    throw new UsageError("--changed chooses the files itself (name none)");
  }
  const concurrency = parsed.values.concurrency;
  if (concurrency !== undefined && !/^[1-9]\d*$/.test(concurrency)) {
    throw new UsageError(`--concurrency needs a whole number, not "${concurrency}"`);
  }
  return parsed;
}

async function main(): Promise<number> {
  const parsed = commandLine(() => readRun(process.argv.slice(2)), answersOf("mutation", usage));
  if (typeof parsed === "number") return parsed;
  const recorded = readSummary();
  const stale =
    parsed.values.changed === true
      ? staleFiles(recorded ?? { sources: {}, killers: {}, files: {} })
      : undefined;
  const files =
    stale !== undefined
      ? stale.map(({ file }) => file)
      : parsed.positionals.length > 0
        ? parsed.positionals
        : decidingFiles;
  if (files.length === 0) {
    process.stdout.write(
      "mutation: no deciding file's code changed, nor tests that could take one under the bar\n",
    );
    return 0;
  }
  for (const { file, why } of stale ?? []) {
    process.stdout.write(`mutation: ${file} changed since the record: ${why}\n`);
  }
  // A few in-process tests read the built bundles (dist/), which a fresh clone does not have.
  await buildFunctions();
  const { Stryker } = await import("@stryker-mutator/core");
  const sources = sourceHashes(files); // the code this run reads, and the tests it runs
  const tests = sourceHashes(testFiles());
  if (parsed.values["ignore-static"] === true) process.env.PETSTORE_MUTATION_ISOLATE = "0";
  const started = performance.now();
  // Everything else is Stryker's own config (stryker.config.json).
  const outcomes = await new Stryker({
    mutate: [...files],
    ...(parsed.values.concurrency === undefined
      ? {}
      : { concurrency: Number(parsed.values.concurrency) }),
    force: parsed.values.force === true,
    ignoreStatic: parsed.values["ignore-static"] === true,
  }).runMutationTest();
  const wallTimeSeconds = Math.round((performance.now() - started) / 1000);
  const scores = scoreFiles(outcomes, files);
  for (const [file, s] of Object.entries(scores)) {
    process.stdout.write(
      `${s.score.toFixed(1).padStart(5)} %  ${file}  (${s.killed} killed, ${s.timedOut} timed out, ${s.survived} survived, ${s.noCoverage} no coverage, ${s.disabled} disabled)\n`,
    );
  }
  process.stdout.write(`mutation: ${wallTimeSeconds} s; reports in ${reportDir}/\n`);
  const problems = scoreProblems(scores).filter((p) => files.some((f) => p.startsWith(`${f}:`)));
  if (parsed.values.record === true) {
    const commit = execFileSync("git", ["rev-parse", "HEAD"], {
      cwd: projectRoot,
      encoding: "utf8",
    }).trim();
    const summary: Scores = {
      commit,
      date: new Date().toISOString(),
      wallTimeSeconds,
      threshold,
      ignoreStatic: parsed.values["ignore-static"] === true,
      files: inListOrder({ ...recorded?.files, ...scores }),
      sources: inListOrder({ ...recorded?.sources, ...sources }),
      killers: inListOrder({ ...recorded?.killers, ...killersOf(readReport(), files, tests) }),
    };
    mkdirSync(dirname(scoresFile), { recursive: true });
    writeFileSync(scoresFile, `${JSON.stringify(summary, null, 2)}\n`);
    process.stdout.write(`mutation: recorded in ${relative(projectRoot, scoresFile)}\n`);
  }
  for (const problem of problems) process.stderr.write(`mutation: ${problem}\n`);
  return problems.length === 0 ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  if (!existsSync(resolve(projectRoot, "node_modules/@stryker-mutator/core"))) {
    process.stderr.write("mutation: StrykerJS is not installed; run npm ci\n");
    process.exit(1);
  }
  process.exitCode = await main();
}
