/**
 * The load test inside `npm test` (it takes ~10 s): 5,000 creates at concurrency 50 against a
 * fresh local server, with two list loops alongside; zero errors, zero lost, zero duplicate ids,
 * every list holding every 201 that preceded it, one log line per request. `npm run load` runs the
 * same code from the command line and prints the figures (`--quick`: 500 creates); its other
 * scenario, abuse, is CI's (.ci/run) and docs/rate-limits.md's.
 */
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { generateKey } from "../../lib/keyFormat.ts";
import { projectRoot } from "../../local/template.ts";
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
    const summary = formatReport(report);
    console.info(`[reliability] load:\n${summary}`);
    // A summary a person reads: short lines, no JSON, the verdict last.
    for (const line of summary.split("\n")) expect(line.length, line).toBeLessThanOrEqual(100);
    expect(summary).not.toMatch(/[{}]/);
    expect(summary).toMatch(/\n {2}lost {13}0 of 5000 creates\n/);
    expect(summary.split("\n").at(-1)).toBe(
      "PASS: nothing lost, duplicated or listed out of order, no error",
    );
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

function load(args: string[], env: Record<string, string> = {}, input = "") {
  const run = spawnSync(process.execPath, [resolve(projectRoot, "scripts/load.ts"), ...args], {
    encoding: "utf8",
    input,
    env: { ...process.env, PETSTORE_API_KEY: "", ...env },
  });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

describe("npm run load's command line: --help, each scenario's own options, and the API key never on argv", () => {
  it("--help prints the usage and exits 0", () => {
    const run = load(["--help"]);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^usage: npm run load -- /);
    expect(run.out).toContain("PETSTORE_API_KEY");
  });

  it("--api-key is refused in one line that names PETSTORE_API_KEY, without echoing the key", () => {
    const run = load(["--base-url", "http://127.0.0.1:9/v1", "--api-key", "petstore_secret"]);
    expect(run.code).toBe(2);
    expect(run.err.split("\n")[0]).toContain("PETSTORE_API_KEY");
    expect(run.err).not.toContain("petstore_secret");
  });

  it("--base-url without a key in PETSTORE_API_KEY or on stdin is a usage error", () => {
    const run = load(["--base-url", "http://127.0.0.1:9/v1"]);
    expect(run.code).toBe(2);
    expect(run.err.trim()).toBe(
      "load: --base-url needs an API key: set PETSTORE_API_KEY or pipe it on stdin",
    );
  });

  it("an option of the other scenario, an unknown scenario or --store with --base-url: one line, exit 2", () => {
    for (const [args, message] of [
      [["--scenario", "abuse", "--creates", "5"], "--creates belongs to --scenario creates"],
      [["--seconds", "5"], "--seconds belongs to --scenario abuse"],
      [["--scenario", "flood"], '--scenario must be creates or abuse, got "flood"'],
      [["--store", "dynalite", "--base-url", "http://127.0.0.1:9/v1"], "--base-url has none"],
      [["--scenario", "abuse", "--seconds", "0"], "--seconds must be a whole number, at least 1"],
      [["--base-url", "notaurl"], "--base-url must be the API's base address"],
      [["--base-url", "http://127.0.0.1:9/"], "--base-url must be the API's base address"],
    ] as const) {
      const run = load([...args]);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.out).toBe("");
      expect(run.err.trim().split("\n")).toHaveLength(1);
      expect(run.err).toContain(message);
    }
  });

  it("a production key is refused before any request, without showing it", () => {
    const key = generateKey("prod");
    const run = load(["--base-url", "http://127.0.0.1:9/v1", "--quick"], {}, `${key}\n`);
    expect(run.code).toBe(2);
    expect(run.err.trim()).toMatch(/^load: that is a production key/);
    expect(run.err + run.out).not.toContain(key);
  });

  it("an unreachable target gets one line, not a stack trace, and exit 4 (no check ran)", () => {
    const run = load(["--base-url", "http://127.0.0.1:9/v1", "--quick"], {}, "petstore_k\n");
    expect(run.code).toBe(4);
    expect(run.err.trim().split("\n")).toHaveLength(1);
    expect(run.err).toContain("could not be loaded");
    expect(run.err).not.toContain("petstore_k");
  });
});
