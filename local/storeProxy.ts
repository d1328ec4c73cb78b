/**
 * An HTTP proxy in front of a local store: every DynamoDB call passes through `hook`, which sees
 * the operation and the JSON text and decides what the client gets: the store's answer (to the
 * call as sent, or rewritten), an answer it makes up without asking the store, or nothing (the
 * connection is cut, as a network fault would). The one proxy of the project: the bench and the
 * abuse run count store units with it (local/storeMeter.ts), the tests record calls and inject
 * faults through it (test/support/recordingDynamoProxy.ts, test/support/faultProxy.ts).
 */
import { createServer, request } from "node:http";
import type { IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { text } from "node:stream/consumers";

/** `operation` from X-Amz-Target (DynamoDB_20120810.GetItem: "GetItem"); `body`, the JSON sent. */
export type StoreCall = { readonly operation: string; readonly body: string };
export type StoreAnswer = { status: number; headers: IncomingHttpHeaders; body: string };
/** Sends `body` (the call's own by default) to the store, with the client's headers. */
export type Forward = (body?: string) => Promise<StoreAnswer>;
/** "cut": the connection is destroyed without an answer. */
export type StoreHook = (call: StoreCall, forward: Forward) => Promise<StoreAnswer | "cut">;
export type StoreProxy = { readonly endpoint: string; close(): Promise<void> };

/** An error answer as DynamoDB gives it (the type's namespace prefix included). */
export function storeError(status: number, type: string, message: string): StoreAnswer {
  const headers = { "content-type": "application/x-amz-json-1.0" };
  return { status, headers, body: JSON.stringify({ __type: type, message }) };
}

/** Headers of the store's connection, not of its answer; the length is counted again. */
const perHop = new Set(["connection", "keep-alive", "transfer-encoding", "content-length"]);

export async function startStoreProxy(upstream: string, hook: StoreHook): Promise<StoreProxy> {
  const { hostname, port } = new URL(upstream);
  const server = createServer((incoming, outgoing) => {
    const pass = async (): Promise<void> => {
      const target = String(incoming.headers["x-amz-target"] ?? "");
      const call = { operation: target.split(".").pop() ?? "", body: await text(incoming) };
      const forward: Forward = (body = call.body) =>
        new Promise((done, fail) => {
          // Same headers (a store checks a signature's form, not its value), the length rewritten.
          const headers = { ...incoming.headers, "content-length": Buffer.byteLength(body) };
          const options = { hostname, port, path: "/", method: "POST", headers };
          const sent = request(options, (answer) => {
            const kept = Object.entries(answer.headers).filter(([name]) => !perHop.has(name));
            const headers = Object.fromEntries(kept);
            text(answer).then((body) => {
              done({ status: answer.statusCode ?? 502, headers, body });
            }, fail);
          });
          sent.on("error", fail).end(body);
        });
      const answer = await hook(call, forward);
      // The client may have given up meanwhile (a slow answer): nothing left to answer.
      if (answer === "cut" || incoming.socket.destroyed) incoming.socket.destroy();
      else outgoing.writeHead(answer.status, answer.headers).end(answer.body);
    };
    pass().catch(() => incoming.socket.destroy());
  });
  await new Promise<void>((done, fail) => {
    server.once("error", fail).listen(0, "127.0.0.1", done);
  });
  const endpoint = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  const close = () =>
    new Promise<void>((done) => {
      server.closeAllConnections();
      server.close(() => {
        done();
      });
    });
  return { endpoint, close };
}
