/**
 * The fairness check: a recording proxy between a variant and the store, so the bench can show
 * that ours, the limit and the typical stack make the same store calls (operation, request
 * fields, read consistency, item attributes) before it compares their figures. When the service's
 * calls change, the variants must follow, or the benchmark is broken and says so.
 */
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordingProxy {
  readonly endpoint: string;
  /** The calls seen since the last take, each summed up in one line. */
  take(): string[];
  close(): Promise<void>;
}

function attributeNames(value: unknown): string {
  return value && typeof value === "object" ? Object.keys(value).sort().join(",") : "";
}

/** One call in one line: what it is, which fields it sets, how it reads, what it stores. */
function summary(target: string, body: string): string {
  const operation = target.split(".").pop() ?? target;
  const input = JSON.parse(body) as Record<string, unknown>;
  const fields = Object.keys(input)
    .filter((field) => field !== "ExclusiveStartKey")
    .sort()
    .map((field) => {
      if (field === "ConsistentRead") return `ConsistentRead=${String(input[field])}`;
      if (field === "Item" || field === "Key") return `${field}(${attributeNames(input[field])})`;
      return field;
    });
  return `${operation} ${fields.join(" ")}`;
}

export async function startRecordingProxy(storeEndpoint: string): Promise<RecordingProxy> {
  const store = new URL(storeEndpoint);
  let calls: string[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const body = Buffer.concat(chunks);
      calls.push(summary(String(incoming.headers["x-amz-target"]), body.toString("utf8")));
      const forward = request(
        {
          hostname: store.hostname,
          port: store.port,
          method: incoming.method,
          path: incoming.url,
          headers: incoming.headers,
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forward.on("error", () => outgoing.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    take: () => {
      const taken = calls;
      calls = [];
      return taken;
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
