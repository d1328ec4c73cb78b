/**
 * `npm start`: the local server on PORT (default 3000) over the embedded store persisted in
 * DATA_DIR (default .data/dynamodb), or over an existing DynamoDB-compatible endpoint given as
 * DYNAMODB_ENDPOINT. `--memory` keeps the embedded store in memory. Prints the base URL and a
 * working API key (PETSTORE_API_KEY when set). `--dynamodb-local` (or PETSTORE_STORE=dynamodb-local)
 * runs AWS's DynamoDB Local instead of dynalite, persisted in DATA_DIR (default
 * .data/dynamodb-local). Every mistake ends in one line saying what to do.
 *
 * Each function runs in a pool of containers as Lambda runs it (local/functionPool.ts, docs/local.md):
 * `--concurrency N` (or LOCAL_CONCURRENCY; the functions the template reserves none for),
 * `--warm N` containers kept ready; LOCAL_CONCURRENCY_OVERFLOW=queue makes a request wait for a
 * container rather than be throttled (the project's tools set both). `npm start` passes `--build`: the command line is read
 * first, so `--help` and a mistake answer before anything is built.
 *
 * Also used by `npm run dev` (scripts/dev.ts), which reloads the functions after each rebuild.
 */
import { keyVerdict } from "../lib/keyFormat.ts";
import { resolve } from "node:path";
import { parseAuthorization } from "../lib/auth.ts";
import { defaultDataDir, storeEngineOf } from "../local/embeddedDynamo.ts";
import { parseParameterOverrides, projectRoot, TemplateParameterError } from "../local/template.ts";
import type { LocalServer, LocalServerOptions } from "../local/server.ts";
import { LocalStartError, startLocalServer } from "../local/server.ts";
import { StoreLockedError } from "../local/storeLock.ts";
import { hostInLambdaTimeZone } from "../local/functionPool.ts";
import { logFormatOf } from "../local/requestLines.ts";
import { storeEndpointOf, StoreUnreachableError } from "../local/storeCheck.ts";
import { buildOrExit } from "./build.ts";
import { optionsOrExit } from "./lib/args.ts";

/** The command a message names: `npm start`, or `dev` for `npm run dev` (scripts/dev.ts). */
export type StartCommand = "npm start" | "dev";

const usageOf = (command: StartCommand): string => `usage: ${
  command === "dev" ? "npm run dev" : "npm start"
} [-- [--memory] [--dynamodb-local] [--concurrency N] [--warm N] [--parameter-overrides Key=Value …]]
  --memory          keep the store in memory (a new API key at every start)
  --dynamodb-local  AWS's DynamoDB Local instead of dynalite (or PETSTORE_STORE=dynamodb-local)
  --concurrency N   containers per function at most, where the template reserves none (10);
                    past it a request is throttled (500), as API Gateway answers a Lambda throttle
  --warm N          containers per function started at once and kept ready, like provisioned
                    concurrency, at most the concurrency (without it: one on-demand container
                    each, to check it loads)
${command === "dev" ? "" : "  --build           build the bundles first (npm start passes it)\n"}  --parameter-overrides Key=Value …
                    infra/template.yaml parameters, as sam local start-api takes them
                    (e.g. PetsSunsetAt=2027-01-01T00:00:00Z)
  env: PORT (3000), HOST (127.0.0.1), DATA_DIR (.data/dynamodb), DYNAMODB_ENDPOINT,
       PETSTORE_API_KEY, REQUEST_TIMEOUT_MS (30000), PETSTORE_STORE (dynalite|dynamodb-local),
       LOG_FORMAT (text: one line per request; json: the functions' raw log and EMF lines and
       Lambda's START/END/REPORT lines), LOCAL_CONCURRENCY (as --concurrency),
       LOCAL_CONCURRENCY_OVERFLOW (throttle|queue)
  the API reference is served at /docs`;

let command: StartCommand = "npm start";

