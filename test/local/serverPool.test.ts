/**
 * `npm start`'s pools under a burst: 50 lists at once grow the list function's pool to its
 * concurrency (10, the local default) and no further; each container's cold start is in Lambda's
 * REPORT (Init Duration) and its ColdStart metric, the container started with the server too (it
 * is on-demand); the requests past the limit get API Gateway's answer to a throttled Lambda,
 * 500 {"message":"Internal Server Error"}.
 */
import { describe, expect, it } from "vitest";
import { defaultConcurrency } from "../../local/functionPool.ts";
import { metricNames } from "../../lib/metrics.ts";
import { declaring } from "../support/emf.ts";
import { useLocalServer } from "../support/localServer.ts";

// The local default concurrency, throttled past it as Lambda is (the tools' servers queue
// instead, at 4 containers a function: local/functionEnv.ts).
const server = useLocalServer({
  env: { LOCAL_CONCURRENCY: "", LOCAL_CONCURRENCY_OVERFLOW: "throttle" },
});

interface Platform {
  readonly type: string;
  readonly record: { readonly metrics?: { readonly initDurationMs?: number } };
}

describe("50 lists at once: the pool grows to the concurrency limit and no further", () => {
  it("starts at most 10 containers, each with one cold start; the rest are throttled as API Gateway answers", async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        fetch(`${server.baseUrl}/categories`, {
          headers: { authorization: `Bearer ${server.apiKey}` },
        }).then(async (answer) => ({ status: answer.status, body: await answer.text() })),
      ),
    );
    const throttled = answers.filter((answer) => answer.status === 500);
    expect(answers.filter((answer) => answer.status === 200).length + throttled.length).toBe(50);
    for (const answer of throttled) expect(answer.body).toBe('{"message":"Internal Server Error"}');

    const platform = server.platformLines.map((line) => JSON.parse(line) as Platform);
    // Every container is on-demand, the one started with the server (to check the bundle loads)
    // too: each reports its init with its first invocation, and none as provisioned concurrency.
    expect(platform.filter((line) => line.type === "platform.initReport")).toEqual([]);
    const cold = platform.filter(
      (line) =>
        line.type === "platform.report" && line.record.metrics?.initDurationMs !== undefined,
    );
    const containers = cold.length;
    expect(containers).toBeGreaterThan(0);
    expect(containers).toBeLessThanOrEqual(defaultConcurrency);
    // lib/metrics.ts counts a cold start of an on-demand container: one ColdStart per container.
    const coldStarts = declaring(server.metricLines, metricNames.coldStart);
    expect(coldStarts.map((document) => document.function)).toEqual(
      cold.map(() => "listCategories"),
    );
    // A throttle means every container was busy: the pool had reached its limit.
    if (throttled.length > 0) expect(containers).toBe(defaultConcurrency);
    const reports = platform.filter((line) => line.type === "platform.report");
    expect(reports).toHaveLength(50 - throttled.length);
    process.stderr.write(
      `[pool] 50 lists at once: ${50 - throttled.length} answered, ${throttled.length} throttled, ${containers} containers, cold starts ${cold.map((line) => Math.round(line.record.metrics?.initDurationMs ?? 0)).join(", ")} ms\n`,
    );
  });
});
