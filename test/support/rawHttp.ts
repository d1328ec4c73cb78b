/**
 * Requests as raw bytes on a socket, for what node:http will not send: header values with bytes
 * outside ASCII (obs-text such as 0xA0 or 0xFF, or a key written in UTF-8) exactly as given
 * (`sendRaw`: the answer is read to the end, decoded from its Content-Encoding and checked
 * against openapi.yaml like every answer the HTTP client sees), and bytes no HTTP client would
 * send at all (`exchangeBytes`: what Node's parser refuses, a body that stalls).
 */
import { connect } from "node:net";
import { decodeBody } from "../../scripts/lib/httpClient.ts";
import { assertMatchesOpenApi } from "./openapi.ts";

export interface RawAnswer {
  readonly status: number;
  /** Header names lower-cased; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
}

export interface RawRequest {
  readonly method: string;
  /** Path with the /v1 prefix. */
  readonly path: string;
  /** Header lines as [name, value bytes]; repeated names are sent as repeated lines. */
  readonly headers: readonly (readonly [string, Buffer | string])[];
  readonly body?: Buffer;
}

export async function sendRaw(baseUrl: string, request: RawRequest): Promise<RawAnswer> {
  const origin = new URL(baseUrl);
  const body = request.body ?? Buffer.alloc(0);
  const lines: Buffer[] = [
    Buffer.from(`${request.method} ${request.path} HTTP/1.1\r\nHost: ${origin.host}\r\n`),
    ...request.headers.map(([name, value]) =>
      Buffer.concat([Buffer.from(`${name}: `), Buffer.from(value), Buffer.from("\r\n")]),
    ),
    Buffer.from(`Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`),
    body,
  ];
  // Kept open: a half-closed socket may be dropped by the server before it answers.
  const { raw } = await exchange(baseUrl, Buffer.concat(lines), true);
  const { status, headers, split } = parseHead(raw);
  const length = Number(headers["content-length"] ?? raw.length - split - 4);
  const bytes = raw.subarray(split + 4, split + 4 + length);
  const text = decodeBody(bytes, headers["content-encoding"]);
  assertMatchesOpenApi({ method: request.method, path: request.path, status, headers, body: text });
  return { status, headers, text };
}

/** The status and headers (names lower-cased, repeats joined) of the first answer in `raw`. */
function parseHead(raw: Buffer): {
  status: number;
  headers: Record<string, string>;
  split: number;
} {
  const split = raw.indexOf("\r\n\r\n");
  if (split < 0) throw new Error(`no complete answer: ${raw.toString("latin1").slice(0, 200)}`);
  const [statusLine = "", ...headerLines] = raw.subarray(0, split).toString("latin1").split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name] ?? ""}, ${value}` : value;
  }
  return { status, headers, split };
}

export interface ExchangedBytes extends RawAnswer {
  /** Everything the server sent (latin1), answers after the first included. */
  readonly raw: string;
  /** From the connection to its close. */
  readonly ms: number;
}

/**
 * `bytes` on a new socket, half-closed after them unless `keepOpen`; everything read until the
 * server closes it. Not checked against openapi.yaml: the first answer's body is taken as is.
 */
export async function exchangeBytes(
  baseUrl: string,
  bytes: string | Buffer,
  keepOpen = false,
): Promise<ExchangedBytes> {
  const { raw, ms } = await exchange(baseUrl, bytes, keepOpen);
  const { status, headers, split } = parseHead(raw);
  const text =
    raw
      .subarray(split + 4)
      .toString("latin1")
      .split("\r\n\r\n")[0] ?? "";
  return { status, headers, text, raw: raw.toString("latin1"), ms };
}

/** Everything the server sends back for `bytes` on a new socket, until it closes it. */
function exchange(
  baseUrl: string,
  bytes: string | Buffer,
  keepOpen: boolean,
): Promise<{ raw: Buffer; ms: number }> {
  const origin = new URL(baseUrl);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = connect({ host: origin.hostname, port: Number(origin.port) }, () => {
      socket.write(bytes);
      if (!keepOpen) socket.end();
    });
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      resolve({ raw: Buffer.concat(chunks), ms: Date.now() - started });
    });
  });
}