function refuse(message: string): never {
  process.stderr.write(`${command}: ${message}\n`);
  process.exit(2);
}

/**
 * `--parameter-overrides A=1 B=2` (or `--parameter-overrides "A=1 B=2"`, or `=` joined): the
 * values up to the next option, and the other arguments.
 */
function splitOverrides(argv: readonly string[]): { rest: string[]; overrides: string[] } {
  const rest: string[] = [];
  const overrides: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg.startsWith("--parameter-overrides=")) {
      overrides.push(arg.slice("--parameter-overrides=".length));
    } else if (arg === "--parameter-overrides") {
      const first = i + 1;
      while (i + 1 < argv.length && !(argv[i + 1] ?? "").startsWith("--"))
        overrides.push(argv[++i] ?? "");
      if (i + 1 === first)
        refuse(
          "--parameter-overrides needs Key=Value pairs, e.g. PetsSunsetAt=2027-01-01T00:00:00Z",
        );
    } else rest.push(arg);
  }
  return { rest, overrides };
}

function parameterOverrides(args: readonly string[]): Record<string, string> {
  try {
    return parseParameterOverrides(args);
  } catch (error) {
    if (error instanceof TemplateParameterError) refuse(`--parameter-overrides: ${error.message}`);
    throw error;
  }
}

export type StartSettings = ReturnType<typeof settings>;

/**
 * The command line and environment of `npm start` (or `npm run dev`) read into the server's
 * settings, or the process ends: --help prints the usage (0), a mistake one line naming the
 * command (2). Nothing has started yet.
 */
export function readStart(name: StartCommand, argv: readonly string[]): StartSettings {
  command = name;
  const { rest, overrides } = splitOverrides(argv);
  const flags = optionsOrExit(name, usageOf(name), rest, {
    memory: { type: "boolean", default: false },
    "dynamodb-local": { type: "boolean", default: false },
    concurrency: { type: "string" },
    warm: { type: "string" },
    build: { type: "boolean", default: false },
  });
  return settings(process.env, flags, overrides);
}

/** A `--name N` flag's (or a variable's) whole number from `least` on, or the default. */
function count(name: string, value: string | undefined, least: number): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  const what = name.toUpperCase() === name ? name : `--${name}`;
  if (!Number.isSafeInteger(parsed) || parsed < least)
    refuse(`${what} takes a whole number from ${least} on, not "${value}"`);
  return parsed;
}

