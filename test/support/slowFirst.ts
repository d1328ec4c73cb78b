/**
 * The order test files start in: the longest first, so that with two workers the run does not
 * end on one long file started last while the other worker idles (a shuffled file order left up
 * to a minute of that). A file's length is its duration in vitest's cache of the last run; a file
 * not in the cache (a fresh clone) is guessed: one that starts a server, a fault stack or a child
 * process, or sleeps, takes seconds, the others milliseconds; then the larger first.
 *
 * The tests inside each file still run shuffled (vitest.config.ts); files are independent
 * anyway (each runs in its own module graph, with its own store tables and servers). Files of
 * the same cost keep a shuffled order, from the run's seed.
 */
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { relative } from "node:path";
import type { TestSpecification } from "vitest/node";
import { BaseSequencer } from "vitest/node";

const slowMarks =
  /\b(localServer|useLocalServer|startServer|startFaultStack|spawn|spawnSync|execFile|execFileSync|keysCommand|startDynamodbLocal|sleep)\(/;

export default class SlowFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { root, sequence } = this.ctx.config;
    const costOf = (spec: TestSpecification): number => {
      const key = `${spec.project.name}:${relative(root, spec.moduleId)}`;
      const known = this.ctx.cache.getFileTestResults(key)?.duration;
      if (known !== undefined) return known;
      const guess = slowMarks.test(readFileSync(spec.moduleId, "utf8")) ? 5_000 : 0;
      return guess + statSync(spec.moduleId).size / 100;
    };
    const tieBreak = (spec: TestSpecification): string =>
      createHash("sha1")
        .update(`${String(sequence.seed)}:${spec.moduleId}`)
        .digest("hex");
    const ranked = files.map((spec) => ({ spec, cost: costOf(spec), tie: tieBreak(spec) }));
    ranked.sort((a, b) => b.cost - a.cost || (a.tie < b.tie ? -1 : a.tie > b.tie ? 1 : 0));
    return Promise.resolve(ranked.map(({ spec }) => spec));
  }
}
