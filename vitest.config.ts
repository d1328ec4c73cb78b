import { defineConfig } from "vitest/config";
import SlowFirst from "./test/support/slowFirst.ts";

/** What every run of the suites shares, npm test's and mutation testing's (vitest.mutation.config.ts). */
export const shared = {
  // expect(answer).toBeApiError(status, code): the contract's Error shape, in one place.
  setupFiles: ["test/support/apiErrorMatcher.ts"],
  // Guards against a hung test, not bounds on speed: a test's own bounds scale with the
  // machine's measured speed (test/support/speed.ts), and on a busy machine a sound test of a
  // few seconds quiet (1,600 creates, six fault stacks) takes well over the 30 s these were.
  testTimeout: 120_000,
  hookTimeout: 120_000,
};

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Builds dist/ once: HTTP and handler tests run the same bundles that ship.
    globalSetup: ["test/support/globalSetup.ts"],
    ...shared,
    // The default reporter, then one line per skipped suite (which tool is missing, how to get
    // it) and the shuffle seed.
    reporters: ["default", "./test/support/skipReporter.ts"],
    // Every test must pass alone and in any order: the tests of each file run shuffled, always,
    // with the seed printed at the start and the end (replay: npx vitest run
    // --sequence.seed=<seed>). Files start longest first (test/support/slowFirst.ts).
    sequence: { shuffle: { files: false, tests: true }, sequencer: SlowFirst },
    // Each HTTP test file runs its own server and store; two cores, so two workers.
    maxWorkers: 2,
  },
});
