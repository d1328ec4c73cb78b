/**
 * `npm run load`: load tests of the service, one scenario a run (the usage below says which).
 * Each starts its own local servers on an embedded store (scripts/lib/load/local.ts), drives HTTP
 * traffic, tallies answers and latencies, and prints one line per check, a PASS or FAIL line and
 * the report as one JSON line. `creates` (scripts/lib/load/creates.ts; docs/reliability.md,
 * "Load") can load a running deployment instead; `abuse` (scripts/lib/load/abuse.ts;
 * docs/rate-limits.md, "The abuse run") is the per-key rate limit's.
 */
import type { StoreEngine } from "../local/embeddedDynamo.ts";
import { storeEngines } from "../local/embeddedDynamo.ts";
import { keyPattern } from "../lib/keyFormat.ts";
import { apiKeyFromEnvOrStdin } from "./lib/apiKey.ts";
import { answersOf, commandLine, parseCommandLine, UsageError } from "./lib/args.ts";
import type { AbuseOptions } from "./lib/load/abuse.ts";
import { formatReport as formatAbuse, runAbuse } from "./lib/load/abuse.ts";
import type { LoadOptions } from "./lib/load/creates.ts";
import { formatReport, runLoad } from "./lib/load/creates.ts";

export { formatReport, runLoad };

const usage = `usage: npm run load -- [--scenario creates|abuse] [--quick] [--store dynalite|dynamodb-local]
  creates (default): creates at concurrency, lists alongside; nothing lost, duplicated or stale
    [--creates 5000] [--concurrency 50] [--list-concurrency 2] [--list-pause-ms 100]
    [--base-url <url ending in /v1>]  a running deployment instead of a local server; its API key
                                      from PETSTORE_API_KEY or the first line of stdin, never a flag
  abuse: per-key rate limits under a flood, three servers on one store, then a bucket outage
    [--seconds 30] [--connections 16]
  --quick   creates: 500 creates; abuse: 20 s and a 3 s outage (CI)
  --store   the local servers' embedded store (default: PETSTORE_STORE, else dynalite)
Exit status: 0 all checks passed, 1 a check failed, 2 a usage error, 4 the run could not be
made (nothing answers at --base-url, or the local servers did not start), as npm run smoke uses 4.`;

const scenarioOptions = {
  creates: ["creates", "concurrency", "list-concurrency", "list-pause-ms", "base-url"],
  abuse: ["seconds", "connections"],
} as const;
type Scenario = keyof typeof scenarioOptions;

type Command =
  | { readonly scenario: "abuse"; readonly options: AbuseOptions }
  | { readonly scenario: "creates"; readonly options: LoadOptions; readonly baseUrl?: string };

/** The command line; throws a UsageError for a mistake. */
function readCommand(argv: string[]): Command | "help" {
  const text = { type: "string" } as const;
  let values;
  try {
    ({ values } = parseCommandLine({
      args: argv,
      options: {
        help: { type: "boolean", short: "h", default: false },
        quick: { type: "boolean", default: false },
        scenario: { type: "string", default: "creates" },
        store: text,
        ...{ creates: text, concurrency: text, "list-concurrency": text, "list-pause-ms": text },
        ...{ "base-url": text, seconds: text, connections: text },
      },
    }));
  } catch (error) {
    // Someone reaching for a key flag learns where the key goes instead.
    if (error instanceof UsageError && error.message.includes("--api-key"))
      throw new UsageError("the API key is read from PETSTORE_API_KEY or stdin, never from a flag");
    throw error;
  }
  if (values.help) return "help";
  const scenario = values.scenario as Scenario;
  if (!Object.hasOwn(scenarioOptions, scenario))
    throw new UsageError(`--scenario must be creates or abuse, got "${values.scenario}"`);
  for (const [other, names] of Object.entries(scenarioOptions)) {
    const given = other === scenario ? undefined : names.find((name) => name in values);
    if (given) throw new UsageError(`--${given} belongs to --scenario ${other}`);
  }
  const store = values.store ?? (process.env.PETSTORE_STORE || "dynalite");
  if (!(storeEngines as readonly string[]).includes(store))
    throw new UsageError(
      `--store (or PETSTORE_STORE) must be ${storeEngines.join(" or ")}, not "${store}"`,
    );
  if (values.store !== undefined && values["base-url"] !== undefined)
    throw new UsageError("--store is the local servers' store: --base-url has none of them");
  const engine = store as StoreEngine;
  type Count = (typeof scenarioOptions)[Scenario][number];
  const count = (name: Count, fallback: number, least: number): number => {
    const value = values[name];
    const n = Number(value ?? fallback);
    if (Number.isSafeInteger(n) && n >= least) return n;
    throw new UsageError(`--${name} must be a whole number, at least ${least}, not "${value}"`);
  };
  if (scenario === "abuse") {
    const seconds = count("seconds", values.quick ? 20 : 30, 1);
    const connections = count("connections", 16, 1);
    const outageSeconds = values.quick ? 3 : 5;
    return { scenario, options: { engine, seconds, connections, outageSeconds } };
  }
  const options = {
    engine,
    creates: count("creates", values.quick ? 500 : 5000, 1),
    concurrency: count("concurrency", 50, 1),
    listConcurrency: count("list-concurrency", 2, 0),
    listPauseMs: count("list-pause-ms", 100, 0),
  };
  const baseUrl = values["base-url"];
  if (
    baseUrl !== undefined &&
    !(URL.canParse(baseUrl) && /^https?:\/\/[^/]+\/v1\/?$/.test(baseUrl))
  )
    throw new UsageError("--base-url must be the API's base address, http(s)://host/v1");
  return { scenario, options, ...(baseUrl !== undefined && { baseUrl }) };
}

async function main(argv: string[]): Promise<number> {
  const command = commandLine(() => readCommand(argv), answersOf("load", usage));
  if (typeof command === "number") return command;
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const baseUrl = command.scenario === "creates" ? command.baseUrl : undefined;
  const apiKey =
    baseUrl === undefined ? "" : await apiKeyFromEnvOrStdin(`API key for ${baseUrl}: `);
  if (apiKey === undefined) {
    process.stderr.write(
      `load: --base-url needs an API key: set PETSTORE_API_KEY or pipe it on stdin\n`,
    );
    return 2;
  }
  // Its thousands of categories cannot be deleted (the API has no delete): never production.
  if (keyPattern.exec(apiKey)?.[1] === "prod") {
    process.stderr.write(
      `load: that is a production key, and a load run leaves thousands of categories behind: load staging or a local server\n`,
    );
    return 2;
  }
  try {
    const [report, summary] =
      command.scenario === "abuse"
        ? await runAbuse({ ...command.options, log }).then((r) => [r, formatAbuse(r)] as const)
        : await runLoad({
            ...command.options,
            target: baseUrl === undefined ? undefined : { baseUrl, apiKey },
            log,
          }).then((r) => [r, formatReport(r)] as const);
    process.stdout.write(`${summary}\n${JSON.stringify(report)}\n`);
    return report.ok ? 0 : 1;
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n", 1)[0] : String(error);
    process.stderr.write(
      baseUrl === undefined
        ? `load: the run could not be made (${reason ?? ""})\n`
        : `load: ${baseUrl} could not be loaded (${reason ?? ""}); is it running?\n`,
    );
    return 4;
  }
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2));
}
