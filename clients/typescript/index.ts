/**
 * A typed client for the Pet Store categories API: openapi-fetch over the types generated from
 * openapi.yaml (schema.ts), with the API key sent as a bearer token on every request and
 * creates that are safe to retry (one `Idempotency-Key` across every attempt).
 */
import createClient from "openapi-fetch";
import type { Client, Middleware } from "openapi-fetch";
import type { components, paths } from "./schema.ts";

export type { components, paths };
export type Category = components["schemas"]["Category"];
export type NewCategory = components["schemas"]["NewCategory"];
/** The service's own error answer, `{code, message, status}`. */
export type ServiceError = components["schemas"]["Error"];
export type ErrorCode = ServiceError["code"];
/** An answer API Gateway gives itself (throttling, timeouts, bodies over 10 MB): `{message}`. */
export type GatewayMessage = components["schemas"]["GatewayMessage"];
export type PetstoreClient = Client<paths>;

export interface PetstoreClientOptions {
  /** The base address, `/v1` included, e.g. `http://127.0.0.1:3000/v1`. */
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Another fetch (tests, proxies); the global one by default. */
  readonly fetch?: (request: Request) => Promise<Response>;
}

/** Sends `Authorization: Bearer <apiKey>` on every request. */
export function bearerAuth(apiKey: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set("Authorization", `Bearer ${apiKey}`);
      return request;
    },
  };
}

export function createPetstoreClient(options: PetstoreClientOptions): PetstoreClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    ...(options.fetch && { fetch: options.fetch }),
  });
  client.use(bearerAuth(options.apiKey));
  return client;
}

/** True for the service's errors (they have `code`); false for API Gateway's `{message}`. */
export function isServiceError<E extends object>(error: E): error is Extract<E, ServiceError> {
  return "code" in error;
}

/** A fresh `Idempotency-Key`. Send the same one on every retry of one create. */
export function newIdempotencyKey(): string {
  return crypto.randomUUID();
}

/** Answers worth retrying with the same key: in progress, throttled, unavailable, timed out. */
const retryableStatuses = new Set([409, 429, 503, 504]);

export interface CreateOptions {
  /** Reuse a key (e.g. one stored before a crash); a fresh one by default. */
  readonly idempotencyKey?: string;
  /** Attempts in all, the first included (default 4). */
  readonly attempts?: number;
  /** Delay before a retry when the answer names none (`Retry-After`); doubled each time. */
  readonly baseDelayMs?: number;
}

/**
 * Creates a category, retrying throttled, busy or unavailable answers with the same
 * `Idempotency-Key`, so that however many attempts it takes, at most one category is stored.
 */
export async function createCategory(
  client: PetstoreClient,
  category: NewCategory,
  options: CreateOptions = {},
): ReturnType<PetstoreClient["POST"]> {
  const idempotencyKey = options.idempotencyKey ?? newIdempotencyKey();
  const attempts = options.attempts ?? 4;
  for (let attempt = 1; ; attempt += 1) {
    const result = await client.POST("/categories", {
      body: category,
      params: { header: { "Idempotency-Key": idempotencyKey } },
    });
    if (attempt >= attempts || !retryableStatuses.has(result.response.status)) return result;
    await sleep(retryDelayMs(result.response, attempt, options.baseDelayMs ?? 200));
  }
}

function retryDelayMs(response: Response, attempt: number, baseDelayMs: number): number {
  const retryAfter = Number(response.headers.get("retry-after") ?? Number.NaN);
  if (Number.isFinite(retryAfter) && retryAfter >= 0) return retryAfter * 1000;
  return baseDelayMs * 2 ** (attempt - 1) * (0.5 + Math.random() / 2);
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
