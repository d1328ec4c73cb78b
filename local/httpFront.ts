/**
 * The HTTP side of the local API Gateway: receiving requests (body limit, time limit) and
 * answering the ones Node's HTTP parser refuses before any project code runs. Node would answer
 * those with an empty 400/408/431; here they get the Error shape like every other answer.
 *
 * Every request gets API Gateway's request id here (local/apiGateway.ts): every answer carries
 * it as `apigw-requestid`, as API Gateway's do; the function puts it in `Request-Id`, and so do
 * this front's own Error-shaped answers. The answers that imitate API Gateway's own
 * (`{"message": …}`: 413, its 500) carry only `apigw-requestid`, as API Gateway's do.
 */
import { createServer, STATUS_CODES } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { errors } from "../lib/errors.ts";
import type { ApiError } from "../lib/errors.ts";
import { toErrorResponse } from "../lib/http/errorResponse.ts";
import { fromResult, gatewayRequestId } from "./apiGateway.ts";
import type { HttpAnswer } from "./apiGateway.ts";

/** API Gateway HTTP API refuses request bodies over 10 MB before any function runs. */
const gatewayMaxBodyBytes = 10 * 1024 * 1024;
/** API Gateway's integration timeout: how long a request may take to arrive and be answered. */
export const gatewayTimeoutMs = 30_000;

export type RequestHandler = (
  request: IncomingMessage,
  body: Buffer,
  requestId: string,
) => Promise<HttpAnswer>;

/** This front's own answer in the Error shape, with its Request-Id. */
export function errorAnswer(error: ApiError, requestId: string): HttpAnswer {
  const answer = fromResult(toErrorResponse(error).response);
  return { ...answer, headers: { ...answer.headers, "request-id": requestId } };
}

export function createFront(handle: RequestHandler, timeoutMs = gatewayTimeoutMs): Server {
  const server = createServer(
    {
      // A request (headers and body) that has not fully arrived in time is refused (408).
      requestTimeout: timeoutMs,
      headersTimeout: timeoutMs,
      connectionsCheckingInterval: Math.min(1000, timeoutMs),
      // Checked below instead, so the 400 has the Error shape.
      requireHostHeader: false,
    },
    (request, response) => {
      const requestId = gatewayRequestId();
      void receive(request)
        .then((body) => (body ? answer(request, body, requestId) : tooLarge))
        .then((reply) => {
          send(response, reply, requestId);
        })
        .catch((error: unknown) => {
          process.stderr.write(`local server: ${String(error)}\n`);
          if (!response.headersSent)
            send(response, errorAnswer(errors.internal(), requestId), requestId);
        });
    },
  );
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    refuse(error, socket, timeoutMs);
  });
  // Node hands a CONNECT over as a bare socket: it goes to the routes as any other method does
  // (the fallback's 405, in the Error shape), not a silently closed connection.
  server.on("connect", (request: IncomingMessage, socket: Duplex) => {
    const requestId = gatewayRequestId();
    answer(request, Buffer.alloc(0), requestId).then(
      (reply) => {
        sendRaw(socket, reply, requestId);
      },
      () => socket.destroy(),
    );
  });
  return server;

  function answer(request: IncomingMessage, body: Buffer, requestId: string): Promise<HttpAnswer> {
    if (request.httpVersion === "1.1" && request.headers.host === undefined) {
      return Promise.resolve(
        errorAnswer(errors.badRequest("an HTTP/1.1 request needs a Host header"), requestId),
      );
    }
    return handle(request, body, requestId);
  }
}

const tooLarge: HttpAnswer = {
  status: 413,
  headers: { "content-type": "application/json" },
  body: Buffer.from('{"message":"Request Entity Too Large"}'),
};

/** The whole body, or undefined when it is over the gateway's limit. */
function receive(request: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= gatewayMaxBodyBytes) chunks.push(chunk);
    });
    request.on("end", () => {
      resolveBody(size > gatewayMaxBodyBytes ? undefined : Buffer.concat(chunks));
    });
    request.on("error", reject);
    request.on("close", () => {
      if (!request.complete) reject(new Error("the client went away before its request arrived"));
    });
  });
}

function send(response: ServerResponse, reply: HttpAnswer, requestId: string): void {
  if (response.destroyed) return;
  response.writeHead(reply.status, {
    ...reply.headers,
    "apigw-requestid": requestId,
    "content-length": String(reply.body.length),
  });
  response.end(reply.body);
}

/** Node's parser refused the request, or it did not arrive in time: answer and close. */
function refuse(error: NodeJS.ErrnoException, socket: Duplex, timeoutMs: number): void {
  const pending = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (error.code === "ECONNRESET" || !socket.writable || pending?.headersSent) {
    socket.destroy();
    return;
  }
  const requestId = gatewayRequestId();
  sendRaw(socket, errorAnswer(refusal(error.code, timeoutMs), requestId), requestId);
}

/** An answer written on the socket itself, which is then closed. */
function sendRaw(socket: Duplex, reply: HttpAnswer, requestId: string): void {
  const head = [
    `HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status] ?? ""}`,
    ...Object.entries(reply.headers).flatMap(([name, value]) =>
      [value].flat().map((one) => `${name}: ${one}`),
    ),
    `apigw-requestid: ${requestId}`,
    `content-length: ${reply.body.length}`,
    "connection: close",
    "",
    "",
  ].join("\r\n");
  socket.end(Buffer.concat([Buffer.from(head, "latin1"), reply.body]));
}

/** What llhttp's error codes mean for the person who sent the request. */
const parserErrors: Readonly<Record<string, string>> = {
  HPE_INVALID_METHOD: "the request method is not one HTTP defines",
  HPE_INVALID_HEADER_TOKEN: "a header name or value has characters HTTP does not allow",
  HPE_UNEXPECTED_CONTENT_LENGTH:
    "a request may not carry both Content-Length and Transfer-Encoding",
  HPE_INVALID_CONTENT_LENGTH: "the Content-Length header is not valid",
  HPE_INVALID_TRANSFER_ENCODING: "the Transfer-Encoding header is not valid",
};

function refusal(code: string | undefined, timeoutMs: number): ApiError {
  if (code === "HPE_HEADER_OVERFLOW") return errors.headersTooLarge();
  if (code === "ERR_HTTP_REQUEST_TIMEOUT")
    return errors.requestTimeout(Math.round(timeoutMs / 100) / 10);
  return errors.badRequest((code && parserErrors[code]) ?? "the request is not valid HTTP/1.1");
}
