/**
 * The local runtime (local/functionPool.ts) runs a function as Lambda does: one invocation per
 * container, a new container (a cold start, its own module state) when every one is busy, up to
 * the function's concurrency, throttled past it; Timeout and MemorySize end the container; idle
 * containers are reaped; Lambda's START/END/REPORT lines in the function's LogFormat. The function
 * is a test-only one (test/local/poolFunction) that holds, allocates and reports its module state.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  FunctionPool,
  hostInLambdaTimeZone,
  lambdaInitLimitMs,
  lambdaNodeArgs,
} from "../../local/functionPool.ts";
import type { Outcome, PoolOptions } from "../../local/functionPool.ts";
import { gatewayTo } from "../../local/gateway.ts";
import { createFront } from "../../local/httpFront.ts";
import type { FunctionSpec } from "../../local/template.ts";
import { functionsOf } from "../../local/template.ts";
import { listening, until } from "./processes.ts";

const pools: FunctionPool[] = [];
const tempDirs: string[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A path for POOL_FUNCTION_INIT_ERROR_ONCE's marker, in a folder removed after the test. */
function onceFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "pool-init-"));
  tempDirs.push(dir);
  return join(dir, "failed");
}

/** The template's listCategories, its code the test function: the route and name stay. */
function testSpec(limits: Partial<FunctionSpec> = {}): FunctionSpec {
  const list = functionsOf().find((spec) => spec.name === "listCategories");
  if (!list) throw new Error("infra/template.yaml has no listCategories");
  return {
    ...list,
    codeDir: resolve(import.meta.dirname, "poolFunction"),
    handlerFile: "index.ts",
    handlerExport: "handler",
    ...limits,
  };
}

function poolOf(
  limits: Partial<FunctionSpec> = {},
  options: PoolOptions = {},
  env: Record<string, string> = {},
) {
  const lines: string[] = [];
  const output = {
    stdout: (text: string) => lines.push(...text.split("\n").filter(Boolean)),
    stderr: () => undefined,
  };
  const pool = new FunctionPool(testSpec(limits), env, { output, lambdaLines: true, ...options });
  pools.push(pool);
  return { pool, lines };
}

interface Seen {
  readonly running: number;
  readonly invocations: number;
  /** When the timer an earlier invocation left running ran (0: not yet). */
  readonly laterRanAt: number;
  /** What Lambda defines in the container's environment, and the context it was handed. */
  readonly env: Record<string, string | undefined>;
  readonly context: Record<string, string>;
  /** Its V8 heap's limit (v8.getHeapStatistics().heap_size_limit), in bytes. */
  readonly heapLimit: number;
  /** The time zone its dates are in (Intl's resolved zone). */
  readonly timeZone: string;
  /** Whether gc() is there (typeof globalThis.gc), as node's --expose-gc makes it. */
  readonly gc: string;
}

function seen(outcome: Outcome): Seen {
  if (!outcome.ok) throw new Error(`${outcome.error.name}: ${outcome.error.message}`);
  return outcome.result as Seen;
}

describe("one invocation per container; a busy pool grows to its concurrency, then throttles", () => {
  it("8 at once on a concurrency of 3: 3 cold containers, each running one, 5 throttled", async () => {
    const { pool } = poolOf({ reservedConcurrency: 3 });
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () => pool.invoke({ holdMs: 200 })),
    );
    const ran = outcomes.filter((outcome) => outcome.ok);
    expect(ran.map((outcome) => seen(outcome).running)).toEqual([1, 1, 1]);
    expect(new Set(ran.map((outcome) => outcome.report?.containerId))).toEqual(new Set([1, 2, 3]));
    for (const outcome of ran) expect(outcome.report?.initMs).toBeGreaterThan(0);
    const throttled = outcomes.filter((outcome) => !outcome.ok);
    expect(throttled).toHaveLength(5);
    for (const outcome of throttled) {
      expect(outcome).toMatchObject({
        failure: "throttled",
        error: { name: "TooManyRequestsException" },
      });
      expect(outcome.report).toBeUndefined();
    }
    expect(pool.coldStarts).toBe(3);
  });

  it("never runs two at once in one container, however many wait (overflow: queue)", async () => {
    const { pool } = poolOf({ reservedConcurrency: 2 }, { overflow: "queue" });
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, i) => pool.invoke({ holdMs: i % 3 === 0 ? 30 : 0 })),
    );
    expect(outcomes.map((outcome) => seen(outcome).running)).toEqual(outcomes.map(() => 1));
    expect(pool.coldStarts).toBe(2);
    const invocations = outcomes.map((outcome) => seen(outcome).invocations);
    // Two containers, each counting its own invocations: 12 in all.
    expect(Math.max(...invocations)).toBeLessThan(12);
  });

  it("takes the default concurrency (10) where the template reserves none, or the local setting", () => {
    expect(poolOf().pool.concurrency).toBe(10);
    expect(poolOf({}, { concurrency: 4 }).pool.concurrency).toBe(4);
    expect(poolOf({ reservedConcurrency: 2 }, { concurrency: 4 }).pool.concurrency).toBe(2);
  });
});

