/**
 * The one HTTP client of the project's scripts and tests (load, smoke, the HTTP tests): exact
 * control over headers and body bytes (fetch would add and decode Accept-Encoding on its own),
 * keep-alive when asked; bodies decoded by lib/bodyText.ts.
 */
import http from "node:http";
import https from "node:https";
import type { Category } from "../../lib/category.ts";
import { acceptCompressed, decodeBody } from "../../lib/bodyText.ts";

export type { Category };
export { decodeBody, lambdaBodyText } from "../../lib/bodyText.ts";

export interface ErrorBody {
  readonly code: string;
  readonly message: string;
  readonly status: number;
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

type Reply = { status: number; headers: Record<string, string>; raw: Buffer };
/** The methods a client may send again after a failure (RFC 9110 §9.2.2). */
const idempotent = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"]);

/** One request and its whole answer; a failure carries whether its socket was a reused one. */
function exchange(
  request: typeof http.request,
  target: http.RequestOptions,
  body: string | Buffer | undefined,
  timeoutMs: number | undefined,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(target, (res) => {
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
    });
    if (timeoutMs !== undefined) {
      req.setTimeout(timeoutMs, () => {
        req.destroy(new Error(`no answer within ${timeoutMs} ms`));
      });
    }
    req.on("error", (error) => {
      reject(Object.assign(error, { reusedSocket: req.reusedSocket }));
    });
    req.end(body);
  });
}

/**
 * Whether a request failed on a kept-alive socket the server had closed while this process was
 * busy (a spawnSync, a starved machine), before the server read anything: Node's documented
 * remedy (http, request.reusedSocket) is to send it again on a fresh socket. It fails with
 * ECONNRESET, or with EPIPE when the write came after the close (seen on a starved machine).
 */
export function onStaleSocket(error: unknown): boolean {
  const { reusedSocket, code } = error as { reusedSocket?: boolean; code?: string };
  return reusedSocket === true && (code === "ECONNRESET" || code === "EPIPE");
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
  const target = {
    ...{ protocol: base.protocol, hostname: base.hostname, port: base.port },
    ...{ path, method, headers },
    ...(options.agent && { agent: options.agent }),
  };
  const retriable =
    idempotent.has(method.toUpperCase()) ||
    Object.keys(headers).some((name) => name.toLowerCase() === "idempotency-key");
  let reply: Reply | undefined;
  while (!reply) {
    try {
      reply = await exchange(request, target, call.body, options.timeoutMs);
    } catch (error) {
      if (!(retriable && onStaleSocket(error))) throw error;
    }
  }
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
  return send(baseUrl, { path: "/v1/categories", key, headers: acceptCompressed }, options);
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
