/**
 * Requests as raw bytes on a socket, for what node:http will not send: header values with bytes
 * outside ASCII (obs-text such as 0xA0 or 0xFF, or a key written in UTF-8) exactly as given. The
 * answer is read to the end (Connection: close), decoded from its Content-Encoding and checked
 * against openapi.yaml like every answer the HTTP client sees. Besides: a GET with its path
 * exactly as written, and bytes no HTTP client would send with the answer read as it comes
 * (test/http/gateway.test.ts), neither checked against openapi.yaml.
 */
import { request } from "node:http";
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
  const raw = await new Promise<Buffer>((resolve, reject) => {
    const socket = connect({ host: origin.hostname, port: Number(origin.port) }, () => {
      // Not end(): a half-closed socket may be dropped by the server before it answers.
      socket.write(Buffer.concat(lines));
    });
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("end", () => {
      resolve(Buffer.concat(chunks));
    });
    socket.on("error", reject);
  });
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
  const length = Number(headers["content-length"] ?? raw.length - split - 4);
  const bytes = raw.subarray(split + 4, split + 4 + length);
  const text = decodeBody(bytes, headers["content-encoding"]);
  assertMatchesOpenApi({ method: request.method, path: request.path, status, headers, body: text });
  return { status, headers, text };
}

export interface PlainAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
}

/**
 * A GET with the key, the path sent exactly as written. Not checked against openapi.yaml, which
 * cannot name a path that does not decode.
 */
export function getAsWritten(baseUrl: string, key: string, path: string): Promise<PlainAnswer> {
  const origin = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const call = request(
      {
        host: origin.hostname,
        port: origin.port,
        path,
        headers: { authorization: `Bearer ${key}` },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers as Record<string, string>,
            text: Buffer.concat(chunks).toString(),
          });
        });
      },
    );
    call.on("error", reject);
    call.end();
  });
}

export interface SocketAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** The first answer's body. */
  readonly text: string;
  /** Everything the server sent. */
  readonly raw: string;
  readonly ms: number;
}

/** Bytes on a socket, as no HTTP client would send them; the answer read to the end. */
export function exchangeBytes(
  baseUrl: string,
  bytes: string | Buffer,
  keepOpen = false,
): Promise<SocketAnswer> {
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
      const raw = Buffer.concat(chunks).toString("latin1");
      const [head = "", text = ""] = raw.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers = Object.fromEntries(
        lines.map((line) => [
          line.slice(0, line.indexOf(":")).toLowerCase(),
          line.slice(line.indexOf(":") + 1).trim(),
        ]),
      );
      resolve({
        status: Number(statusLine.split(" ")[1]),
        headers,
        text,
        raw,
        ms: Date.now() - started,
      });
    });
  });
}
