/**
 * One structured JSON line per request. Written straight to stdout so the line is the same in
 * Lambda (captured as is into CloudWatch) and locally; nothing here ever receives a key or hash.
 */
import type { Clock } from "./clock.ts";
import { readableStack } from "./stackTrace.ts";

export interface RequestLogLine {
  /** API Gateway's request id: the answer's Request-Id and the access log's requestId. */
  readonly requestId: string;
  /** Lambda's own request id (the platform's START/END/REPORT lines name it). */
  readonly lambdaRequestId?: string | undefined;
  readonly route: string;
  readonly method: string;
  readonly status: number;
  readonly latencyMs: number;
  readonly code?: string | undefined;
  readonly keyId?: string | undefined;
  /** The key was issued before the key format (docs/security.md, "Legacy keys"). */
  readonly legacyKey?: true | undefined;
  readonly replayed?: boolean | undefined;
  /** The key's rate limit could not be checked and the request was admitted: why. */
  readonly rateLimitFailedOpen?: string | undefined;
  /** Only for 500 and 503: what went wrong, for the operator. Never sent to the client. */
  readonly detail?: string | undefined;
}

export type LogSink = (line: string) => void;

export const stdoutSink: LogSink = (line) => {
  process.stdout.write(`${line}\n`);
};

export interface RequestLog {
  write(entry: RequestLogLine): void;
}

export class RequestLogger implements RequestLog {
  readonly #sink: LogSink;
  readonly #now: Clock;

  constructor(sink: LogSink, now: Clock) {
    this.#sink = sink;
    this.#now = now;
  }

  write(entry: RequestLogLine): void {
    const level =
      entry.detail !== undefined
        ? "ERROR"
        : entry.status >= 400 || entry.rateLimitFailedOpen !== undefined
          ? "WARN"
          : "INFO";
    this.#sink(JSON.stringify({ time: new Date(this.#now()).toISOString(), level, ...entry }));
  }
}

/** The operator's view of an unexpected error: its chain of messages and the first stack, mapped to source. */
export function describeFailure(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 5; depth++) {
    if (current instanceof Error) {
      parts.push(
        depth === 0 && current.stack
          ? readableStack(current.stack)
          : `${current.name}: ${current.message}`,
      );
      current = current.cause;
    } else {
      parts.push(typeof current === "string" ? current : JSON.stringify(current));
      current = undefined;
    }
  }
  return parts.join("\ncaused by: ");
}
