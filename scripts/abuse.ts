/**
 * `npm run abuse`: the per-key rate limit under abuse (scripts/lib/abuse/run.ts): three local
 * servers on one embedded store, one key (50/s, burst 100) flooding creates from many
 * connections for 30 s while a second key lists at 10/s, then an outage of the limit's buckets.
 * Checks the flooder's admitted count within [0.9 × 50 × 30, 1.1 × (50 × 30 + 100)], the second
 * key's 100 % success (p99 reported), the limiter's write units on each key's bucket per admitted
 * request (the flood's ≤ 0.1; the second key, a trickle on every container, ≤ 1: DynamoDB's own
 * ConsumedCapacity through the store proxy), nothing stored for any 429, and
 * fail-open during the outage (admitted, no 5xx, counted). Prints the figures and a JSON line.
 *
 *   npm run abuse                             # 30 s on dynalite
 *   npm run abuse -- --store dynamodb-local   # the same on AWS's DynamoDB Local (Java 17)
 *   npm run abuse -- --quick                  # CI: 20 s, the bounds scaled to it
 *
 * Exit status: 0 all checks passed, 1 a check failed, 2 a usage error.
 */
import type { StoreEngine } from "../local/embeddedDynamo.ts";
import { storeEngineOf, storeEngines } from "../local/embeddedDynamo.ts";
import { answersOf, commandLine, parseCommandLine, UsageError } from "./lib/args.ts";
import type { AbuseOptions } from "./lib/abuse/run.ts";
import { formatReport, runAbuse } from "./lib/abuse/run.ts";

const usage =
  "usage: npm run abuse -- [--quick] [--seconds 30] [--connections 16] [--store dynalite|dynamodb-local]";

function readCommand(argv: string[]): AbuseOptions | "help" {
  const { values } = parseCommandLine({
    args: argv,
    options: {
      help: { type: "boolean", short: "h", default: false },
      quick: { type: "boolean", default: false },
      seconds: { type: "string" },
      connections: { type: "string", default: "16" },
      store: { type: "string" },
    },
  });
  if (values.help) return "help";
  const seconds = Number(values.seconds ?? (values.quick ? 20 : 30));
  const connections = Number(values.connections);
  if (![seconds, connections].every((n) => Number.isSafeInteger(n) && n >= 1))
    throw new UsageError("--seconds and --connections must be whole numbers, at least 1");
  const store = values.store ?? storeEngineOf();
  if (!(storeEngines as readonly string[]).includes(store))
    throw new UsageError(`--store must be ${storeEngines.join(" or ")}, got "${store}"`);
  return {
    seconds,
    connections,
    outageSeconds: values.quick ? 3 : 5,
    engine: store as StoreEngine,
  };
}

async function main(argv: string[]): Promise<number> {
  const command = commandLine(() => readCommand(argv), answersOf("abuse", usage));
  if (typeof command === "number") return command;
  try {
    const report = await runAbuse({ ...command, log: (line) => process.stdout.write(`${line}\n`) });
    process.stdout.write(`${formatReport(report)}\n${JSON.stringify(report)}\n`);
    return report.ok ? 0 : 1;
  } catch (error) {
    const why = error instanceof Error ? error.message.split("\n", 1)[0] : String(error);
    process.stderr.write(`abuse: the run could not be made (${why ?? ""})\n`);
    return 1;
  }
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2));
}
