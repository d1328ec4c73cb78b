/**
 * The one HTTP client of the project's scripts and tests (load, smoke, the HTTP tests): exact
 * control over headers and body bytes (fetch would add and decode Accept-Encoding on its own),
 * keep-alive when asked, and the one decoder of gzip/br bodies, also used for Lambda results.
 */
import http from "node:http";
import https from "node:https";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import type { Category } from "../../lib/repositories/categories.ts";

export type { Category };

export interface ErrorBody {
  readonly code: string;
  readonly message: string;
  readonly status: number;
}

/** A body as text, undoing its Content-Encoding (gzip or br; anything else is taken as is). */
export function decodeBody(bytes: Buffer, encoding: string | undefined): string {
  const plain =
    encoding === "gzip"
      ? gunzipSync(bytes)
      : encoding === "br"
        ? brotliDecompressSync(bytes)
        : bytes;
  return plain.toString("utf8");
}

/** A Lambda proxy result's body as text, undoing base64 and Content-Encoding. */
export function lambdaBodyText(result: {
  readonly body?: string | undefined;
  readonly isBase64Encoded?: boolean | undefined;
  readonly headers?: Readonly<Record<string, unknown>> | undefined;
}): string {
  const body = result.body ?? "";
  if (result.isBase64Encoded !== true) return body;
  const encoding = result.headers?.["content-encoding"];
  return decodeBody(
    Buffer.from(body, "base64"),
    typeof encoding === "string" ? encoding : undefined,
  );
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

export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The body as sent on the wire (possibly compressed). */
  readonly raw: Buffer;
  /** The body decoded from its content-encoding, as text. */
  readonly text: string;
  /** The decoded body parsed as JSON, typed by the caller, who checks the shape next. */
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
  json<T = unknown>(): T;
}

export interface SendOptions {
  /** A keep-alive agent from `agentFor`; the default agent otherwise. */
  readonly agent?: http.Agent;
  readonly timeoutMs?: number;
  /** Called with every exchange before it is returned (the tests check it against openapi.yaml). */
  readonly check?: (exchange: {
    method: string;
    path: string;
    status: number;
    headers: Readonly<Record<string, string>>;
    body: string;
  }) => void;
}

export function agentFor(baseUrl: string, sockets: number): http.Agent {
  const options = { keepAlive: true, maxSockets: sockets };
  return new URL(baseUrl).protocol === "https:"
    ? new https.Agent(options)
    : new http.Agent(options);
}

/**
 * Sends `call` to the base URL's origin, under its path prefix if any ("https://host/pets/v1"
 * sends "/v1/categories" to "/pets/v1/categories"). The path is joined as text, never through
 * `new URL`, which would read a path starting "//" as a host.
 */
export async function send(
  baseUrl: string,
  call: Call,
  options: SendOptions = {},
): Promise<Answer> {
  const base = new URL(baseUrl);
  const prefix = base.pathname.replace(/\/?(v1\/?)?$/, "");
  const headers: Record<string, string | string[]> = { ...call.headers };
  if (call.key) headers.authorization = `Bearer ${call.key}`;
  // node:http sends DELETE bodies without framing unless told their length.
  if (call.body !== undefined) headers["content-length"] = String(Buffer.byteLength(call.body));
  const method = call.method ?? "GET";
  const path = `${prefix}${call.path}`;
  const request = base.protocol === "https:" ? https.request : http.request;
  const reply = await new Promise<{ status: number; headers: Record<string, string>; raw: Buffer }>(
    (resolve, reject) => {
      const req = request(
        {
          ...{ protocol: base.protocol, hostname: base.hostname, port: base.port },
          ...{ path, method, headers },
          ...(options.agent && { agent: options.agent }),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("error", reject);
          res.on("end", () => {
            const flat: Record<string, string> = {};
            for (const [name, value] of Object.entries(res.headers)) {
              if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
            }
            resolve({ status: res.statusCode ?? 0, headers: flat, raw: Buffer.concat(chunks) });
          });
        },
      );
      if (options.timeoutMs !== undefined) {
        req.setTimeout(options.timeoutMs, () => {
          req.destroy(new Error(`no answer within ${options.timeoutMs} ms`));
        });
      }
      req.on("error", reject);
      req.end(call.body);
    },
  );
  const text = decodeBody(reply.raw, reply.headers["content-encoding"]);
  options.check?.({
    method,
    path: call.path,
    status: reply.status,
    headers: reply.headers,
    body: text,
  });
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
  return { ...reply, text, json: <T>() => JSON.parse(text) as T };
}

/** A JSON POST to /v1/categories. */
export function createCategory(
  baseUrl: string,
  key: string | null,
  body: unknown,
  headers: Record<string, string> = {},
  options: SendOptions = {},
): Promise<Answer> {
  return send(
    baseUrl,
    {
      method: "POST",
      path: "/v1/categories",
      key,
      headers: { "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    },
    options,
  );
}

/** GET /v1/categories, compressed as a browser would ask; the answer, whatever its status. */
export function getCategories(
  baseUrl: string,
  key: string,
  options: SendOptions = {},
): Promise<Answer> {
  const headers = { "accept-encoding": "br, gzip" };
  return send(baseUrl, { path: "/v1/categories", key, headers }, options);
}

/** Every category; throws unless the answer is a 200 holding a JSON array. */
export async function listCategories(
  baseUrl: string,
  key: string,
  options: SendOptions = {},
): Promise<Category[]> {
  const answer = await getCategories(baseUrl, key, options);
  if (answer.status !== 200) throw new Error(`list answered ${answer.status}: ${answer.text}`);
  const list = answer.json();
  if (!Array.isArray(list)) throw new Error("the list answer is not a JSON array");
  return list as Category[];
}
