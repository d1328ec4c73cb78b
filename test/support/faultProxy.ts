/**
 * A fault-injecting HTTP proxy between the service's DynamoDB client and the embedded store.
 * Each rule applies to the next `times` requests for an operation (or any): throttling answers,
 * 5xx, connection resets before or after the store has applied the request, and slow answers.
 */
import { createServer, request as httpRequest } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Fault =
  | "provisioned_throughput_exceeded"
  | "throttling"
  | "server_error"
  | "service_unavailable"
  | "reset"
  /** The store applies the request, then the connection drops before the answer arrives. */
  | "lost_response"
  | "slow";

export interface FaultRule {
  readonly fault: Fault;
  readonly operation?: string;
  /** How many matching requests to fault; Infinity for all until cleared. */
  readonly times: number;
  /** For "slow": how long to hold the answer. */
  readonly delayMs?: number;
}

export interface FaultProxy {
  readonly endpoint: string;
  inject(rule: FaultRule): void;
  clear(): void;
  /** Requests seen per operation, faulted or not. */
  readonly seen: Map<string, number>;
  /** Faults injected so far, per fault kind. */
  readonly injected: Map<Fault, number>;
  close(): Promise<void>;
}

const throttleBodies: Partial<Record<Fault, { status: number; type: string }>> = {
  provisioned_throughput_exceeded: { status: 400, type: "ProvisionedThroughputExceededException" },
  throttling: { status: 400, type: "ThrottlingException" },
  server_error: { status: 500, type: "InternalServerError" },
  service_unavailable: { status: 503, type: "ServiceUnavailable" },
};

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const targetUrl = new URL(target);
  const rules: { rule: FaultRule; left: number }[] = [];
  const seen = new Map<string, number>();
  const injected = new Map<Fault, number>();

  const take = (operation: string): FaultRule | undefined => {
    const entry = rules.find(
      (r) => r.left > 0 && (!r.rule.operation || r.rule.operation === operation),
    );
    if (!entry) return undefined;
    entry.left -= 1;
    injected.set(entry.rule.fault, (injected.get(entry.rule.fault) ?? 0) + 1);
    return entry.rule;
  };

  const forward = (
    incoming: IncomingMessage,
    body: Buffer,
  ): Promise<{ status: number; headers: IncomingMessage["headers"]; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        {
          hostname: targetUrl.hostname,
          port: targetUrl.port,
          path: incoming.url,
          method: incoming.method,
          headers: incoming.headers,
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on("data", (chunk: Buffer) => chunks.push(chunk));
          answer.on("end", () => {
            resolve({
              status: answer.statusCode ?? 500,
              headers: answer.headers,
              body: Buffer.concat(chunks),
            });
          });
          answer.on("error", reject);
        },
      );
      outgoing.on("error", reject);
      outgoing.end(body);
    });

  const handle = async (incoming: IncomingMessage, response: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const operation =
      String(incoming.headers["x-amz-target"] ?? "")
        .split(".")
        .pop() ?? "";
    seen.set(operation, (seen.get(operation) ?? 0) + 1);
    const rule = take(operation);
    const throttle = rule && throttleBodies[rule.fault];
    if (throttle) {
      const text = JSON.stringify({
        __type: `com.amazonaws.dynamodb.v20120810#${throttle.type}`,
        message: "injected fault",
      });
      response
        .writeHead(throttle.status, { "content-type": "application/x-amz-json-1.0" })
        .end(text);
      return;
    }
    if (rule?.fault === "reset") {
      incoming.socket.destroy();
      return;
    }
    const answer = await forward(incoming, body);
    if (rule?.fault === "lost_response") {
      incoming.socket.destroy();
      return;
    }
    if (rule?.fault === "slow") await new Promise((done) => setTimeout(done, rule.delayMs ?? 3000));
    if (incoming.socket.destroyed) return;
    response.writeHead(answer.status, answer.headers).end(answer.body);
  };

  const server = createServer((incoming, response) => {
    handle(incoming, response).catch(() => {
      incoming.socket.destroy();
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    inject: (rule) => {
      rules.push({ rule, left: rule.times });
    },
    clear: () => {
      rules.length = 0;
    },
    seen,
    injected,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => {
          done();
        });
      }),
  };
}