function settings(
  env: NodeJS.ProcessEnv,
  flags: {
    readonly memory: boolean;
    readonly "dynamodb-local": boolean;
    readonly concurrency?: string | undefined;
    readonly warm?: string | undefined;
    readonly build: boolean;
  },
  overrides: readonly string[] = [],
) {
  const given = env.LOCAL_CONCURRENCY_OVERFLOW || "throttle";
  if (given !== "throttle" && given !== "queue")
    refuse(`LOCAL_CONCURRENCY_OVERFLOW must be throttle or queue, not "${given}"`);
  const pool: LocalServerOptions["pool"] = {
    concurrency:
      count("concurrency", flags.concurrency, 1) ??
      count("LOCAL_CONCURRENCY", env.LOCAL_CONCURRENCY || undefined, 1),
    warm: count("warm", flags.warm, 1),
    overflow: given === "queue" ? "queue" : "throttle",
  };
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    refuse(`PORT must be a port number (0 to 65535), got "${env.PORT ?? ""}"`);
  const timeout = Number(env.REQUEST_TIMEOUT_MS ?? 30_000);
  if (!Number.isInteger(timeout) || timeout < 1)
    refuse(
      `REQUEST_TIMEOUT_MS must be a whole number of milliseconds, got "${env.REQUEST_TIMEOUT_MS ?? ""}"`,
    );
  const fixedKey = env.PETSTORE_API_KEY || undefined;
  // A key that is no RFC 6750 token could never be sent in a Bearer header: refuse it at once.
  const parsed = fixedKey && parseAuthorization(`Bearer ${fixedKey}`);
  if (parsed && !(parsed.kind === "bearer" && parsed.token === fixedKey))
    refuse("PETSTORE_API_KEY must be a token of letters, digits and -._~+/ (then =)");
  // A stage's key (an operator's shell exports one for the smoke test) would be printed as the
  // server's key and then refused: say so without echoing it.
  if (fixedKey && keyVerdict(fixedKey, "local") === "refused")
    refuse(
      "PETSTORE_API_KEY holds a key of another stage (or one whose checksum is wrong): the local " +
        "server takes petstore_local_ keys and keys of no format; unset it and npm start makes one",
    );
  const endpoint = orRefuse(() => storeEndpointOf(env));
  const inMemory = flags.memory;
  const engine = flags["dynamodb-local"] ? "dynamodb-local" : orRefuse(() => storeEngineOf(env));
  return {
    engine,
    port,
    host: env.HOST ?? "127.0.0.1",
    dynamoEndpoint: endpoint,
    dataDir:
      inMemory || endpoint
        ? undefined
        : resolve(projectRoot, env.DATA_DIR ?? defaultDataDir(engine)),
    apiKey: fixedKey,
    requestTimeoutMs: timeout,
    parameterOverrides: parameterOverrides(overrides),
    logFormat: orRefuse(() => logFormatOf(env)),
    pool,
    build: flags.build,
    // The functions see this shell's environment, as before; the store settings are the server's.
    env: Object.fromEntries(
      Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
  };
}

/** A setting read by `read`, or its mistake said in one line (refuse). */
function orRefuse<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    refuse((error as Error).message);
  }
}

/** Starts the server as `npm start` does, or prints one line and exits. */
export async function startFromCommandLine(options: StartSettings): Promise<LocalServer> {
  hostInLambdaTimeZone();
  try {
    return await startLocalServer(options);
  } catch (error) {
    if (error instanceof StoreUnreachableError)
      refuse(
        `${error.message}: start that store, or unset DYNAMODB_ENDPOINT to use the embedded one`,
      );
    if (error instanceof StoreLockedError)
      refuse(
        `${error.message}: stop that server, or set DATA_DIR to another folder (or use --memory)`,
      );
    if (error instanceof LocalStartError) refuse(error.message);
    refuse(`the server could not start: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export function banner(server: LocalServer): string {
  const keyNote = {
    PETSTORE_API_KEY: "(PETSTORE_API_KEY)",
    kept: "(the same as last time; kept in DATA_DIR)",
    new: "(new; kept in DATA_DIR for the next start)",
    "per-run": "(new at every start: there is no DATA_DIR to keep it in)",
  }[server.keyOrigin];
  return [
    `Pet Store categories API (local) at ${server.baseUrl}`,
    `API key: ${server.apiKey} ${keyNote}`,
    `Try: curl -H "Authorization: Bearer ${server.apiKey}" ${server.baseUrl}/categories`,
    `API reference: ${new URL(server.baseUrl).origin}/docs (typed client: clients/typescript)`,
    server.logFormat === "text"
      ? "One line per request below; LOG_FORMAT=json prints the functions' JSON log and EMF lines."
      : "LOG_FORMAT=json: the functions' JSON log and EMF lines, as CloudWatch receives them.",
    "",
  ].join("\n");
}

export function stopOnSignals(
  server: LocalServer,
  before: () => Promise<void> = () => Promise.resolve(),
): void {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      void before()
        .then(() => server.close())
        .then(() => process.exit(0));
    });
  }
}

if (import.meta.main) {
  const settings = readStart("npm start", process.argv.slice(2));
  if (settings.build) await buildOrExit("npm start");
  const server = await startFromCommandLine(settings);
  process.stderr.write(banner(server));
  stopOnSignals(server);
}
