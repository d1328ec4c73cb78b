/**
 * "Every 201 the client saw is listed" needs the list to read what the create wrote. In DynamoDB
 * a Query is eventually consistent unless it asks for `ConsistentRead: true`: a list sent right
 * after a 201 may miss that category for a moment (typically up to a second). The embedded store
 * is always consistent, so no end-to-end test here can see the difference; this test checks the
 * request the store makes instead.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoDb } from "../../lib/dynamodb.ts";
import { CategoryStore } from "../../lib/repositories/categories.ts";

const requests: { operation: string; input: Record<string, unknown> }[] = [];
const recorder = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    requests.push({
      operation:
        String(request.headers["x-amz-target"] ?? "")
          .split(".")
          .pop() ?? "",
      input: JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>,
    });
    response.writeHead(200, { "content-type": "application/x-amz-json-1.0" }).end('{"Items":[]}');
  });
});
let db: DynamoDb;

beforeAll(async () => {
  await new Promise<void>((done) => recorder.listen(0, "127.0.0.1", done));
  const { port } = recorder.address() as AddressInfo;
  db = new DynamoDb({
    region: "local",
    endpoint: `http://127.0.0.1:${port}`,
    credentials: () => Promise.resolve({ accessKeyId: "local", secretAccessKey: "local" }),
  });
});
afterAll(async () => {
  db.close();
  recorder.closeAllConnections();
  await new Promise((done) => recorder.close(done));
});

describe("the list reads strongly consistently, so a category answered 201 is listed at once", () => {
  it("asks DynamoDB for ConsistentRead on every Query page", async () => {
    await new CategoryStore(db, "table").list(Date.now() + 5_000);
    const queries = requests.filter((r) => r.operation === "Query");
    expect(queries.length).toBeGreaterThan(0);
    expect(queries.map((q) => q.input.ConsistentRead)).toEqual(queries.map(() => true));
  });
});
