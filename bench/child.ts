/**
 * One measuring process, started fresh by run.ts for every sample that needs a cold process.
 * Bundled to plain JavaScript by the bench before use, so no TypeScript loader runs in here and
 * the process holds what a Lambda runtime holds: Node, the modules the runtime loads itself
 * (node:http, node:https, node:crypto) and the function's bundle.
 *
 * Measures, in order: the bundle's import (its init phase), the first invocation, `warmup`
 * unrecorded invocations, `iterations` recorded ones, and the process's peak RSS. Every answer's
 * status is checked; the last is checked in full against the task's expectation.
 */
import { createHash } from "node:crypto";
import { writeSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import type { APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import { lambdaContext } from "../local/apiGateway.ts";
import type { Answer, ChildResult, ChildTask, Expectation } from "./protocol.ts";

type Result = APIGatewayProxyStructuredResultV2;
type Handler = (event: unknown, context: Context) => Promise<Result>;

function contextFor(functionName: string): Context {
  return lambdaContext(functionName, 10);
}

function fail(message: string): never {
  throw new Error(`wrong answer: ${message}`);
}

function expectedStatus(expect: Expectation): number {
  return expect.kind === "create" ? 201 : 200;
}

interface Category {
  readonly id: number;
  readonly name: string;
  readonly description?: string;
}

function decode(result: Result): { text: string; encoding: string } {
  const headers = result.headers ?? {};
  const encoding = String(headers["content-encoding"] ?? "identity");
  const body = result.body ?? "";
  if (!result.isBase64Encoded) return { text: body, encoding };
  const bytes = Buffer.from(body, "base64");
  const plain =
    encoding === "br"
      ? brotliDecompressSync(bytes)
      : encoding === "gzip"
        ? gunzipSync(bytes)
        : bytes;
  return { text: plain.toString("utf8"), encoding };
}

/** Checks a whole answer against the expectation and sums it up. */
function check(result: Result, expect: Expectation): Answer {
  const status = result.statusCode ?? 200;
  const { text, encoding } = decode(result);
  const summary = {
    status,
    encoding,
    plainBytes: Buffer.byteLength(text),
    bodyBytes: Buffer.byteLength(result.body ?? ""),
    resultBytes: Buffer.byteLength(JSON.stringify(result)),
  };
  if (expect.kind === "list-or-406" && status === 406) {
    return { ...summary, count: 0, digest: "" };
  }
  if (status !== expectedStatus(expect)) fail(`status ${status}: ${text.slice(0, 200)}`);
  const parsed = JSON.parse(text) as unknown;
  if (expect.kind === "create") {
    const category = parsed as Partial<Category>;
    if (typeof category.id !== "number" || category.name !== expect.name) {
      fail(`created ${text.slice(0, 200)}`);
    }
    return { ...summary, count: 1, digest: "" };
  }
  if (!Array.isArray(parsed)) fail("the list is not an array");
  const categories = parsed as Category[];
  if (categories.length !== expect.count) {
    fail(`${categories.length} categories, expected ${expect.count}`);
  }
  const digest = createHash("sha256");
  categories.forEach((category, index) => {
    if (category.id !== index + 1 || typeof category.name !== "string") {
      fail(`category ${index} is ${JSON.stringify(category).slice(0, 200)}`);
    }
    digest.update(JSON.stringify([category.id, category.name, category.description]));
  });
  return { ...summary, count: categories.length, digest: digest.digest("hex") };
}

function statusOf(result: Result, expect: Expectation): void {
  const status = result.statusCode ?? 200;
  if (status === expectedStatus(expect)) return;
  if (expect.kind === "list-or-406" && status === 406) return;
  fail(`status ${status}: ${String(result.body).slice(0, 200)}`);
}

/** Present when the process runs with --expose-gc. */
const collectGarbage = (globalThis as { gc?: () => void }).gc;

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** The first invocation; its answer is kept only when it is the one to check in full. */
async function invokeFirst(
  handler: Handler,
  task: ChildTask,
): Promise<{ firstMs: number; kept: Result | undefined }> {
  const context = contextFor(task.functionName);
  if (task.collectGarbage) collectGarbage?.();
  const start = performance.now();
  const result = await handler(structuredClone(task.event), context);
  const firstMs = performance.now() - start;
  statusOf(result, task.expect);
  return { firstMs, kept: task.iterations === 0 ? result : undefined };
}

async function measure(task: ChildTask): Promise<ChildResult> {
  const importStart = performance.now();
  const module = (await import(pathToFileURL(task.bundle).href)) as { handler?: Handler };
  const importMs = performance.now() - importStart;
  const handler = module.handler;
  if (typeof handler !== "function") throw new Error(`${task.bundle} exports no handler`);

  const { firstMs, kept } = await invokeFirst(handler, task);
  let last = kept;
  for (let i = 0; i < task.warmup; i++) {
    statusOf(
      await handler(structuredClone(task.event), contextFor(task.functionName)),
      task.expect,
    );
  }
  const durationsMs: number[] = [];
  const cpuMs: number[] = [];
  for (let i = 0; i < task.iterations; i++) {
    if (task.collectGarbage) collectGarbage?.();
    const event = structuredClone(task.event);
    const context = contextFor(task.functionName);
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    const result = await handler(event, context);
    durationsMs.push(performance.now() - start);
    cpuMs.push(cpuMsSince(cpuStart));
    statusOf(result, task.expect);
    // Lambda drops a result once it is sent: hold only the last, so the peak is one request's.
    if (i === task.iterations - 1) last = result;
  }
  // Read before the full check, which decodes and parses the body on top.
  const maxRssBytes = process.resourceUsage().maxRSS * 1024;
  if (!last) throw new Error("no answer to check");
  return { importMs, firstMs, durationsMs, cpuMs, maxRssBytes, answer: check(last, task.expect) };
}

// The Lambda runtime has loaded these before it imports the handler. Dynamic imports on purpose:
// a bundler may drop a side-effect-only `import "node:http"` as unused.
await Promise.all([import("node:http"), import("node:https"), import("node:crypto")]);
const task = JSON.parse(process.argv[2] ?? "") as ChildTask;
const result = await measure(task);
writeSync(3, JSON.stringify(result));
// Keep-alive sockets to the store would hold the process open; the parent has what it needs.
process.exit(0);
