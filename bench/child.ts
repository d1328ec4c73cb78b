/**
 * One measuring process, bundled to plain JavaScript and started fresh for every task inside the
 * cgroup of the size measured: so it holds what a Lambda sandbox holds (Node, the modules the
 * runtime preloads, one function's bundle) and its import runs cold. It times the import, the
 * first call and warm calls, checking every answer; or, for `calibrate`, a fixed CPU-bound loop.
 */
import { writeSync } from "node:fs";
import { pathToFileURL } from "node:url";
import type { APIGatewayProxyEventV2 as Event } from "aws-lambda";
import type { APIGatewayProxyStructuredResultV2 as Result } from "aws-lambda";
import { lambdaContext } from "../local/apiGateway.ts";
import { lambdaBodyText } from "../lib/bodyText.ts";

/** Warm calls: at least `minCalls`, then until `budgetMs` is spent or `maxCalls` is reached. */
export type Calls = Record<"minCalls" | "maxCalls" | "budgetMs", number>;
export type MeasureTask = Calls & {
  bundle: string;
  functionName: string;
  event: Event;
  /** Every answer must be a create of this name, or all `count` categories in id order. */
  expect: { name: string } | { count: number };
  /** Idle before the import, so it starts on a fresh CPU period whatever Node's startup used. */
  settleMs: number;
};
export type ChildTask = MeasureTask | { calibrate: number };
export type MeasureResult = Record<"importMs" | "firstMs" | "maxRssBytes", number> & {
  durationsMs: number[];
};
export type CalibrateResult = { wallMs: number; cpuMs: number };

function check(result: Result, expect: MeasureTask["expect"]): void {
  const text = lambdaBodyText(result);
  const body = JSON.parse(text) as { name?: unknown } | { id?: unknown }[];
  const right =
    "name" in expect
      ? result.statusCode === 201 && !Array.isArray(body) && body.name === expect.name
      : (result.statusCode ?? 200) === 200 &&
        Array.isArray(body) &&
        body.length === expect.count &&
        body.every((category, index) => category.id === index + 1);
  if (!right) throw new Error(`wrong answer (${String(result.statusCode)}): ${text.slice(0, 200)}`);
}

async function measure(task: MeasureTask): Promise<MeasureResult> {
  await new Promise((settled) => setTimeout(settled, task.settleMs));
  const importStart = performance.now();
  type Handler = (event: unknown, context: unknown) => Promise<Result>;
  const { handler } = (await import(pathToFileURL(task.bundle).href)) as { handler: Handler };
  const importMs = performance.now() - importStart;
  // The first answer is decoded and checked in full; every later list must be the same answer
  // (status, coding and body as they are; only its rate-limit headers change). Decoding each
  // warm answer here (a brotli list of 10,000 is 1 MB of JSON to parse) left its garbage to be
  // collected inside the next timed call, which a Lambda, whose answers leave the process, never
  // pays for. Creates are each checked in full (each is a new category).
  let first: Result | undefined;
  const same = (a: Result, b: Result) =>
    a.statusCode === b.statusCode &&
    a.body === b.body &&
    a.headers?.["content-encoding"] === b.headers?.["content-encoding"];
  const call = async (): Promise<number> => {
    const event = structuredClone(task.event);
    const start = performance.now();
    const result = await handler(event, lambdaContext(task.functionName, 10));
    const ms = performance.now() - start;
    if ("name" in task.expect || first === undefined) check(result, task.expect);
    else if (!same(result, first)) throw new Error("wrong answer: a steady list changed");
    if (!("name" in task.expect)) first ??= result;
    return ms;
  };
  const firstMs = await call();
  const [durationsMs, until] = [[] as number[], performance.now() + task.budgetMs];
  const more = (n: number) => n < task.minCalls || (n < task.maxCalls && performance.now() < until);
  while (more(durationsMs.length)) durationsMs.push(await call());
  return { importMs, firstMs, durationsMs, maxRssBytes: process.resourceUsage().maxRSS * 1024 };
}

/** A fixed amount of integer arithmetic: the same CPU work wherever it runs. */
function calibrate(rounds: number): CalibrateResult {
  const [cpuStart, start] = [process.cpuUsage(), performance.now()];
  let x = 1;
  for (let i = 0; i < rounds; i++) x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
  const wallMs = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  if (x === 0.5) throw new Error("unreachable: keeps the loop from being optimised away");
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000 };
}

// The Lambda runtime has loaded these before it imports the handler. Dynamic imports on purpose:
// a bundler may drop a side-effect-only `import "node:http"` as unused.
await Promise.all([import("node:http"), import("node:https"), import("node:crypto")]);
const task = JSON.parse(process.argv[2] ?? "") as ChildTask;
// fd 3: stdout is the function's own log, which the parent sends to a file.
writeSync(3, JSON.stringify("calibrate" in task ? calibrate(task.calibrate) : await measure(task)));
// Keep-alive sockets to the store would hold the process open; the parent has what it needs.
process.exit(0);
