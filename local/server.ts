/**
 * The local stand-in for API Gateway + Lambda: an HTTP server that routes requests by the
 * template's route keys to the built bundles in dist/ (the same files `sam deploy` ships), each
 * function run by a pool of containers as Lambda runs it (local/functionPool.ts), over the
 * embedded DynamoDB store.
 */
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { ensureTable, localClient, startEmbeddedDynamo, storeEngineOf } from "./embeddedDynamo.ts";
import type { EmbeddedDynamo, StoreEngine } from "./embeddedDynamo.ts";
import { FunctionPool, processOutput } from "./functionPool.ts";
import type { PoolOptions } from "./functionPool.ts";
import { localFunctionEnv } from "./functionEnv.ts";
import { gatewayTo } from "./gateway.ts";
import type { Handled } from "./gateway.ts";
import { createFront } from "./httpFront.ts";
import { timedOutName } from "./lambdaLines.ts";
import type { LocalKey } from "./localKeys.ts";
import {
  localTableName,
  prepareLocalKey,
  removeEndpointFile,
  writeEndpointFile,
} from "./localKeys.ts";
import { ApiKeyStore } from "../lib/repositories/apiKeys.ts";
import { quietFunctionOutput, requestLine } from "./requestLines.ts";
import type { LogFormat } from "./requestLines.ts";
import { assertStoreReachable } from "./storeCheck.ts";
import { servedFunctions, templateFunctionEnv } from "./template.ts";

export interface LocalServerOptions {
  readonly port?: number;
  readonly host?: string;
  /** Folder for the persisted store; in memory when unset. */
  readonly dataDir?: string | undefined;
  /** Use this DynamoDB endpoint instead of starting the embedded store (e.g. a fault proxy). */
  readonly dynamoEndpoint?: string | undefined;
  /** The embedded store: dynalite or DynamoDB Local (default: PETSTORE_STORE, else dynalite). */
  readonly engine?: StoreEngine | undefined;
  /** Make this key valid (PETSTORE_API_KEY); otherwise the local key (see local/localKeys.ts). */
  readonly apiKey?: string | undefined;
  /** The functions' environment (e.g. API_KEY_CACHE_SECONDS); the store settings are added. */
  readonly env?: Readonly<Record<string, string>>;
  /** How long a request may take to arrive (API Gateway's 30 s by default). */
  readonly requestTimeoutMs?: number;
  /**
   * Template parameters, as `sam local start-api --parameter-overrides` takes them: the
   * functions' environment is the template's (local/template.ts), these in place of Defaults.
   */
  readonly parameterOverrides?: Readonly<Record<string, string>>;
  /**
   * What is printed per request (local/requestLines.ts): "text", one readable line, or "json"
   * (the default here), the functions' own log and EMF lines as they are.
   */
  readonly logFormat?: LogFormat;
  /** The pools' settings: concurrency, overflow, idle time, containers kept warm. */
  readonly pool?: Omit<PoolOptions, "output" | "lambdaLines">;
}

export interface LocalServer {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly keyOrigin: LocalKey["origin"];
  readonly logFormat: LogFormat;
  readonly dynamoEndpoint: string;
  /** Serve the bundles as they now are on disk, in fresh containers (watch mode). */
  reload(): Promise<void>;
  close(): Promise<void>;
}

/** A start that cannot succeed, with a message that says what to do. */
export class LocalStartError extends Error {
  override readonly name = "LocalStartError";
}

