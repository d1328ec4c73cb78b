/**
 * A raw HTTP client for the local server: exact control over headers and body bytes (fetch would
 * add and decode Accept-Encoding on its own), decoding of gzip/br answers, and a check of every
 * response against openapi.yaml.
 */
import { request } from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { assertMatchesOpenApi } from "./openapi.ts";

export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The body as sent on the wire (possibly compressed). */
  readonly raw: Buffer;
  /** The body decoded from its content-encoding, as text. */
  readonly text: string;
  /** The decoded body parsed as JSON, typed by the caller (test code: the shape is asserted next). */
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
  json<T = unknown>(): T;
}

export interface Call {
  readonly method?: string;
  /** Path with the /v1 prefix, e.g. "/v1/categories". */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string | string[]>>;
  readonly body?: string | Buffer;
  /** Bearer key shorthand; `null` sends no Authorization header. */
  readonly key?: string | null;
}

export async function send(baseUrl: string, call: Call): Promise<Answer> {
  const origin = new URL(baseUrl);
  const headers: Record<string, string | string[]> = { ...call.headers };
  if (call.key) headers.authorization = `Bearer ${call.key}`;
  // node:http sends DELETE bodies without framing unless told their length.
  if (call.body !== undefined) headers["content-length"] = String(Buffer.byteLength(call.body));
  const method = call.method ?? "GET";
  const answer = await new Promise<{
    status: number;
    headers: Record<string, string>;
    raw: Buffer;
  }>((resolve, reject) => {
    const req = request(
      { hostname: origin.hostname, port: origin.port, path: call.path, method, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const flat: Record<string, string> = {};
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
          }
          resolve({ status: res.statusCode ?? 0, headers: flat, raw: Buffer.concat(chunks) });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(call.body);
  });
  const encoding = answer.headers["content-encoding"];
  const decoded =
    encoding === "gzip"
      ? gunzipSync(answer.raw)
      : encoding === "br"
        ? brotliDecompressSync(answer.raw)
        : answer.raw;
  const text = decoded.toString("utf8");
  assertMatchesOpenApi({
    method,
    path: call.path,
    status: answer.status,
    headers: answer.headers,
    body: text,
  });
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
  return { ...answer, text, json: <T>() => JSON.parse(text) as T };
}

export interface Category {
  readonly id: number;
  readonly name: string;
  readonly description?: string;
}

export interface ErrorBody {
  readonly code: string;
  readonly message: string;
  readonly status: number;
}

/** A JSON POST to /v1/categories. */
export function createCategory(
  baseUrl: string,
  key: string | null,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return send(baseUrl, {
    method: "POST",
    path: "/v1/categories",
    key,
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

export async function listCategories(baseUrl: string, key: string): Promise<Category[]> {
  const answer = await send(baseUrl, {
    path: "/v1/categories",
    key,
    headers: { "accept-encoding": "br" },
  });
  if (answer.status !== 200) throw new Error(`list answered ${answer.status}: ${answer.text}`);
  return answer.json<Category[]>();
}

/** Runs `task` over `items` with at most `limit` in flight. */
export async function inParallel<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
