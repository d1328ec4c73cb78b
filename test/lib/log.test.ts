import { describe, expect, it } from "vitest";
import { describeFailure, RequestLogger } from "../../lib/log.ts";

describe("each request is one JSON log line", () => {
  it("writes one parseable line with a level derived from the outcome", () => {
    const lines: string[] = [];
    const logger = new RequestLogger(
      (line) => lines.push(line),
      () => Date.parse("2026-11-22T00:00:00Z"),
    );
    logger.write({
      requestId: "r1",
      route: "GET /v1/categories",
      method: "GET",
      status: 200,
      latencyMs: 3,
    });
    logger.write({
      requestId: "r2",
      route: "POST /v1/categories",
      method: "POST",
      status: 400,
      latencyMs: 1,
      code: "invalid_body",
    });
    logger.write({
      requestId: "r3",
      route: "POST /v1/categories",
      method: "POST",
      status: 500,
      latencyMs: 1,
      detail: "boom",
    });
    expect(lines).toHaveLength(3);
    expect(lines.every((line) => !line.includes("\n"))).toBe(true);
    expect(lines.map((line) => (JSON.parse(line) as { level: string }).level)).toEqual([
      "INFO",
      "WARN",
      "ERROR",
    ]);
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({
      time: "2026-11-22T00:00:00.000Z",
      requestId: "r1",
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