describe("a container keeps its module state between invocations; a new one starts afresh", () => {
  it("counts 1, 2, 3 in one warm container, and 1 in the next one started", async () => {
    const { pool } = poolOf();
    const warm = [];
    for (let i = 0; i < 3; i++) warm.push(await pool.invoke({}));
    expect(warm.map((outcome) => seen(outcome).invocations)).toEqual([1, 2, 3]);
    expect(warm.map((outcome) => outcome.report?.containerId)).toEqual([1, 1, 1]);
    expect(warm.map((outcome) => outcome.report?.initMs !== undefined)).toEqual([
      true,
      false,
      false,
    ]);
    const [busy, fresh] = await Promise.all([pool.invoke({ holdMs: 100 }), pool.invoke({})]);
    expect(seen(busy).invocations).toBe(4);
    expect(seen(fresh).invocations).toBe(1);
    expect(fresh.report?.containerId).toBe(2);
  });
});

describe("a container has the environment Lambda defines, and a context that agrees with it", () => {
  it("names the function, version, memory, log group and stream, runtime, handler, UTC and region", async () => {
    const { pool } = poolOf({ memorySize: 256 });
    const [first, second] = (
      await Promise.all([pool.invoke({ holdMs: 100 }), pool.invoke({ holdMs: 100 })])
    ).map(seen);
    const stream = /^\d{4}\/\d\d\/\d\d\/\[\$LATEST\][0-9a-f]{32}$/;
    expect(first?.env).toEqual({
      AWS_LAMBDA_FUNCTION_NAME: "listCategories",
      AWS_LAMBDA_FUNCTION_VERSION: "$LATEST",
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: "256",
      AWS_LAMBDA_LOG_GROUP_NAME: "/aws/lambda/listCategories",
      AWS_LAMBDA_LOG_STREAM_NAME: expect.stringMatching(stream) as string,
      AWS_LAMBDA_INITIALIZATION_TYPE: "on-demand",
      AWS_EXECUTION_ENV: "AWS_Lambda_nodejs24.x",
      LAMBDA_TASK_ROOT: pool.spec.codeDir,
      _HANDLER: "index.handler",
      TZ: ":UTC",
      AWS_REGION: "local",
      AWS_DEFAULT_REGION: "local",
    });
    expect(first?.context).toEqual({
      functionName: "listCategories",
      functionVersion: "$LATEST",
      memoryLimitInMB: "256",
      logGroupName: "/aws/lambda/listCategories",
      logStreamName: first?.env.AWS_LAMBDA_LOG_STREAM_NAME,
    });
    // One log stream per container.
    expect(second?.context.logStreamName).toMatch(stream);
    expect(second?.context.logStreamName).not.toBe(first?.context.logStreamName);
  });

  it("runs in UTC, as Lambda does, in a process that hosts containers, whatever the shell's zone", async () => {
    const shell = process.env.TZ;
    process.env.TZ = "America/New_York";
    try {
      expect(new Date(0).getTimezoneOffset()).toBe(300);
      hostInLambdaTimeZone();
      const { pool } = poolOf();
      expect(seen(await pool.invoke({})).timeZone).toBe("UTC");
    } finally {
      if (shell === undefined) delete process.env.TZ;
      else process.env.TZ = shell;
    }
  });

  it("has global.gc, as Lambda's bootstrap starts node with --expose-gc", async () => {
    const { pool } = poolOf();
    expect(seen(await pool.invoke({})).gc).toBe("function");
  });

  it("keeps the region it is given; AWS_DEFAULT_REGION follows it", async () => {
    const { pool } = poolOf({}, {}, { AWS_REGION: "eu-west-1" });
    expect(seen(await pool.invoke({})).env).toMatchObject({
      AWS_REGION: "eu-west-1",
      AWS_DEFAULT_REGION: "eu-west-1",
    });
  });
});

describe("containers started ahead of traffic: on-demand unless kept warm (provisioned concurrency)", () => {
  it("with none kept warm, the one started to check the bundle is a cold start at its first invocation", async () => {
    const { pool, lines } = poolOf({ logFormat: "Text" });
    expect(await pool.warm()).toBeUndefined();
    expect(pool.size).toBe(1);
    expect(lines).toEqual([]);
    const first = await pool.invoke({}, "first");
    expect(first.report).toMatchObject({ containerId: 1, initMs: expect.any(Number) as number });
    expect(seen(first).env.AWS_LAMBDA_INITIALIZATION_TYPE).toBe("on-demand");
    expect(lines.at(-1)).toMatch(/^REPORT RequestId: first\t.*\tInit Duration: \d+\.\d\d ms$/);
    expect((await pool.invoke({})).report?.initMs).toBeUndefined();
  });

  it("with warm: 2, two provisioned-concurrency containers: INIT_REPORT now, no Init Duration later", async () => {
    const { pool, lines } = poolOf({ logFormat: "Text" }, { warm: 2 });
    expect(await pool.warm()).toBeUndefined();
    expect(lines).toEqual([
      expect.stringMatching(/^INIT_START /),
      // A provisioned init that succeeded: the duration alone, as Lambda writes it.
      expect.stringMatching(/^INIT_REPORT Init Duration: \d+\.\d\d ms$/),
      expect.stringMatching(/^INIT_START /),
      expect.stringMatching(/^INIT_REPORT Init Duration: \d+\.\d\d ms$/),
    ]);
    const outcomes = await Promise.all([pool.invoke({ holdMs: 50 }), pool.invoke({ holdMs: 50 })]);
    expect(outcomes.map((outcome) => outcome.report?.containerId).sort()).toEqual([1, 2]);
    for (const outcome of outcomes) {
      expect(outcome.report?.initMs).toBeUndefined();
      expect(seen(outcome).env.AWS_LAMBDA_INITIALIZATION_TYPE).toBe("provisioned-concurrency");
    }
    expect(lines.filter((line) => line.includes("Init Duration"))).toHaveLength(2);
  });
});

