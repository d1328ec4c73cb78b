/**
 * How every scenario of `npm run load` judges and prints its run (scripts/lib/load/local.ts): one
 * line per check with what it found, and a last line that passes only when every check held,
 * naming each one that did not. A figure (a line that checks nothing) never fails a run.
 */
import { describe, expect, it } from "vitest";
import { check, reportText, verdictOf } from "../../../scripts/lib/load/local.ts";

const claim = "nothing lost";

describe("a load run passes only when every check held, and names each one that did not", () => {
  it("passes with every check held and figures beside them, its claim the last line", () => {
    const checks = [check("lost", true, "0 of 5 creates"), check("final list", undefined, "5")];
    expect(verdictOf(checks)).toEqual({ ok: true, failed: [] });
    expect(reportText(["5 creates"], checks, claim).split("\n")).toEqual([
      "5 creates",
      "checks",
      "  lost             0 of 5 creates",
      "  final list       5",
      "PASS: nothing lost",
    ]);
  });

  it("fails when one check did not hold, naming every check that failed", () => {
    const checks = [
      check("errors", false, "1 × 500"),
      check("lost", true, "0 of 5 creates"),
      check("stale lists", false, "1 of 3"),
    ];
    expect(verdictOf(checks)).toEqual({ ok: false, failed: ["errors", "stale lists"] });
    expect(reportText([], checks, claim).split("\n").at(-1)).toBe("FAIL: errors, stale lists");
    const one = checks.slice(0, 2);
    expect(verdictOf(one).ok).toBe(false);
    expect(reportText([], one, claim).split("\n").at(-1)).toBe("FAIL: errors");
  });
});
