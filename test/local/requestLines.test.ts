/**
 * `npm start`'s terminal: quiet by default, one readable line per request (method, path, status,
 * milliseconds, request id), the functions' JSON log and EMF lines left out; LOG_FORMAT=json
 * prints those raw lines instead. The banner names the API reference at /docs.
 */
import { describe, expect, it } from "vitest";
import { createCategory } from "../support/client.ts";
import { scaled } from "../support/speed.ts";
import { serverScripts, until } from "./processes.ts";

const serve = serverScripts();
const start = (env: Record<string, string>) =>
  serve("scripts/start.ts", {
    args: ["--memory"],
    env,
    ready: (stderr) => /LOG_FORMAT.*\n/.test(stderr),
  });

/** The terminal's lines, once there are `count` of them (or 5 s, scaled, have passed). */
async function untilLines(stdout: () => string, count: number): Promise<string[]> {
  const lines = (): string[] =>
    stdout()
      .split("\n")
      .filter((line) => line !== "");
  await until(() => lines().length >= count, scaled(5000));
  return lines();
}

describe("npm start's terminal", () => {
  it("by default: one readable line per request, no JSON", async () => {
    const { baseUrl, apiKey, stderr: banner, stdout } = await start({ LOG_FORMAT: "" });
    expect(banner()).toContain(`API reference: ${new URL(baseUrl).origin}/docs`);
    const auth = { authorization: `Bearer ${apiKey}` };
    expect((await fetch(`${baseUrl}/categories`, { headers: auth })).status).toBe(200);
    expect((await createCategory(baseUrl, apiKey, { name: "dog" })).status).toBe(201);
    expect((await fetch(`${baseUrl}/nowhere?x=1`, { headers: auth })).status).toBe(404);
    const lines = await untilLines(stdout, 3);
    // API Gateway's request id, as the local gateway makes it (local/apiGateway.ts): the answer's
    // Request-Id and apigw-requestid, so a line is found from an answer.
    const id = "[A-Za-z0-9+/]{15}=";
    const ms = String.raw`\d+(\.\d)? ms`;
    // One request at a time: each function's container started with the server serves it, an
    // on-demand one, so each function's first request is its cold start, as in Lambda.
    const cold = String.raw` \(cold start \d+ ms\)`;
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^GET /v1/categories 200 ${ms} ${id}${cold}$`)),
      expect.stringMatching(new RegExp(`^POST /v1/categories 201 ${ms} ${id}${cold}$`)),
      expect.stringMatching(new RegExp(`^GET /v1/nowhere 404 ${ms} ${id}${cold}$`)),
    ]);
    // Four at once: the one container is busy, so new ones start, each line saying its cold start.
    await Promise.all(
      Array.from({ length: 4 }, () => fetch(`${baseUrl}/categories`, { headers: auth })),
    );
    const more = (await untilLines(stdout, 7)).slice(3);
    expect(more.filter((line) => / \(cold start \d+ ms\)$/.test(line)).length).toBeGreaterThan(0);
  });

  it("LOG_FORMAT=json: the functions' JSON log and EMF lines, and Lambda's platform lines", async () => {
    const { baseUrl, apiKey, stderr: banner, stdout } = await start({ LOG_FORMAT: "json" });
    expect(banner()).toContain("/docs");
    await fetch(`${baseUrl}/categories`, { headers: { authorization: `Bearer ${apiKey}` } });
    const lines = await untilLines(stdout, 2);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^\{"(time|_aws)":/);
    await until(() => stdout().includes('"platform.report"'), 5000);
    const records = (await untilLines(stdout, 1)).map(
      (line) => JSON.parse(line) as { type?: string; record?: { metrics?: object } },
    );
    // The container started with the server is on-demand: its init is reported with the first
    // request (platform.initStart, then platform.report's initDurationMs), not as provisioned
    // concurrency's initReport.
    const platform = records.filter((line) => line.type?.startsWith("platform."));
    expect(platform.map((line) => line.type)).toEqual([
      "platform.initStart",
      "platform.start",
      "platform.runtimeDone",
      "platform.report",
    ]);
    expect(platform[3]?.record?.metrics).toHaveProperty("initDurationMs");
  });
});
