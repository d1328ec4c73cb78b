import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Builds dist/ once: HTTP and handler tests run the same bundles that ship.
    globalSetup: ["test/support/globalSetup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each HTTP test file runs its own server and store; two cores, so two workers.
    maxWorkers: 2,
  },
});
