/**
 * Reading the CloudWatch Embedded Metric Format (EMF) lines lib/metrics.ts writes: each one JSON
 * document on its own stdout line, `_aws.CloudWatchMetrics` naming the namespace, the dimension
 * set and the metrics, and the values at the top level, where CloudWatch reads them.
 */
import { afterAll, beforeAll } from "vitest";
import { isEmfLine } from "../../local/serverProcess.ts";

export { isEmfLine };

export interface EmfDocument {
  readonly _aws: {
    readonly Timestamp: number;
    readonly CloudWatchMetrics: readonly {
      readonly Namespace: string;
      readonly Dimensions: readonly (readonly string[])[];
      readonly Metrics: readonly { readonly Name: string; readonly Unit: string }[];
    }[];
  };
  readonly [field: string]: unknown;
}

/** What a document declares: its namespace, metric names and (sorted) dimension names. */
export interface Declared {
  readonly namespace: string | undefined;
  readonly names: string[];
  readonly dimensions: string[];
}

export function parseEmf(line: string): EmfDocument {
  if (!isEmfLine(line)) throw new Error(`not an EMF line: ${line}`);
  return JSON.parse(line) as EmfDocument;
}

export function declared(document: EmfDocument): Declared {
  const [directive] = document._aws.CloudWatchMetrics;
  return {
    namespace: directive?.Namespace,
    names: (directive?.Metrics ?? []).map((metric) => metric.Name),
    dimensions: [...(directive?.Dimensions[0] ?? [])].sort(),
  };
}

/** The documents among `lines` that declare the metric `name`. */
export function declaring(lines: readonly string[], name: string): EmfDocument[] {
  return lines
    .filter(isEmfLine)
    .map(parseEmf)
    .filter((document) => declared(document).names.includes(name));
}

/** A metric's value; lib/metrics.ts writes a list when one invocation records it more than once. */
export function total(document: EmfDocument | undefined, name: string): number {
  const value = document?.[name];
  const values: unknown[] = Array.isArray(value) ? value : [value];
  return values.reduce<number>((sum, v) => sum + Number(v), 0);
}

/**
 * For tests that run handlers in this process: the EMF lines they write to stdout are kept in
 * the returned list instead of cluttering the test output. The bundles' lines are checked in
 * test/functions/metrics.test.ts.
 */
export function divertEmfLines(): string[] {
  const lines: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  beforeAll(() => {
    process.stdout.write = (chunk: string | Uint8Array, ...rest: never[]) => {
      const text = String(chunk);
      if (!isEmfLine(text)) return write(chunk, ...rest);
      lines.push(...text.split("\n").filter(Boolean));
      return true;
    };
  });
  afterAll(() => {
    process.stdout.write = write;
  });
  return lines;
}
