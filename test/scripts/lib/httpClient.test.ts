/**
 * The project's HTTP client over kept-alive sockets. A server closes an idle socket on its own
 * clock; a client whose event loop is blocked meanwhile (a test's spawnSync, a long GC) still
 * holds that socket as free and sends its next request on it, which fails with ECONNRESET before
 * the server reads it. The server here runs in its own process, as the local server does.
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import type { Agent } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentFor, onStaleSocket, send } from "../../../scripts/lib/httpClient.ts";

// Answers with how many connections it has accepted; closes each one 100 ms after an answer,
// while its Keep-Alive header (5 s) tells the client the socket may be kept.
const serverSource = `
const http = require("node:http");
let connections = 0;
const server = http.createServer((req, res) => {
  req.resume();
  res.on("finish", () => setTimeout(() => req.socket.end(), 100));
  res.end(String(connections));
});
server.on("connection", () => { connections += 1; });
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
`;

let server: ChildProcess;
let baseUrl = "";
beforeAll(async () => {
  server = spawn(process.execPath, ["-e", serverSource], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<string>((resolve) => {
    server.stdout?.once("data", (data: Buffer) => {
      resolve(data.toString().trim());
    });
  });
  baseUrl = `http://127.0.0.1:${port}/v1`;
});
afterAll(() => {
  server.kill();
});

/** Blocks the event loop, as a spawnSync does: the socket's close is not seen meanwhile. */
const blockEventLoop = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

/** One request, then a second on the same one-socket agent after the server closed it. */
async function afterStaleSocket(agent: Agent, method: string, headers = {}) {
  const first = await send(baseUrl, { path: "/v1/x" }, { agent });
  blockEventLoop(500);
  const second = send(baseUrl, { method, path: "/v1/x", headers, body: "{}" }, { agent });
  return { first: Number(first.text), second };
}

describe("a request that meets a kept-alive socket the server has closed", () => {
  it("is sent again on a fresh connection when its method is idempotent", async () => {
    const agent = agentFor(baseUrl, 1);
    const { first, second } = await afterStaleSocket(agent, "GET");
    expect(Number((await second).text)).toBe(first + 1);
    agent.destroy();
  });

  it("is sent again when it is a POST with an Idempotency-Key", async () => {
    const agent = agentFor(baseUrl, 1);
    const { first, second } = await afterStaleSocket(agent, "POST", { "Idempotency-Key": "k1" });
    expect(Number((await second).text)).toBe(first + 1);
    agent.destroy();
  });

  it("fails as it is when it is a POST without one: it might have been acted on", async () => {
    const agent = agentFor(baseUrl, 1);
    const { second } = await afterStaleSocket(agent, "POST");
    await expect(second).rejects.toMatchObject({ code: "ECONNRESET", reusedSocket: true });
    agent.destroy();
  });
});

describe("a stale socket is a reused one the server reset, or closed before the write", () => {
  it.each([
    [{ code: "ECONNRESET", reusedSocket: true }, true],
    [{ code: "EPIPE", reusedSocket: true }, true],
    [{ code: "ECONNRESET", reusedSocket: false }, false], // a fresh socket: the server's answer
    [{ code: "ECONNREFUSED", reusedSocket: true }, false],
  ])("%o: %s", (error, stale) => {
    expect(onStaleSocket(Object.assign(new Error("x"), error))).toBe(stale);
  });
});
