import { describe, expect, it } from "vitest";
import { describeFailure, RequestLogger } from "../../lib/log.ts";

describe("each request is one JSON log line", () => {
  it("writes one parseable line with a level derived from the outcome", () => {
    const lines: string[] = [];
    const logger = new RequestLogger(
      (line) => lines.push(line),
      () => Date.parse("2026-11-22T00:00:00Z"),
    );
    const outcomes = [
      [200, {}],
      [400, { code: "invalid_body" }],
      [500, { detail: "boom" }],
    ] as const;
    for (const [status, extra] of outcomes) {
      const route = "POST /v1/categories";
      logger.write({
        requestId: `r${status}`,
        route,
        method: "POST",
        status,
        latencyMs: 3,
        ...extra,
      });
    }
    expect(lines).toHaveLength(3);
    expect(lines.every((line) => !line.includes("\n"))).toBe(true);
    expect(lines.map((line) => (JSON.parse(line) as { level: string }).level)).toEqual([
      "INFO",
      "WARN",
      "ERROR",
    ]);
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({
      time: "2026-11-22T00:00:00.000Z",
      requestId: "r200",
      status: 200,
    });
  });
});

describe("a failure's detail keeps its cause chain for the operator", () => {
  it("lists the stack and each cause", () => {
    const detail = describeFailure(
      new Error("outer", { cause: new Error("inner", { cause: "root" }) }),
    );
    expect(detail).toMatch(/^Error: outer\n\s+at /);
    expect(detail).toContain("caused by: Error: inner");
    expect(detail).toContain("caused by: root");
  });
});