export async function startLocalServer(options: LocalServerOptions = {}): Promise<LocalServer> {
  const cleanup: (() => Promise<void>)[] = [];
  const undo = async (): Promise<void> => {
    for (const step of cleanup.reverse()) await step();
  };
  try {
    const dynamo = await openStore(options);
    cleanup.push(() => dynamo.close());
    const key = await prepareStore(dynamo.endpoint, options);
    const storeEnv = localFunctionEnv(dynamo.endpoint, localTableName);
    // The template's values first, then this shell's environment, then the overrides given on
    // the command line, then the store's settings.
    // The template's AllowLegacyCredentials default ("false") is a deployed stage's: locally the
    // stage's own default applies (lib/config.ts: the local stage takes keys of any form, as the
    // sample events and PETSTORE_API_KEY use), unless the shell or an override sets it.
    const envOf = (logicalId: string): Record<string, string> => {
      const declared = templateFunctionEnv(logicalId, options.parameterOverrides);
      const defaults = { ...declared.defaults };
      delete defaults.ALLOW_LEGACY_KEYS;
      return { ...defaults, ...options.env, ...declared.overridden, ...storeEnv };
    };
    const text = options.logFormat === "text";
    const output = text ? quietFunctionOutput(processOutput) : processOutput;
    // The functions behind routes: the pre-traffic hook (none) is never reached through the gateway.
    const served = servedFunctions();
    const pools = new Map(
      served.map((spec) => {
        const settings = { ...options.pool, output, lambdaLines: !text };
        return [spec.name, new FunctionPool(spec, envOf(spec.logicalId), settings)];
      }),
    );
    cleanup.push(async () => {
      await Promise.all([...pools.values()].map((pool) => pool.close()));
    });
    await assertInitialised([...pools.values()], options.pool?.warm ?? 0);

    const printLine = (handled: Handled): void => {
      process.stdout.write(`${requestLine(handled)}\n`);
    };
    const server = createFront(
      gatewayTo(pools, text ? printLine : undefined),
      options.requestTimeoutMs,
    );
    await listen(server, options.port ?? 3000, options.host ?? "127.0.0.1");
    cleanup.push(async () => {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    });
    const { dataDir } = options;
    if (dataDir) {
      writeEndpointFile(dataDir, dynamo.endpoint);
      cleanup.push(() => {
        removeEndpointFile(dataDir);
        return Promise.resolve();
      });
    }
    const { port } = server.address() as AddressInfo;
    return {
      baseUrl: `http://${options.host ?? "127.0.0.1"}:${port}/v1`,
      apiKey: key.apiKey,
      keyOrigin: key.origin,
      logFormat: options.logFormat ?? "json",
      dynamoEndpoint: dynamo.endpoint,
      reload: async () => {
        await Promise.all([...pools.values()].map((pool) => pool.reload()));
      },
      close: undo,
    };
  } catch (error) {
    await undo();
    throw error;
  }
}

/** The store at `dynamoEndpoint`, checked to answer (StoreUnreachableError), or an embedded one. */
export async function openStore(options: LocalServerOptions): Promise<EmbeddedDynamo> {
  if (options.dynamoEndpoint) {
    await assertStoreReachable(options.dynamoEndpoint);
    return { endpoint: options.dynamoEndpoint, close: () => Promise.resolve() };
  }
  const engine = options.engine ?? storeEngineOf();
  return startEmbeddedDynamo({
    engine,
    ...(options.dataDir && { dataDir: resolve(options.dataDir) }),
  });
}

async function prepareStore(endpoint: string, options: LocalServerOptions): Promise<LocalKey> {
  const db = localClient(endpoint);
  try {
    await ensureTable(db, localTableName);
    return await prepareLocalKey(new ApiKeyStore(db, localTableName), {
      dataDir: options.dataDir,
      fixedKey: options.apiKey,
    });
  } finally {
    db.close();
  }
}

/**
 * One container of each function started (or `--warm N`): a bundle that does not load stops the
 * start. More warm containers than a function's concurrency is refused (`warmRefusal`).
 */
async function assertInitialised(pools: readonly FunctionPool[], warm: number): Promise<void> {
  for (const pool of pools) {
    const refusal = pool.warmRefusal(warm);
    if (refusal) throw new LocalStartError(refusal);
  }
  for (const pool of pools) {
    const error = await pool.warm();
    if (error) {
      // A bundle missing, unreadable or without its handler is the build's to mend; an error its
      // own init threw (a setting it refuses) is not.
      const fromBuild =
        ["SyntaxError", "Runtime.HandlerNotFound"].includes(error.name) ||
        /Cannot find module/.test(error.message);
      const why =
        error.name === timedOutName
          ? `its init ran past Lambda's limit for it (${error.message})`
          : `${error.message}${fromBuild ? " (run npm run build?)" : ""}`;
      throw new LocalStartError(`${pool.spec.name} failed to start: ${why}`);
    }
  }
}

function listen(server: ReturnType<typeof createFront>, port: number, host: string): Promise<void> {
  return new Promise((done, fail) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      // Whichever command started it (npm start, npm run dev) names itself before the message.
      fail(
        error.code === "EADDRINUSE"
          ? new LocalStartError(
              `port ${port} on ${host} is in use (another local server?): stop it, or set PORT to a free port, such as PORT=${port + 1}`,
            )
          : error.code === "ENOTFOUND" || error.code === "EADDRNOTAVAIL"
            ? new LocalStartError(
                `HOST=${host} is not an address of this machine (${error.code}): set HOST to one, such as 127.0.0.1`,
              )
            : error,
      );
    });
    server.listen(port, host, done);
  });
}