describe("Timeout ends the invocation and its container", () => {
  it("a handler sleeping past Timeout fails as Sandbox.Timedout, REPORT says Status: timeout", async () => {
    const { pool, lines } = poolOf({ timeoutSeconds: 0.2, logFormat: "Text" });
    const outcome = await pool.invoke({ holdMs: 60_000 }, "timeout-1");
    expect(outcome).toMatchObject({
      ok: false,
      failure: "timeout",
      error: { name: "Sandbox.Timedout", message: "Task timed out after 0.20 seconds" },
    });
    expect(lines).toContainEqual(
      expect.stringMatching(/ timeout-1 Task timed out after 0\.20 seconds$/),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^REPORT RequestId: timeout-1\tDuration: \d+\.\d\d ms\t.*\tMax Memory Used: \d+ MB\tInit Duration: [\d.]+ ms\tStatus: timeout$/,
      ),
    );
    expect(await until(() => pool.size === 0, 20_000), "ended").toBe(true);
    const next = await pool.invoke({});
    expect(next.report).toMatchObject({ containerId: 2, status: "success" });
  });

  it("the gateway answers a timed-out function as API Gateway does: 500 Internal Server Error", async () => {
    const { pool } = poolOf({ timeoutSeconds: 0.2 });
    const front = createFront(gatewayTo(new Map([[pool.spec.name, pool]])));
    const { port, close } = await listening(front);
    try {
      const answer = await fetch(`http://127.0.0.1:${port}/v1/categories?holdMs=60000`);
      expect(answer.status).toBe(500);
      expect(await answer.json()).toEqual({ message: "Internal Server Error" });
    } finally {
      await close();
    }
  });
});

describe("a handler that ends its runtime (process.exit) fails as Lambda reports it", () => {
  it("Runtime.ExitError with the request id and the exit status; the next runs in a fresh container", async () => {
    const { pool, lines } = poolOf({ logFormat: "Text" });
    const outcome = await pool.invoke({ exitCode: 3 }, "exit-1");
    expect(outcome).toMatchObject({
      ok: false,
      failure: "error",
      error: {
        name: "Runtime.ExitError",
        message: "RequestId: exit-1 Error: Runtime exited with error: exit status 3",
      },
    });
    expect(lines.at(-1)).toMatch(/\tStatus: error\tError Type: Runtime\.ExitError$/);
    const next = await pool.invoke({});
    expect(seen(next).invocations).toBe(1);
    expect(next.report?.containerId).toBe(2);
  });
});

describe("MemorySize bounds a container's memory: its heap, and what lies outside it (Buffers)", () => {
  it("REPORT's Max Memory Used is the peak read while it ran, one freed before the answer too", async () => {
    const { pool } = poolOf({ memorySize: 256 });
    const outcome = await pool.invoke({ peakBufferMb: 100 });
    expect(outcome.ok).toBe(true);
    expect(outcome.report?.maxMemoryMb).toBeGreaterThanOrEqual(100);
  });

  it("the bench's processes get node's command line from Lambda's bootstrap (256 MB)", () => {
    expect(lambdaNodeArgs(256)).toEqual([
      "--expose-gc",
      "--max-http-header-size=81920",
      "--max-semi-space-size=12",
      "--max-old-space-size=231",
    ]);
  });

  it.each([128, 256, 1024])(
    "at %i MB the heap's limit is the one Lambda's Node.js bootstrap sets (old space nine tenths of it, each semi-space a twentieth)",
    async (memorySize) => {
      // The bootstrap's own arithmetic (/var/runtime/bootstrap), given to a node process as flags.
      const newSpace = Math.floor(memorySize / 10);
      const flags = [
        `--max-old-space-size=${String(memorySize - newSpace)}`,
        `--max-semi-space-size=${String(Math.floor(newSpace / 2))}`,
      ];
      const lambdas = execFileSync(process.execPath, [
        ...flags,
        "-p",
        "v8.getHeapStatistics().heap_size_limit",
      ]);
      const { pool } = poolOf({ memorySize });
      expect(seen(await pool.invoke({})).heapLimit).toBe(Number(lambdas.toString()));
    },
  );

  it.each([
    ["its heap", { allocateMb: 512 }, { allocateMb: 8 }],
    ["Buffers, checked as the invocation ends", { bufferMb: 96 }, { bufferMb: 8 }],
    [
      "a peak of Buffers freed before the answer, read while it runs",
      { peakBufferMb: 96 },
      { peakBufferMb: 8 },
    ],
  ])(
    "%s past it fails with Runtime.OutOfMemory; the next runs in a fresh container",
    async (_what, over, under) => {
      const { pool, lines } = poolOf({ memorySize: 64, logFormat: "JSON" });
      const outcome = await pool.invoke(over, "oom-1");
      expect(outcome).toMatchObject({
        ok: false,
        failure: "out-of-memory",
        error: { name: "Runtime.OutOfMemory" },
      });
      const report = lines.map((line) => JSON.parse(line) as Record<string, unknown>).at(-1);
      expect(report).toMatchObject({
        type: "platform.report",
        record: { requestId: "oom-1", status: "error", errorType: "Runtime.OutOfMemory" },
      });
      const next = await pool.invoke(under);
      expect(seen(next).invocations).toBe(1);
      expect(next.report).toMatchObject({ containerId: 2, status: "success" });
      expect(next.report?.maxMemoryMb).toBeLessThanOrEqual(64);
    },
  );
});

