/**
 * The local gateway turns a function's payload 2.0 result into HTTP as an HTTP API does: the
 * result's `cookies` become one `set-cookie` header each, after any the function set itself.
 */
import { describe, expect, it } from "vitest";
import { fromResult } from "../../local/apiGateway.ts";
import { createFront } from "../../local/httpFront.ts";
import { listening } from "./processes.ts";

describe("a result's cookies are one set-cookie header each", () => {
  it("sends every cookie of the result, after the function's own set-cookie header", async () => {
    const result = {
      statusCode: 200,
      headers: { "content-type": "text/plain", "set-cookie": "own=0" },
      cookies: ["a=1; Path=/; HttpOnly", "b=2, with a comma; Secure"],
      body: "ok",
    };
    const front = createFront(() => Promise.resolve(fromResult(result)));
    const { port, close } = await listening(front);
    try {
      const answer = await fetch(`http://127.0.0.1:${port}/`);
      expect(answer.headers.getSetCookie()).toEqual([
        "own=0",
        "a=1; Path=/; HttpOnly",
        "b=2, with a comma; Secure",
      ]);
      expect(await answer.text()).toBe("ok");
    } finally {
      await close();
    }
  });
});
