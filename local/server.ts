/**
 * The local stand-in for API Gateway + Lambda: an HTTP server that routes requests by the
 * template's route keys to the built bundles in dist/ (the same files `sam deploy` ships), over
 * the embedded DynamoDB store.
 */
import { rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";
import type { Handler } from "aws-lambda";
import { ApiKeyStore } from "../lib/apiKeyStore.ts";
import { pathMatches } from "../lib/routes.ts";
import { fromResult, gatewayError, lambdaContext, toEvent } from "./apiGateway.ts";
import type { HttpAnswer } from "./apiGateway.ts";
import { docsAnswer, isDocsPath } from "./docsPage.ts";
import { ensureTable, localClient, startEmbeddedDynamo } from "./embeddedDynamo.ts";
import { localFunctionEnv } from "./functionEnv.ts";
import type { FunctionSpec } from "./template.ts";
import { functionsOf, routesOf } from "./template.ts";

export const localTableName = "petstore-local";
export const localKeyLabel = "local-server";
/** API Gateway HTTP API refuses request bodies over 10 MB before any function runs. */
const gatewayMaxBodyBytes = 10 * 1024 * 1024;

export interface LocalServerOptions {
  readonly port?: number;
  readonly host?: string;
  /** Folder for the persisted store; in memory when unset. */
  readonly dataDir?: string | undefined;
  /** Use this DynamoDB endpoint instead of starting the embedded store (e.g. a fault proxy). */
  readonly dynamoEndpoint?: string | undefined;
  /** Make this key valid (PETSTORE_API_KEY); otherwise a fresh local key is issued. */
  readonly apiKey?: string | undefined;
  /** Extra environment for the functions (e.g. API_KEY_CACHE_SECONDS). */
  readonly env?: Readonly<Record<string, string>>;
}

export interface LocalServer {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly dynamoEndpoint: string;
  close(): Promise<void>;
}

interface LoadedRoute {
  readonly routeKey: string;
  readonly method: string;
  readonly pattern: string;
  readonly spec: FunctionSpec;
}

let instance = 0;

export async function startLocalServer(options: LocalServerOptions = {}): Promise<LocalServer> {
  const dynamo = options.dynamoEndpoint
    ? { endpoint: options.dynamoEndpoint, close: () => Promise.resolve() }
    : await startEmbeddedDynamo(options.dataDir ? { dataDir: resolve(options.dataDir) } : {});
  const db = localClient(dynamo.endpoint);
  await ensureTable(db, localTableName);
  if (options.dataDir) writeEndpointFile(options.dataDir, dynamo.endpoint);
  const apiKey = await prepareKey(new ApiKeyStore(db, localTableName), options.apiKey);
  db.close();

  Object.assign(process.env, {
    ...localFunctionEnv(dynamo.endpoint, localTableName),
    ...options.env,
  });
  const handlers = await loadHandlers(functionsOf());
  const routes = [...routesOf().entries()]
    .filter(([key]) => key !== "$default")
    .map(([routeKey, spec]): LoadedRoute => {
      const [method = "", pattern = ""] = routeKey.split(" ");
      return { routeKey, method, pattern, spec };
    });
  const fallback = routesOf().get("$default");

  const server = createServer((request, response) => {
    void serve(request, response).catch((error: unknown) => {
      process.stderr.write(`local server: ${String(error)}\n`);
      if (!response.headersSent) send(response, gatewayError);
    });
  });

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request);
    if (body === undefined) {
      send(response, {
        status: 413,
        headers: { "content-type": "application/json" },
        body: Buffer.from('{"message":"Request Entity Too Large"}'),
      });
      return;
    }
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    // Local only: the API reference (npm run docs); API Gateway serves no such route.
    if (isDocsPath(path) && (request.method === "GET" || request.method === "HEAD")) {
      send(response, await docsAnswer());
      return;
    }
    const route = routes.find((r) => r.method === request.method && pathMatches(r.pattern, path));
    const spec = route?.spec ?? fallback;
    const handler = spec && handlers.get(spec.name);
    if (!spec || !handler) {
      send(response, {
        status: 404,
        headers: { "content-type": "application/json" },
        body: Buffer.from('{"message":"Not Found"}'),
      });
      return;
    }
    const event = toEvent(request, body, {
      routeKey: route?.routeKey ?? "$default",
      pattern: route?.pattern,
    });
    let answer: HttpAnswer;
    try {
      answer = fromResult(
        await handler(event, lambdaContext(spec.name, spec.timeoutSeconds), () => undefined),
      );
    } catch (error) {
      // A function that throws is a Lambda invocation error: API Gateway answers its own 500.
      process.stderr.write(`${spec.name} invocation failed: ${String(error)}\n`);
      answer = gatewayError;
    }
    send(response, answer);
  }

  try {
    await new Promise<void>((done, fail) => {
      server.once("error", fail);
      server.listen(options.port ?? 3000, options.host ?? "127.0.0.1", done);
    });
  } catch (error) {
    await dynamo.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://${options.host ?? "127.0.0.1"}:${port}/v1`,
    apiKey,
    dynamoEndpoint: dynamo.endpoint,
    close: async () => {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
      if (options.dataDir) rmSync(endpointFile(options.dataDir), { force: true });
      await dynamo.close();
    },
  };
}

/**
 * While the server runs it holds the store's folder lock, so the keys command reaches the store
 * through the server's embedded endpoint, which this file names.
 */
export function endpointFile(dataDir: string): string {
  return resolve(dataDir, "..", "dynamodb-endpoint");
}

function writeEndpointFile(dataDir: string, endpoint: string): void {
  writeFileSync(endpointFile(dataDir), endpoint);
}

async function loadHandlers(functions: readonly FunctionSpec[]): Promise<Map<string, Handler>> {
  instance += 1;
  const handlers = new Map<string, Handler>();
  for (const spec of functions) {
    // A fresh module instance per server, as a fresh Lambda container would have.
    const url = `${pathToFileURL(resolve(spec.codeDir, spec.handlerFile)).href}?instance=${instance}`;
    const module = (await import(url)) as Record<string, unknown>;
    const handler = module[spec.handlerExport];
    if (typeof handler !== "function") {
      throw new Error(
        `${spec.codeDir}/${spec.handlerFile} does not export "${spec.handlerExport}"; run npm run build`,
      );
    }
    handlers.set(spec.name, handler as Handler);
  }
  return handlers;
}

/** PETSTORE_API_KEY when given; otherwise a fresh key, revoking the previous run's local key. */
async function prepareKey(keys: ApiKeyStore, fixedKey: string | undefined): Promise<string> {
  const deadline = Date.now() + 10_000;
  if (fixedKey) {
    await keys.issue("PETSTORE_API_KEY", undefined, deadline, fixedKey);
    return fixedKey;
  }
  for (const record of await keys.list(deadline)) {
    if (record.label === localKeyLabel && !record.revokedAt)
      await keys.revoke(record.keyId, deadline);
  }
  return (await keys.issue(localKeyLabel, undefined, deadline)).apiKey;
}

function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > gatewayMaxBodyBytes) tooLarge = true;
      else chunks.push(chunk);
    });
    request.on("end", () => {
      resolveBody(tooLarge ? undefined : Buffer.concat(chunks));
    });
    request.on("error", reject);
  });
}

function send(response: ServerResponse, answer: HttpAnswer): void {
  response.writeHead(answer.status, {
    ...answer.headers,
    "content-length": String(answer.body.length),
  });
  response.end(answer.body);
}
