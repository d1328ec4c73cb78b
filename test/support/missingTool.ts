/**
 * Tests that need a tool the repository cannot install (a Python package, a file from the team's
 * spec folder) are skipped when it is absent, never passed. `skipWithout` marks every test of
 * the enclosing `describe` skipped with a note naming the tool and how to get it; the skip
 * reporter (test/support/skipReporter.ts) prints those notes as the run's last lines.
 */
import { beforeEach } from "vitest";

export interface MissingTool {
  /** What is absent, e.g. "cfn-lint (Python)". */
  readonly tool: string;
  /** How to get it, e.g. "pip install cfn-lint". */
  readonly get: string;
}

/** The note a skipped test carries; skipReporter.ts prints it as is. */
export function skipNote(missing: MissingTool): string {
  return `${missing.tool} is missing; to run these tests: ${missing.get}`;
}

/**
 * Set where every suite must run (the deploy workflow's gate): a missing tool then fails its
 * tests instead of skipping them, so a gate cannot pass on suites it never ran.
 */
export const toolsRequired = process.env.PETSTORE_REQUIRE_TOOLS === "1";

/** Call inside a `describe`: its tests skip, with the note, when `missing` is set. */
export function skipWithout(missing: MissingTool | undefined): void {
  beforeEach((context) => {
    if (!missing) return;
    if (toolsRequired) throw new Error(`${skipNote(missing)} (PETSTORE_REQUIRE_TOOLS=1)`);
    context.skip(skipNote(missing));
  });
}