describe("a reload (npm run dev) serves the new bundle in new containers, as many as kept warm", () => {
  it.each([
    ["at once, with room to spare", 10],
    ["as the busy ones end, at a concurrency of 2", 2],
  ])("with warm: 2 and both busy at the rebuild: two new ones %s", async (_when, concurrency) => {
    const { pool } = poolOf({ reservedConcurrency: concurrency }, { warm: 2, overflow: "queue" });
    expect(await pool.warm()).toBeUndefined();
    const busy = [pool.invoke({ holdMs: 300 }), pool.invoke({ holdMs: 300 })];
    expect(await pool.reload()).toBeUndefined();
    const answered = await Promise.all(busy);
    expect(answered.map((outcome) => outcome.report?.containerId).sort()).toEqual([1, 2]);
    expect(await until(() => pool.size === 2 && pool.coldStarts === 4, 5000)).toBe(true);
    // Kept warm (provisioned): no cold start for the next one, once one is ready.
    const next = await pool.invoke({});
    expect([3, 4]).toContain(next.report?.containerId);
    expect(next.report?.initMs).toBeUndefined();
  });
});

describe("idle containers are reaped after the idle time, down to the ones kept warm", () => {
  it("ends both idle containers; with warm: 1, keeps one", async () => {
    for (const warm of [0, 1]) {
      const { pool } = poolOf({}, { idleMs: 50, warm });
      await Promise.all([pool.invoke({ holdMs: 50 }), pool.invoke({ holdMs: 50 })]);
      expect(await until(() => pool.size === warm, 20_000), `reaped to ${warm}`).toBe(true);
      const next = await pool.invoke({});
      expect(next.report?.initMs !== undefined).toBe(warm === 0);
    }
  });

  it("never reaps a container while it runs an invocation longer than the idle time", async () => {
    const { pool } = poolOf({}, { idleMs: 50 });
    await pool.invoke({});
    const held = await pool.invoke({ holdMs: 300 });
    expect(seen(held).invocations).toBe(2);
    expect(held.report?.containerId).toBe(1);
  });
});

describe("Lambda's START, END and REPORT lines in the function's LogFormat", () => {
  it("Text: START, END, REPORT with Init Duration on the cold start only", async () => {
    const { pool, lines } = poolOf({ logFormat: "Text", memorySize: 256 });
    await pool.invoke({}, "first");
    await pool.invoke({}, "second");
    const number = String.raw`\d+\.\d\d`;
    expect(lines).toEqual([
      "INIT_START Runtime Version: nodejs:24.local\tRuntime Version ARN: arn:aws:lambda:local::runtime:local",
      "START RequestId: first Version: $LATEST",
      "END RequestId: first",
      expect.stringMatching(
        new RegExp(
          `^REPORT RequestId: first\\tDuration: ${number} ms\\tBilled Duration: \\d+ ms\\tMemory Size: 256 MB\\tMax Memory Used: \\d+ MB\\tInit Duration: ${number} ms$`,
        ),
      ),
      "START RequestId: second Version: $LATEST",
      "END RequestId: second",
      expect.stringMatching(
        /^REPORT RequestId: second\tDuration: [^\t]+\tBilled Duration: \d+ ms\tMemory Size: 256 MB\tMax Memory Used: \d+ MB$/,
      ),
    ]);
  });

  it("JSON: platform.start, platform.runtimeDone and platform.report with its metrics", async () => {
    const { pool, lines } = poolOf({ logFormat: "JSON" });
    await pool.invoke({}, "json-1");
    const records = lines.map((line) => JSON.parse(line) as { type: string; record: unknown });
    expect(records.map((record) => record.type)).toEqual([
      "platform.initStart",
      "platform.start",
      "platform.runtimeDone",
      "platform.report",
    ]);
    expect(records[0]?.record).toEqual({
      initializationType: "on-demand",
      phase: "init",
      runtimeVersion: "nodejs:24.local",
      runtimeVersionArn: "arn:aws:lambda:local::runtime:local",
      functionName: "listCategories",
      functionVersion: "$LATEST",
    });
    const report = records[3]?.record as { metrics: Record<string, unknown> };
    expect(report).toMatchObject({ requestId: "json-1", status: "success" });
    expect(Object.keys(report.metrics)).toEqual([
      "durationMs",
      "billedDurationMs",
      "memorySizeMB",
      "maxMemoryUsedMB",
      "initDurationMs",
    ]);
    expect(report.metrics.memorySizeMB).toBe(pool.spec.memorySize);
  });
});

