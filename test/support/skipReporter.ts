/**
 * Ends the run with one line per top-level suite whose tests were skipped, saying why (the note of
 * `skipWithout`: which tool is missing and how to get it), and with the seed the tests were
 * shuffled with, so that an order-dependent failure can be replayed.
 */
import type { Reporter, TestModule, Vitest } from "vitest/node";

export default class SkipReporter implements Reporter {
  private vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunEnd(testModules: readonly TestModule[]): void {
    const lines = new Map<string, number>();
    for (const module of testModules) {
      for (const test of module.children.allTests("skipped")) {
        const result = test.result();
        // Without a note: skipped by .only, a -t filter or skipIf, which the run already shows.
        if (result.state !== "skipped" || result.note === undefined) continue;
        let suite = test.parent;
        while (suite.type === "suite" && suite.parent.type === "suite") suite = suite.parent;
        const named = suite.type === "suite" ? ` › ${suite.name}` : "";
        const line = `SKIPPED ${module.relativeModuleId}${named}: ${result.note}`;
        lines.set(line, (lines.get(line) ?? 0) + 1);
      }
    }
    const log = (text: string): void => {
      this.vitest?.logger.log(text);
    };
    for (const [line, count] of lines) log(`${line} (${count} test${count === 1 ? "" : "s"})`);
    const seed = this.vitest?.config.sequence.seed;
    if (this.vitest?.config.sequence.shuffle && seed !== undefined) {
      log(
        `Tests ran in shuffled order, seed ${seed}; replay: npx vitest run --sequence.seed=${seed}`,
      );
    }
  }
}
