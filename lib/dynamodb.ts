/**
 * A minimal DynamoDB JSON-protocol client: SigV4 signing (./sigv4.ts), a keep-alive `node:https`
 * agent, and retries with full-jitter backoff bounded by the request's deadline.
 *
 * Written by hand on purpose: `@aws-sdk/client-dynamodb` costs ~75 ms to import on this machine
 * (bundled and minified), most of a cold start, while a signer + the runtime's own `node:https`
 * costs ~2 ms. The service makes five kinds of call with flat items, which needs none of the
 * SDK's generality. Everything that talks to the table goes through `call`, so there is one
 * signing path and one retry policy; what each answer means is classified in lib/table/errors.ts.
 */
import http from "node:http";
import https from "node:https";
import type { Clock } from "./clock.ts";
import { systemClock } from "./clock.ts";
import { StoreUnavailableError } from "./errors.ts";
import type { AwsCredentials } from "./sigv4.ts";
import { signPost } from "./sigv4.ts";
import { isRetryable, readAnswer, TransportError } from "./table/errors.ts";

export type { AwsCredentials } from "./sigv4.ts";
export type CredentialSource = () => Promise<AwsCredentials>;

export interface AttributeValue {
  readonly S?: string;
  readonly N?: string;
  readonly BOOL?: boolean;
}
export type Item = Readonly<Record<string, AttributeValue>>;

export interface DynamoDbOptions {
  readonly region: string;
  /** e.g. http://127.0.0.1:4567 for the embedded server; default: the regional endpoint. */
  readonly endpoint?: string | undefined;
  readonly credentials: CredentialSource;
  readonly attemptTimeoutMs?: number;
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  readonly now?: Clock;
  /** Told of each retried attempt and of each call that gives up (lib/metrics.ts counts them). */
  readonly onRetry?: () => void;
  readonly onGiveUp?: () => void;
}

/** Smallest useful remaining budget for one more attempt. */
const minAttemptMs = 20;

/** An attempt the client's own timer ended: no answer in time. */
class TimedOut extends TransportError {}

export class DynamoDb {
  readonly #url: URL;
  readonly #region: string;
  readonly #credentials: CredentialSource;
  readonly #agent: http.Agent;
  readonly #request: typeof http.request;
  readonly #attemptTimeoutMs: number;
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #now: Clock;
  readonly #onRetry: () => void;
  readonly #onGiveUp: () => void;

  constructor(options: DynamoDbOptions) {
    this.#region = options.region;
    this.#url = new URL(options.endpoint ?? `https://dynamodb.${options.region}.amazonaws.com`);
    this.#credentials = options.credentials;
    const secure = this.#url.protocol === "https:";
    // Keep-alive saves a TLS handshake (~several ms in AWS) on every warm call.
    this.#agent = secure
      ? new https.Agent({ keepAlive: true, maxSockets: 64 })
      : new http.Agent({ keepAlive: true, maxSockets: 64 });
    this.#request = secure ? https.request : http.request;
    this.#attemptTimeoutMs = options.attemptTimeoutMs ?? 2000;
    this.#baseDelayMs = options.baseDelayMs ?? 20;
    this.#maxDelayMs = options.maxDelayMs ?? 1000;
    this.#now = options.now ?? systemClock;
    this.#onRetry = options.onRetry ?? (() => undefined);
    this.#onGiveUp = options.onGiveUp ?? (() => undefined);
  }

