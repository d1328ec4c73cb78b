/**
 * A recording proxy between a variant and the store, for two things the figures rest on:
 *   - fairness: ours, the limit and the typical stack must make the same store calls (operation,
 *     fields, read consistency, attributes), or the comparison is not like for like;
 *   - DynamoDB cost: it adds ReturnConsumedCapacity=TOTAL to each call and sums the units the
 *     store reports (dynalite counts them as DynamoDB does: 4 KB per strongly consistent read
 *     unit, 1 KB per write unit), so no price in the bench rests on a hand count.
 * Dynalite checks a signature's form, not its value, so the rewritten body still passes.
 */
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";

export interface Recorded {
  /** Each call in one line: operation, fields set, read consistency, attributes stored. */
  readonly calls: readonly string[];
  readonly readUnits: number;
  readonly writeUnits: number;
}

export interface RecordingProxy {
  readonly endpoint: string;
  /** What was seen since the last take. */
  take(): Recorded;
  close(): Promise<void>;
}

function summary(operation: string, input: Record<string, unknown>): string {
  const names = (value: unknown): string =>
    Object.keys(value ?? {})
      .sort()
      .join(",");
  const fields = Object.keys(input)
    .filter((field) => field !== "ExclusiveStartKey")
    .sort()
    .map((field) =>
      field === "ConsistentRead"
        ? `ConsistentRead=${String(input[field])}`
        : field === "Item" || field === "Key"
          ? `${field}(${names(input[field])})`
          : field,
    );
  return `${operation} ${fields.join(" ")}`;
}

const reads = new Set(["GetItem", "Query", "Scan", "BatchGetItem"]);

export async function startRecordingProxy(storeEndpoint: string): Promise<RecordingProxy> {
  const store = new URL(storeEndpoint);
  let seen = { calls: [] as string[], readUnits: 0, writeUnits: 0 };
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const operation = String(incoming.headers["x-amz-target"]).split(".").pop() ?? "";
      const input = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
      seen.calls.push(summary(operation, input));
      const body = JSON.stringify({ ...input, ReturnConsumedCapacity: "TOTAL" });
      const headers = { ...incoming.headers, "content-length": String(Buffer.byteLength(body)) };
      const forward = request(
        { hostname: store.hostname, port: store.port, method: "POST", path: "/", headers },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on("data", (part: Buffer) => parts.push(part));
          answer.on("end", () => {
            const raw = Buffer.concat(parts);
            const units =
              (
                JSON.parse(raw.toString("utf8")) as {
                  ConsumedCapacity?: { CapacityUnits?: number };
                }
              ).ConsumedCapacity?.CapacityUnits ?? 0;
            if (reads.has(operation)) seen.readUnits += units;
            else seen.writeUnits += units;
            outgoing.writeHead(answer.statusCode ?? 502, answer.headers).end(raw);
          });
        },
      );
      forward.on("error", () => outgoing.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return {
    endpoint: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
    take: () => {
      const taken = seen;
      seen = { calls: [], readUnits: 0, writeUnits: 0 };
      return taken;
    },
    close: () =>
      new Promise((done) => {
        server.close(() => {
          done();
        });
        server.closeAllConnections();
      }),
  };
}
