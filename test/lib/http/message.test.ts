/** lib/http/message.ts: reading an event's headers. */
import { describe, expect, it } from "vitest";
import { header } from "../../../lib/http/message.ts";

describe("headers are read case-insensitively", () => {
  it("finds API Gateway's lower-case names and hand-written mixed case alike", () => {
    expect(header({ headers: { authorization: "a" } }, "authorization")).toBe("a");
    expect(header({ headers: { Authorization: "b" } }, "authorization")).toBe("b");
    expect(header({ headers: {} }, "authorization")).toBeUndefined();
  });
});
