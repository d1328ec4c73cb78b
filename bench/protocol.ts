/**
 * What the bench parent (run.ts) and its measuring child processes (child.ts) exchange: a task
 * as the child's one argument, a result as JSON on file descriptor 3 (stdout is the function's
 * own log, which the parent drains as the Lambda runtime would).
 */
import type { APIGatewayProxyEventV2 } from "aws-lambda";

/** What a correct answer looks like; the child checks it so large bodies never cross the pipe. */
export type Expectation =
  | { readonly kind: "list"; readonly count: number }
  | { readonly kind: "create"; readonly name: string }
  /** Uncompressed and over the response limit: the service answers 406, the others send it all. */
  | { readonly kind: "list-or-406"; readonly count: number };

export interface ChildTask {
  /** Absolute path of the bundle (index.mjs) whose `handler` is measured. */
  readonly bundle: string;
  readonly functionName: string;
  readonly event: APIGatewayProxyEventV2;
  /** Invocations after the first that are not recorded (JIT warm-up). */
  readonly warmup: number;
  /** Invocations after the warm-up that are recorded. */
  readonly iterations: number;
  readonly expect: Expectation;
  /**
   * Collect garbage before each invocation (the child runs with --expose-gc), so the peak RSS is
   * one invocation's working set over the baseline, not whatever earlier invocations left for
   * the collector: steadier, for the scaling figures.
   */
  readonly collectGarbage: boolean;
}

export interface Answer {
  readonly status: number;
  /** `content-encoding` of the answer, "identity" when none. */
  readonly encoding: string;
  /** The JSON text's bytes, after undoing base64 and compression. */
  readonly plainBytes: number;
  /** The body as Lambda returns it (base64 text when compressed). */
  readonly bodyBytes: number;
  /** The whole serialized result, which is what Lambda's 6 MB limit applies to. */
  readonly resultBytes: number;
  /** Categories in a list answer. */
  readonly count: number;
  /** SHA-256 of the answer's categories with keys in a fixed order, to compare variants. */
  readonly digest: string;
}

export interface ChildResult {
  /** `import()` of the bundle, after node:http, node:https and node:crypto are loaded. */
  readonly importMs: number;
  readonly firstMs: number;
  /** The recorded invocations' wall times. */
  readonly durationsMs: readonly number[];
  /** The recorded invocations' CPU times (user + system) of the whole process. */
  readonly cpuMs: readonly number[];
  /** process.resourceUsage().maxRSS at the end, in bytes. */
  readonly maxRssBytes: number;
  readonly answer: Answer;
}
