import { statSync } from "node:fs";
import { defineConfig } from "vitest/config";
import { shared } from "./vitest.config.ts";
import type { TestSpecification } from "vitest/node";
import { BaseSequencer } from "vitest/node";

/**
 * Quick files first. Stryker runs one file at a time and stops at the first failing test; a
 * mutant in code that runs while a module loads or a suite sets up ("static") is run against
 * every test, and is usually killed by a quick unit test, so those run before the slow suites.
 * Order: the last run's duration (vitest's cache), else the file's size.
 */
class QuickFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cost = (spec: TestSpecification): number =>
      this.ctx.cache.getFileTestResults(
        `${spec.project.name}:${spec.moduleId.slice(this.ctx.config.root.length + 1)}`,
      )?.duration ?? statSync(spec.moduleId).size / 100;
    return Promise.resolve([...files].sort((a, b) => cost(a) - cost(b)));
  }
}

/**
 * The suites mutation testing runs (stryker.config.json): those that call lib/
 * in this process, so a mutant Stryker switches on is the code they run. test/http and
 * test/reliability run the built bundles in worker processes, which never see a mutant; the rules
 * they hold are also held in-process (test/functions runs each handler with its own wiring). Left
 * out for the same reason: the wire test (the local server's bundles) and invoke's (a child
 * process); and the timing test, which measures rather than decides.
 */
export default defineConfig({
  test: {
    include: ["test/lib/**/*.test.ts", "test/functions/**/*.test.ts", "test/security/**/*.test.ts"],
    exclude: [
      "test/functions/invoke.test.ts",
      "test/security/hostile/wire.test.ts",
      "test/security/keyTiming.test.ts",
    ],
    sequence: { sequencer: QuickFirst },
    // npm test's matchers and time limits (vitest.config.ts); not its build or shuffle.
    ...shared,
    // npm run mutation -- --ignore-static: the mutants left all switch at run time, so the
    // modules a run imports may stay loaded from one test file (and run) to the next.
    isolate: process.env.PETSTORE_MUTATION_ISOLATE !== "0",
  },
});
