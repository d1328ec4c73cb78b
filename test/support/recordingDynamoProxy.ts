/**
 * A small HTTP proxy between the service's DynamoDB client and the embedded store that records
 * every call (X-Amz-Target operation and JSON input) under the label the test has set, e.g. the
 * function handling the current request.
 *
 * Two ways to drive the code's retry, recovery and clean-up paths, and with them the calls it
 * only makes there:
 *
 *   - `loseFirstAnswers`: the first time a given request body arrives it is forwarded (so the
 *     write lands) and then the connection is cut before the answer; the client retries the
 *     same body, which goes through.
 *   - `fault`: for the calls it picks, "conditional" forwards the call and then answers
 *     ConditionalCheckFailedException (only for calls with a ConditionExpression: as if another
 *     request had written first); "error" answers a non-retryable ValidationException without
 *     forwarding (the call fails and nothing is written).
 */
import { createServer, request as httpRequest } from "node:http";
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedCall {
  readonly label: string;
  /** The operation, e.g. "GetItem" (from X-Amz-Target: DynamoDB_20120810.GetItem). */
  readonly operation: string;
  readonly input: unknown;
  /** Whether the proxy cut this call's answer. */
  readonly lost: boolean;
  /** The fault the proxy answered this call with, if any. */
  readonly fault: Fault | undefined;
}

export type Fault = "conditional" | "error";

export interface RecordingProxy {
  readonly endpoint: string;
  readonly calls: RecordedCall[];
  label: string;
  loseFirstAnswers: boolean;
  fault: ((operation: string, input: unknown) => Fault | undefined) | undefined;
  close(): Promise<void>;
}

const faultAnswers: Record<Fault, { type: string; message: string }> = {
  conditional: {
    type: "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException",
    message: "The conditional request failed",
  },
  error: {
    type: "com.amazon.coral.validate#ValidationException",
    message: "failure injected by the test's recording proxy",
  },
};

export async function startRecordingProxy(upstream: string): Promise<RecordingProxy> {
  const target = new URL(upstream);
  const seen = new Set<string>();
  const proxy: RecordingProxy = {
    endpoint: "",
    calls: [],
    label: "setup",
    loseFirstAnswers: false,
    fault: undefined,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => {
          done();
        });
      }),
  };

  const server = createServer((incoming, outgoing) => {
    void (async () => {
      const body = await readAll(incoming);
      const operation =
        String(incoming.headers["x-amz-target"] ?? "")
          .split(".")
          .pop() ?? "";
      const text = body.toString("utf8");
      const lose = proxy.loseFirstAnswers && !seen.has(text);
      seen.add(text);
      let input: unknown;
      try {
        input = JSON.parse(text);
      } catch {
        input = text;
      }
      const picked = proxy.fault?.(operation, input);
      const fault = picked === "conditional" && !hasCondition(input) ? undefined : picked;
      proxy.calls.push({ label: proxy.label, operation, input, lost: lose, fault });
      if (fault === "error") {
        answerFault(outgoing, fault);
        return;
      }
      const answer = await forward(target, incoming.headers, body);
      if (fault === "conditional") {
        answerFault(outgoing, fault);
        return;
      }
      if (lose) {
        incoming.socket.destroy();
        return;
      }
      outgoing.writeHead(answer.status, answer.headers);
      outgoing.end(answer.body);
    })().catch((error: unknown) => {
      outgoing.writeHead(502, { "content-type": "text/plain" });
      outgoing.end(String(error));
    });
  });
  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", done);
  });
  const { port } = server.address() as AddressInfo;
  return Object.assign(proxy, { endpoint: `http://127.0.0.1:${port}` });
}

function hasCondition(input: unknown): boolean {
  return typeof input === "object" && input !== null && "ConditionExpression" in input;
}

function answerFault(outgoing: ServerResponse, fault: Fault): void {
  const { type, message } = faultAnswers[fault];
  outgoing.writeHead(400, { "content-type": "application/x-amz-json-1.0" });
  outgoing.end(JSON.stringify({ __type: type, message }));
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => {
      done(Buffer.concat(chunks));
    });
    stream.on("error", fail);
  });
}

function forward(
  target: URL,
  headers: IncomingHttpHeaders,
  body: Buffer,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((done, fail) => {
    const outgoing = httpRequest(
      {
        hostname: target.hostname,
        port: target.port,
        path: "/",
        method: "POST",
        headers: { ...headers, connection: "close" },
      },
      (response) => {
        readAll(response).then((answer) => {
          const rest = { ...response.headers };
          delete rest.connection;
          delete rest["transfer-encoding"];
          done({ status: response.statusCode ?? 502, headers: rest, body: answer });
        }, fail);
      },
    );
    outgoing.on("error", fail);
    outgoing.end(body);
  });
}