describe("a container's init in Lambda's lines: INIT_START, its output; a failed init's error and INIT_REPORT", () => {
  it("an on-demand container started ahead of traffic prints its init with its first invocation", async () => {
    const { pool, lines } = poolOf(
      { logFormat: "Text" },
      {},
      { POOL_FUNCTION_INIT_LOG: "loading" },
    );
    expect(await pool.warm()).toBeUndefined();
    expect(lines).toEqual([]);
    await pool.invoke({}, "first");
    expect(lines.slice(0, 3)).toEqual([
      expect.stringMatching(/^INIT_START Runtime Version: /),
      "loading",
      "START RequestId: first Version: $LATEST",
    ]);
  });

  it("Text: a failed init, its uncaught exception and INIT_REPORT; run again in the invocation, which fails", async () => {
    const { pool, lines } = poolOf(
      { logFormat: "Text" },
      {},
      { POOL_FUNCTION_INIT_ERROR: "no table" },
    );
    const outcome = await pool.invoke({}, "broken");
    expect(outcome).toMatchObject({
      ok: false,
      error: { name: "Error", message: "no table" },
      report: { status: "error", errorType: "Runtime.Unknown", initMs: undefined },
    });
    const uncaught = expect.stringMatching(
      /^\S+\tundefined\tERROR\tUncaught Exception \t\{"errorType":"Error","errorMessage":"no table","stack":\["Error: no table",/,
    ) as string;
    const initReport = (phase: string) =>
      expect.stringMatching(
        new RegExp(
          `^INIT_REPORT Init Duration: \\d+\\.\\d\\d ms\tPhase: ${phase}\tStatus: error\tError Type: Runtime\\.Unknown$`,
        ),
      ) as string;
    expect(lines).toEqual([
      expect.stringMatching(/^INIT_START /),
      uncaught,
      initReport("init"),
      // The suppressed init: no INIT_START, the same exception, Phase: invoke.
      uncaught,
      initReport("invoke"),
      "START RequestId: broken Version: $LATEST",
      "END RequestId: broken",
      expect.stringMatching(
        /^REPORT RequestId: broken\tDuration: \d+\.\d\d ms\tBilled Duration: \d+ ms\tMemory Size: \d+ MB\tMax Memory Used: \d+ MB\tStatus: error\tError Type: Runtime\.Unknown$/,
      ),
    ]);
    // The container keeps its place, as Lambda keeps the environment, once its thread has ended
    // (300 ms is ample for that): the next invocation runs the init again there, once, with no
    // INIT_START.
    await new Promise((done) => setTimeout(done, 300));
    expect(pool.size).toBe(1);
    const before = lines.length;
    expect(await pool.invoke({}, "again")).toMatchObject({ report: { containerId: 1 } });
    expect(lines.slice(before)).toEqual([
      uncaught,
      initReport("invoke"),
      "START RequestId: again Version: $LATEST",
      "END RequestId: again",
      expect.stringMatching(
        /^REPORT RequestId: again\t.*\tStatus: error\tError Type: Runtime\.Unknown$/,
      ),
    ]);
    expect(pool.coldStarts).toBe(1);
  });

  it("an init that fails once succeeds when run again within the invocation: no Init Duration", async () => {
    const { pool, lines } = poolOf(
      { logFormat: "Text" },
      {},
      {
        POOL_FUNCTION_INIT_ERROR: "store not ready",
        POOL_FUNCTION_INIT_ERROR_ONCE: onceFile(),
        POOL_FUNCTION_INIT_LOG_STREAM: "1",
      },
    );
    const outcome = await pool.invoke({}, "recovered");
    expect(seen(outcome).invocations).toBe(1);
    // Run again in the same environment: both inits, and the invocation, name one log stream.
    const streams = lines.filter((line) => line.startsWith("stream "));
    expect(streams).toEqual([streams[0], streams[0]]);
    expect(streams[0]).toBe(`stream ${String(seen(outcome).env.AWS_LAMBDA_LOG_STREAM_NAME)}`);
    expect(outcome.report).toMatchObject({ containerId: 1, status: "success", initMs: undefined });
    expect(lines.filter((line) => line.startsWith("INIT_"))).toEqual([
      expect.stringMatching(/^INIT_START /),
      expect.stringMatching(/\tPhase: init\tStatus: error\tError Type: Runtime\.Unknown$/),
    ]);
    expect(lines.at(-1)).toMatch(/^REPORT RequestId: recovered\t.*\tMax Memory Used: \d+ MB$/);
  });

  it("JSON: platform.initStart, then platform.initReport with the status and error type", async () => {
    const { pool, lines } = poolOf(
      { logFormat: "JSON" },
      {},
      { POOL_FUNCTION_INIT_ERROR: "no table" },
    );
    expect(await pool.warm()).toMatchObject({ message: "no table" });
    const records = lines.map((line) => JSON.parse(line) as { type: string; record: unknown });
    expect(records.map((line) => line.type)).toEqual([
      "platform.initStart",
      undefined,
      "platform.initReport",
    ]);
    // The runtime's uncaught exception, a console line of the JSON format: no request yet.
    expect(records[1]).toEqual({
      timestamp: expect.any(String) as string,
      level: "ERROR",
      message: {
        errorType: "Error",
        errorMessage: "no table",
        stackTrace: expect.arrayContaining(["Error: no table"]) as string[],
      },
    });
    expect(records[2]?.record).toMatchObject({
      initializationType: "on-demand",
      phase: "init",
      status: "error",
      errorType: "Runtime.Unknown",
      metrics: { durationMs: expect.any(Number) as number },
    });
  });
});

describe("an init is bounded as Lambda bounds it: 10 s on demand, then run again within the Timeout", () => {
  // The tests shorten the init phase's bound (initLimitMs) from Lambda's 10 s to 300 ms.
  const initReport = (phase: string, status: string) =>
    expect.stringMatching(
      new RegExp(
        `^INIT_REPORT Init Duration: \\d+\\.\\d\\d ms\tPhase: ${phase}\tStatus: ${status}$`,
      ),
    ) as string;

  it("takes Lambda's bounds by default: 10 s on demand, the greater of 130 s and Timeout provisioned", () => {
    expect(lambdaInitLimitMs("on-demand", 900)).toBe(10_000);
    expect(lambdaInitLimitMs("provisioned-concurrency", 10)).toBe(130_000);
    expect(lambdaInitLimitMs("provisioned-concurrency", 900)).toBe(900_000);
  });

  it("an init past its bound is cut (Status: timeout) and run again within the invocation, which it serves", async () => {
    const { pool, lines } = poolOf(
      { logFormat: "Text", timeoutSeconds: 10 },
      { initLimitMs: 300 },
      { POOL_FUNCTION_INIT_HOLD_MS: "2000" },
    );
    const outcome = await pool.invoke({}, "slow-init");
    expect(seen(outcome).invocations).toBe(1);
    // The init run again counts in the invocation's Duration; REPORT has no Init Duration.
    expect(outcome.report).toMatchObject({ containerId: 1, status: "success", initMs: undefined });
    expect(outcome.report?.durationMs).toBeGreaterThanOrEqual(2000);
    expect(lines).toEqual([
      expect.stringMatching(/^INIT_START /),
      initReport("init", "timeout"),
      "START RequestId: slow-init Version: $LATEST",
      "END RequestId: slow-init",
      expect.stringMatching(/^REPORT RequestId: slow-init\t.*\tMax Memory Used: \d+ MB$/),
    ]);
    const cut = Number(/Init Duration: ([\d.]+) ms/.exec(lines[1] ?? "")?.[1]);
    expect(cut).toBeGreaterThanOrEqual(300);
    expect(cut).toBeLessThan(2000);
  });

  it("the init run again spends the invocation's Timeout: what is left is the handler's", async () => {
    const { pool } = poolOf(
      { timeoutSeconds: 3 },
      { initLimitMs: 300 },
      { POOL_FUNCTION_INIT_HOLD_MS: "2000" },
    );
    // 2 s of init and 1.5 s of handler: over the 3 s Timeout, though each alone is under it.
    const outcome = await pool.invoke({ holdMs: 1500 }, "late");
    expect(outcome).toMatchObject({
      ok: false,
      failure: "timeout",
      error: { name: "Sandbox.Timedout", message: "Task timed out after 3.00 seconds" },
      report: { status: "timeout" },
    });
  });

  it("an init run again past the Timeout fails the invocation as timed out; INIT_REPORT Phase: invoke", async () => {
    const { pool, lines } = poolOf(
      { logFormat: "Text", timeoutSeconds: 1 },
      { initLimitMs: 300 },
      { POOL_FUNCTION_INIT_HOLD_MS: "60000" },
    );
    const outcome = await pool.invoke({}, "never-ready");
    expect(outcome).toMatchObject({
      ok: false,
      failure: "timeout",
      error: { name: "Sandbox.Timedout", message: "Task timed out after 1.00 seconds" },
      report: { status: "timeout", errorType: "Sandbox.Timedout", initMs: undefined },
    });
    expect(lines).toEqual([
      expect.stringMatching(/^INIT_START /),
      initReport("init", "timeout"),
      expect.stringMatching(
        /^INIT_REPORT Init Duration: \d+\.\d\d ms\tPhase: invoke\tStatus: error\tError Type: Runtime\.Unknown$/,
      ),
      "START RequestId: never-ready Version: $LATEST",
      expect.stringMatching(/ never-ready Task timed out after 1\.00 seconds$/),
      "END RequestId: never-ready",
      expect.stringMatching(/^REPORT RequestId: never-ready\t.*\tStatus: timeout$/),
    ]);
    expect(outcome.report?.durationMs).toBeGreaterThanOrEqual(1000);
  });

  it("JSON: a container started ahead of traffic whose init is cut: platform.initReport status timeout", async () => {
    const { pool, lines } = poolOf(
      { logFormat: "JSON" },
      { initLimitMs: 300 },
      { POOL_FUNCTION_INIT_HOLD_MS: "60000" },
    );
    expect(await pool.warm()).toMatchObject({ name: "Sandbox.Timedout" });
    const records = lines.map((line) => JSON.parse(line) as { type: string; record: object });
    expect(records.map((line) => line.type)).toEqual(["platform.initStart", "platform.initReport"]);
    expect(records[1]?.record).toEqual({
      initializationType: "on-demand",
      phase: "init",
      status: "timeout",
      metrics: { durationMs: expect.any(Number) as number },
    });
  });
});

describe("console as Lambda's Node.js runtime writes it, in the function's LogFormat", () => {
  /** The lines between an invocation's START and its end, the function's own. */
  function between(lines: readonly string[], start: RegExp, end: RegExp): string[] {
    const from = lines.findIndex((line) => start.test(line));
    const to = lines.findIndex((line, index) => index > from && end.test(line));
    return lines.slice(from + 1, to);
  }

  it("JSON: each call one record with its level and request id, DEBUG dropped (INFO), stdout raw", async () => {
    const { pool, lines } = poolOf({ logFormat: "JSON", logLevel: "INFO" });
    await pool.invoke({ log: true }, "log-json");
    const own = between(lines, /"platform.start"/, /"platform.runtimeDone"/);
    const record = {
      timestamp: expect.stringMatching(/^\d{4}-.+Z$/) as string,
      requestId: "log-json",
    };
    expect(own.map((line) => JSON.parse(line) as unknown)).toEqual([
      { ...record, level: "INFO", message: "listed 3" },
      { ...record, level: "WARN", message: "two\nlines { id: 7 }" },
      {
        ...record,
        level: "ERROR",
        message: {
          errorType: "RangeError",
          errorMessage: "bad id",
          stackTrace: expect.arrayContaining(["RangeError: bad id"]) as string[],
        },
      },
      { own: "line" },
    ]);
    // One line each: the runtime turns a message's newlines into carriage returns.
    expect(own[1]).toContain(String.raw`two\nlines`);
  });

  it("JSON: ApplicationLogLevel DEBUG keeps console.debug; WARN drops INFO too", async () => {
    const debug = poolOf({ logFormat: "JSON", logLevel: "DEBUG" });
    await debug.pool.invoke({ log: true }, "debug");
    expect(debug.lines.join("\n")).toContain(
      '"level":"DEBUG","requestId":"debug","message":"a detail"',
    );
    const warn = poolOf({ logFormat: "JSON", logLevel: "WARN" });
    await warn.pool.invoke({ log: true }, "warn");
    const levels = between(warn.lines, /"platform.start"/, /"platform.runtimeDone"/).map(
      (line) => (JSON.parse(line) as { level?: string }).level,
    );
    expect(levels).toEqual(["WARN", "ERROR", undefined]);
  });

  it("Text: <time>, request id, level and message, tab-separated, every level kept", async () => {
    const { pool, lines } = poolOf({ logFormat: "Text", logLevel: "WARN" });
    await pool.invoke({ log: true }, "log-text");
    const own = between(lines, /^START /, /^END /);
    const time = String.raw`\d{4}-\d\d-\d\dT[\d:.]+Z`;
    expect(own.slice(0, 4)).toEqual([
      expect.stringMatching(new RegExp(`^${time}\tlog-text\tINFO\tlisted 3$`)),
      expect.stringMatching(new RegExp(`^${time}\tlog-text\tDEBUG\ta detail$`)),
      // A message's newlines stay: deployed, the call is one event over several lines.
      expect.stringMatching(new RegExp(`^${time}\tlog-text\tWARN\ttwo$`)),
      "lines { id: 7 }",
    ]);
    expect(own[4]).toMatch(new RegExp(`^${time}\tlog-text\tERROR\tRangeError: bad id$`));
    expect(own[5]).toMatch(/^ {4}at /);
    expect(own.at(-1)).toBe('{"own":"line"}');
  });

  it("a handler's error as the runtime logs it: Invoke Error (Text), an ERROR record (JSON)", async () => {
    const text = poolOf({ logFormat: "Text" });
    expect(await text.pool.invoke({ throwMessage: "no such table" }, "thrown")).toMatchObject({
      ok: false,
      error: { name: "Error", message: "no such table" },
    });
    expect(between(text.lines, /^START /, /^END /)).toEqual([
      expect.stringMatching(
        /^\S+\tthrown\tERROR\tInvoke Error \t\{"errorType":"Error","errorMessage":"no such table","stack":\["Error: no such table",/,
      ),
    ]);
    // Its REPORT has no Status: the runtime answered the error (Status is for runtime failures).
    expect(text.lines.at(-1)).toMatch(
      /^REPORT RequestId: thrown\t.*\tMax Memory Used: \d+ MB(\tInit Duration: [\d.]+ ms)?$/,
    );
    const json = poolOf({ logFormat: "JSON" });
    await json.pool.invoke({ throwMessage: "no such table" }, "thrown-json");
    const [line = "{}"] = between(json.lines, /"platform.start"/, /"platform.runtimeDone"/);
    expect(JSON.parse(line)).toMatchObject({
      level: "ERROR",
      requestId: "thrown-json",
      message: { errorType: "Error", errorMessage: "no such table" },
    });
  });
});

describe("errors as the runtime reports them, whatever they hold", () => {
  it("an error whose fields do not serialize (circular) is still the handler's, logged by name, message and stack", async () => {
    const { pool, lines } = poolOf({ logFormat: "Text" });
    const outcome = await pool.invoke({ circularError: true }, "circular");
    expect(outcome).toMatchObject({ ok: false, error: { name: "Error", message: "loop" } });
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^\S+\tcircular\tERROR\tInvoke Error \t\{"errorType":"Error","errorMessage":"loop","trace":\["Error: loop",/,
      ),
    );
    expect(seen(await pool.invoke({})).invocations).toBe(2);
  });

  it("a bundle without the handler's export fails as Runtime.HandlerNotFound", async () => {
    const { pool } = poolOf({ handlerExport: "missing" });
    expect(await pool.warm()).toMatchObject({
      name: "Runtime.HandlerNotFound",
      message: "index.missing is undefined or not exported",
    });
  });
});

describe("a container is frozen between invocations, as Lambda freezes an environment", () => {
  /** Twenty times the timers' 50 ms: a container left running would have run them long before. */
  const idle = () => new Promise((done) => setTimeout(done, 1000));

  it("a timer left running past the answer runs only once the next invocation thaws it", async () => {
    const { pool } = poolOf();
    await pool.invoke({ later: true });
    await idle();
    const thawed = Date.now();
    const next = seen(await pool.invoke({}));
    expect(next.invocations).toBe(2);
    expect(next.laterRanAt).toBeGreaterThanOrEqual(thawed);
  });

  it("after its init too: a timer the init left runs only at the first invocation", async () => {
    const { pool } = poolOf({}, { warm: 1 }, { POOL_FUNCTION_INIT_TIMER: "1" });
    expect(await pool.warm()).toBeUndefined();
    await idle();
    const thawed = Date.now();
    expect(seen(await pool.invoke({})).laterRanAt).toBeGreaterThanOrEqual(thawed);
  });

  it("the turn that answered ends first: a promise rejected after the answer ends that container, not the next invocation", async () => {
    const { pool, lines } = poolOf({ logFormat: "Text" });
    expect((await pool.invoke({ reject: "after" }, "rejecting")).ok).toBe(true);
    expect(await until(() => pool.size === 0, 5000), "the container ended").toBe(true);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^\S+\trejecting\tERROR\tUnhandled Promise Rejection \t\{"errorType":"Runtime\.UnhandledPromiseRejection","errorMessage":"Error: late rejection"/,
      ),
    );
    const next = await pool.invoke({});
    expect(next).toMatchObject({ ok: true, report: { containerId: 2 } });
  });

  it("the next invocation, sent the moment the answer arrives, never goes to the container that is ending", async () => {
    // A Timeout longer than the test's time limit: the pool must learn of the exit, not wait it out.
    const { pool } = poolOf({ timeoutSeconds: 60 });
    expect((await pool.invoke({ reject: "after" })).ok).toBe(true);
    expect(await pool.invoke({})).toMatchObject({ ok: true, report: { containerId: 2 } });
  }, 20_000);

  it("a promise left rejected by the init fails the init: Runtime.UnhandledPromiseRejection", async () => {
    const { pool } = poolOf({}, {}, { POOL_FUNCTION_INIT_REJECT: "no config" });
    expect(await pool.warm()).toMatchObject({
      name: "Runtime.UnhandledPromiseRejection",
      message: "Error: no config",
    });
  });

  it("a promise rejected and left unhandled while it runs fails the invocation: Runtime.UnhandledPromiseRejection", async () => {
    const { pool, lines } = poolOf({ logFormat: "Text" });
    expect(await pool.invoke({ reject: "during" }, "rejected")).toMatchObject({
      ok: false,
      error: { name: "Runtime.UnhandledPromiseRejection", message: "Error: early rejection" },
    });
    expect(lines.at(-1)).toMatch(
      /\tStatus: error\tError Type: Runtime\.UnhandledPromiseRejection$/,
    );
    expect(await pool.invoke({})).toMatchObject({ ok: true, report: { containerId: 2 } });
  });

  it("a frozen container still ends when the pool closes (a hang fails the test's time limit)", async () => {
    const { pool } = poolOf({}, { warm: 2 });
    await pool.warm();
    expect(pool.size).toBe(2);
    await pool.close();
    expect(pool.size).toBe(0);
  });
});

describe("an init run again within the invocation stays within the pool's bounds", () => {
  it("not once the pool is closed: an invocation whose cold start is cut short by close fails", async () => {
    const { pool } = poolOf({}, {}, { POOL_FUNCTION_INIT_HOLD_MS: "400" });
    const pending = pool.invoke({});
    await new Promise((done) => setTimeout(done, 100));
    await pool.close();
    expect(await pending).toMatchObject({ ok: false, failure: "error" });
    expect(pool.size).toBe(0);
  });

  it("an invocation still waiting for a container when the pool closes fails, and none is started", async () => {
    const { pool } = poolOf({ reservedConcurrency: 1 }, { overflow: "queue" });
    const running = pool.invoke({ holdMs: 300 });
    const waiting = pool.invoke({});
    await new Promise((done) => setTimeout(done, 50));
    await pool.close();
    expect(await waiting).toMatchObject({ ok: false, error: { name: "Local.Stopped" } });
    // The one it ran is cut short by the stop: no failure of the function's.
    expect(await running).toMatchObject({ ok: false, error: { name: "Local.Stopped" } });
    expect(pool.size).toBe(0);
    expect(pool.coldStarts).toBe(1);
  });

  it("a closed pool starts nothing: neither an invocation, nor warm containers", async () => {
    const { pool } = poolOf({}, { warm: 2 });
    await pool.close();
    expect(await pool.invoke({})).toMatchObject({ ok: false, error: { name: "Local.Stopped" } });
    expect(await pool.warm()).toBeUndefined();
    expect(pool.size).toBe(0);
    expect(pool.coldStarts).toBe(0);
  });

  it("never past the concurrency: inits that exit, two invocations queued on one container", async () => {
    const { pool } = poolOf(
      { reservedConcurrency: 1 },
      { overflow: "queue" },
      { POOL_FUNCTION_INIT_EXIT: "3" },
    );
    const sizes: number[] = [];
    const sampler = setInterval(() => sizes.push(pool.size), 2);
    try {
      const outcomes = await Promise.all([pool.invoke({}), pool.invoke({})]);
      for (const outcome of outcomes)
        expect(outcome).toMatchObject({ ok: false, error: { name: "Runtime.ExitError" } });
    } finally {
      clearInterval(sampler);
    }
    expect(Math.max(...sizes)).toBe(1);
  });
});
