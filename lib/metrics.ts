/**
 * The service's own CloudWatch metrics, written as Embedded Metric Format (EMF) lines on stdout:
 * CloudWatch Logs turns each line into metric data points, so publishing costs no API call, no
 * SDK and no time in the request path beyond one JSON.stringify per invocation. Each document is
 * one raw `process.stdout.write` line, never `console.*`, which the Lambda runtime wraps in its
 * own JSON under `LogFormat: JSON` (CloudWatch would then extract no metric).
 *
 * Written by hand, not with @aws-lambda-powertools/metrics (which wrote the same documents here
 * before): the benchmark showed a reason. Its import cost 2.0-3.2 ms more per cold start at
 * 1,769 MB (list 6.5 against 4.6 ms, create 8.3 against 5.1; bench/results.json, "ours without
 * metrics") and 3.8-6.3 ms at 512 MB, which alone took both functions over the import-time target
 * (0.134x the typical stack's against <= 0.1x). What it does that this module needs is small:
 * eight counters with fixed names, three fixed dimensions (four on Errors), far under EMF's
 * 100-metric / 30-dimension limits, and a cold-start count on on-demand containers only.
 *
 * Every metric carries the dimensions service, stage and function; `Errors` also `code`. Each
 * document also names the invocation's request id (API Gateway's, as the request log line does)
 * as a plain property, not a dimension, so a metric line is found with its request.
 * infra/template.yaml's alarms and dashboard name these exact metrics (test/infra checks it).
 */
import type { MiddlewareObj } from "@middy/core";
import type { Context } from "aws-lambda";
import type { Clock } from "./clock.ts";
import { systemClock } from "./clock.ts";

export const metricsNamespace = "PetStore";
export const metricsService = "petstore";

/** Every metric name this module emits. */
export const metricNames = {
  categoriesCreated: "CategoriesCreated",
  /** A create answered with the stored answer of an earlier request (Idempotency-Key). */
  idempotentReplays: "IdempotentReplays",
  /** One answer with the Error shape, by its `code` (e.g. "unauthorized", "service_unavailable"). */
  errors: "Errors",
  /** One more attempt at a store call after a retryable fault. */
  storeRetries: "StoreRetries",
  /** A store call gave up: the request answers 503. */
  storeUnavailable: "StoreUnavailable",
  /** How many categories a list answer carried (the value counted). */
  listSize: "ListSize",
  /** A request refused by its key's rate limit (429). */
  rateLimited: "RateLimited",
  /** A request admitted because its key's rate limit bucket could not be reached in time. */
  rateLimitFailOpen: "RateLimitFailOpen",
  /** Once per on-demand container, on its first invocation. */
  coldStart: "ColdStart",
} as const;

/** The metrics a request adds to its invocation's document (the other two have their own). */
export type CountedMetric = Exclude<keyof typeof metricNames, "errors" | "coldStart">;

const dimensions = ["service", "stage", "function"] as const;

/** The dimension names a metric is emitted with (the dashboard's SEARCH schemas must match). */
export function dimensionsOf(name: string): readonly string[] {
  return name === metricNames.errors ? [...dimensions, "code"] : dimensions;
}

export interface MetricsOptions {
  /** The operation, e.g. "createCategory": the `function` dimension. */
  readonly function: string;
  /** The deployment stage (lib/config.ts reads it from STAGE). */
  readonly stage: string;
  /**
   * AWS_LAMBDA_INITIALIZATION_TYPE: a cold start is counted for "on-demand" containers only, not
   * provisioned concurrency or SnapStart, whose initialisation no caller waits for.
   */
  readonly initializationType?: string | undefined;
  /** The EMF documents' timestamps. */
  readonly now?: Clock;
}

export interface ServiceMetrics {
  /** Adds `value` (default 1) to one of this invocation's metrics. */
  count(metric: CountedMetric, value?: number): void;
  /** One answer with the Error shape, by its `code`. */
  error(code: string): void;
  /** Writes what this invocation recorded (nothing when it recorded nothing). */
  flush(): void;
  /**
   * middy middleware: the cold-start metric before, flush after (and on error). Use it first, so
   * that its flush runs last, after the error answer is counted: once per invocation.
   */
  middleware<Event, Result, Err extends Error, Ctx extends Context>(): MiddlewareObj<
    Event,
    Result,
    Err,
    Ctx
  >;
}

export function createMetrics(options: MetricsOptions): ServiceMetrics {
  const now = options.now ?? systemClock;
  const fixed = { service: metricsService, stage: options.stage, function: options.function };
  /** This invocation's values by metric name; a name recorded twice is written as a list. */
  const recorded = new Map<string, number[]>();
  let coldStart = options.initializationType === "on-demand";
  /** API Gateway's id of the request being served, set by the middleware's `before`. */
  let requestId: string | undefined;

  const emit = (
    values: ReadonlyMap<string, readonly number[]>,
    extra: Record<string, string> = {},
  ) => {
    const document = {
      _aws: {
        Timestamp: now(),
        CloudWatchMetrics: [
          {
            Namespace: metricsNamespace,
            Dimensions: [[...dimensions, ...Object.keys(extra)]],
            Metrics: [...values.keys()].map((name) => ({ Name: name, Unit: "Count" })),
          },
        ],
      },
      ...fixed,
      ...(requestId !== undefined && { requestId }),
      ...extra,
      ...Object.fromEntries(
        [...values].map(([name, list]) => [name, list.length === 1 ? list[0] : list]),
      ),
    };
    process.stdout.write(`${JSON.stringify(document)}\n`);
  };
  const count = (metric: CountedMetric, value = 1): void => {
    const name = metricNames[metric];
    const list = recorded.get(name);
    if (list) list.push(value);
    else recorded.set(name, [value]);
  };
  const flush = (): void => {
    if (recorded.size === 0) return;
    emit(recorded);
    recorded.clear();
  };
  return {
    count,
    // Its own document: `code` must not become a dimension of the invocation's other metrics.
    error: (code) => {
      emit(new Map([[metricNames.errors, [1]]]), { code });
    },
    flush,
    middleware: () => ({
      before: (request) => {
        const event = request.event as { requestContext?: { requestId?: unknown } } | undefined;
        const id = event?.requestContext?.requestId;
        requestId = typeof id === "string" && id !== "" ? id : undefined;
        if (!coldStart) return;
        coldStart = false;
        emit(new Map([[metricNames.coldStart, [1]]]));
      },
      after: flush,
      onError: flush,
    }),
  };
}
