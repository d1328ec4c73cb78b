import { defineConfig } from "vitest/config";

/** What every run of the suites shares, npm test's and mutation testing's (vitest.mutation.config.ts). */
export const shared = {
  // expect(answer).toBeApiError(status, code): the contract's Error shape, in one place.
  setupFiles: ["test/support/apiErrorMatcher.ts"],
  testTimeout: 30_000,
  hookTimeout: 60_000,
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
    // Every test must pass alone and in any order: tests run shuffled, always, with the seed
    // printed at the start and the end (replay: npx vitest run --sequence.seed=<seed>).
    sequence: { shuffle: true },
    // Each HTTP test file runs its own server and store; two cores, so two workers.
    maxWorkers: 2,
  },
});