  /**
   * Calls one DynamoDB operation, retrying throttling, 5xx and transport faults until `deadline`
   * (epoch ms). Non-retryable DynamoDB errors are thrown as DynamoDbError at once; a budget spent
   * on retries ends in StoreUnavailableError.
   */
  async call<Output>(operation: string, input: object, deadline: number): Promise<Output> {
    const body = JSON.stringify(input);
    // The cause a give-up reports: the last fault that says something about the store. An
    // attempt the deadline cut short (its timer shorter than a whole attempt's) and that timed
    // out says only that the budget ran out: the fault before it, a ThrottlingException for
    // instance, stays the cause, and the message says the last attempt was cut short.
    let lastFault: unknown;
    let cutShortMs: number | undefined;
    for (let attempt = 0; ; attempt++) {
      const remaining = deadline - this.#now();
      if (remaining < minAttemptMs) {
        const cause = lastFault ?? new TransportError("no time left for an attempt");
        throw this.#giveUp(operation, attempt, cause, cutShortMs);
      }
      if (attempt > 0) this.#onRetry();
      const timeout = Math.min(this.#attemptTimeoutMs, remaining);
      try {
        return (await this.#send(operation, body, timeout)) as Output;
      } catch (error) {
        if (!isRetryable(error)) throw error;
        const cutShort = error instanceof TimedOut && timeout < this.#attemptTimeoutMs;
        cutShortMs = cutShort ? timeout : undefined;
        if (!cutShort || lastFault === undefined) lastFault = error;
        const ceiling = Math.min(this.#maxDelayMs, this.#baseDelayMs * 2 ** attempt);
        const delay = Math.floor(Math.random() * ceiling);
        if (this.#now() + delay + minAttemptMs >= deadline) {
          throw this.#giveUp(operation, attempt + 1, lastFault, cutShortMs);
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  #giveUp(
    operation: string,
    attempts: number,
    cause: unknown,
    cutShortMs: number | undefined,
  ): StoreUnavailableError {
    this.#onGiveUp();
    const last =
      cutShortMs === undefined ? "" : `, the last cut short at ${cutShortMs} ms by the deadline`;
    return new StoreUnavailableError(
      `DynamoDB ${operation} still failing after ${attempts} attempt(s)${last}`,
      { cause },
    );
  }

  /** Closes idle keep-alive sockets (tests and CLIs, so the process can exit). */
  close(): void {
    this.#agent.destroy();
  }

  async #send(operation: string, body: string, timeoutMs: number): Promise<unknown> {
    const headers = signPost(
      {
        host: this.#url.host,
        service: "dynamodb",
        region: this.#region,
        headers: {
          "content-type": "application/x-amz-json-1.0",
          "x-amz-target": `DynamoDB_20120810.${operation}`,
        },
        body,
      },
      await this.#credentials(),
      this.#now(),
    );
    return new Promise((resolve, reject) => {
      const request = this.#request(
        {
          protocol: this.#url.protocol,
          hostname: this.#url.hostname,
          port: this.#url.port,
          path: "/",
          method: "POST",
          headers,
          agent: this.#agent,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("error", (error) => {
            reject(new TransportError(error.message));
          });
          response.on("end", () => {
            clearTimeout(timer);
            try {
              resolve(readAnswer(response.statusCode ?? 0, Buffer.concat(chunks).toString()));
            } catch (error) {
              reject(error instanceof Error ? error : new TransportError(String(error)));
            }
          });
        },
      );
      // A hard per-attempt timer: a socket timeout would reset on every trickled byte.
      const timer = setTimeout(() => {
        request.destroy(new TimedOut(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      request.on("error", (error) => {
        clearTimeout(timer);
        reject(error instanceof TransportError ? error : new TransportError(error.message));
      });
      request.end(body);
    });
  }
}

/** Credentials from the Lambda environment (or the local server's placeholders). */
export function environmentCredentials(
  env: Readonly<Record<string, string | undefined>>,
): CredentialSource {
  const sessionToken = env.AWS_SESSION_TOKEN;
  const credentials: AwsCredentials = {
    accessKeyId: env.AWS_ACCESS_KEY_ID ?? "",
    secretAccessKey: env.AWS_SECRET_ACCESS_KEY ?? "",
    ...(sessionToken && { sessionToken }),
  };
  return () => Promise.resolve(credentials);
}
