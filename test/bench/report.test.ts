/**
 * When bench/report.ts calls a size NOISY: the host took CPU beyond the quota (the loop slowed
 * past 1.5× its share's figure), measured before the size's rounds or after them. bench/run.ts
 * measures a size that broke on a noisy host once more, and lets a break on a quiet host stand.
 */
import { describe, expect, it } from "vitest";
import { noisy } from "../../bench/report.ts";

const share = 0.0724; // 128 MB: the loop slows 13.8× under a quiet quota
const quiet = 1.2 / share;
const lost = 1.6 / share;

describe("a size is NOISY when its loop slowed past 1.5× its share's figure, before or after", () => {
  it("is quiet while both loops stay within 1.5× of the share's slowdown", () => {
    expect(noisy({ share, slowdown: quiet })).toBe(false);
    expect(noisy({ share, slowdown: quiet, slowdownAfter: 1.49 / share })).toBe(false);
  });

  it("is noisy when the loop before the rounds slowed past it", () => {
    expect(noisy({ share, slowdown: lost, slowdownAfter: quiet })).toBe(true);
  });

  it("is noisy when only the loop after the rounds slowed past it", () => {
    expect(noisy({ share, slowdown: quiet, slowdownAfter: lost })).toBe(true);
  });

  it("a size measured again after a break stays noisy by the reading that excused the break", () => {
    expect(noisy({ share, slowdown: quiet, slowdownAfter: quiet, slowdownAtBreak: lost })).toBe(
      true,
    );
  });
});
