/**
 * `npm run load`: a load test of the local server. Starts `scripts/start.ts --memory` (after
 * building the bundles, as `npm start` does) or uses a running deployment given by
 * `--base-url <…/v1>` (its key from PETSTORE_API_KEY or stdin), sends 5,000 creates at
 * concurrency 50 over keep-alive connections while two list loops run alongside (100 ms apart
 * each), then verifies:
 *
 *   - every answer was 2xx (zero errors);
 *   - every 201 carried a distinct id (zero duplicates);
 *   - the final list holds every created category exactly once, as answered (zero lost), and,
 *     on a server of its own, nothing else (count matches);
 *   - every list answered during the run held every category whose 201 had arrived before it
 *     was asked for, without duplicates, in id order;
 *   - on a server of its own: one request log line per request, all 2xx.
 *
 * Prints throughput and latency percentiles (p50/p90/p99/max) for creates and lists, one line per
 * check and a PASS or FAIL line; exits 1 on any error or loss, 2 on a usage error.
 * `--quick`: 500 creates, the same checks.
 *
 * This file is the command line; the run is in scripts/lib/load/ (run.ts: the run, workers.ts:
 * the create and list loops, report.ts: the checks of the final list and the printed report).
 */
import { apiKeyFromEnvOrStdin } from "./lib/apiKey.ts";
import { answersOf, commandLine, parseCommandLine, UsageError } from "./lib/args.ts";
import type { LoadReport } from "./lib/load/report.ts";
import { formatReport } from "./lib/load/report.ts";
import { runLoad } from "./lib/load/run.ts";

export { formatReport, runLoad };

const usage =
  "usage: npm run load -- [--quick] [--creates 5000] [--concurrency 50] [--list-concurrency 2]" +
  " [--list-pause-ms 100] [--base-url <url ending in /v1>]";
const help = [
  "Without --base-url: builds, starts a fresh in-memory local server and loads it.",
  "With --base-url: loads that deployment; its API key comes from PETSTORE_API_KEY or the first",
  "line of stdin (never a flag, which npm would echo). --quick: 500 creates.",
  "Exit status: 0 all checks passed, 1 an error or a lost category, 2 a usage error.",
].join("\n");

interface Command {
  readonly creates: number;
  readonly concurrency: number;
  readonly listConcurrency: number;
  readonly listPauseMs: number;
  readonly baseUrl: string | undefined;
}

/** The command line; throws a UsageError for a mistake. */
function readCommand(argv: string[]): Command | "help" {
  let values;
  try {
    ({ values } = parseCommandLine({
      args: argv,
      options: {
        help: { type: "boolean", short: "h", default: false },
        quick: { type: "boolean", default: false },
        creates: { type: "string" },
        concurrency: { type: "string", default: "50" },
        "list-concurrency": { type: "string", default: "2" },
        "list-pause-ms": { type: "string", default: "100" },
        "base-url": { type: "string" },
      },
    }));
  } catch (error) {
    // Someone reaching for a key flag learns where the key goes instead.
    if (error instanceof UsageError && error.message.includes("--api-key"))
      throw new UsageError("the API key is read from PETSTORE_API_KEY or stdin, never from a flag");
    throw error;
  }
  if (values.help) return "help";
  const command = {
    creates: Number(values.creates ?? (values.quick ? 500 : 5000)),
    concurrency: Number(values.concurrency),
    listConcurrency: Number(values["list-concurrency"]),
    listPauseMs: Number(values["list-pause-ms"]),
    baseUrl: values["base-url"],
  };
  const { creates, concurrency, listConcurrency, listPauseMs } = command;
  if (
    ![creates, concurrency].every((n) => Number.isSafeInteger(n) && n >= 1) ||
    ![listConcurrency, listPauseMs].every((n) => Number.isSafeInteger(n) && n >= 0)
  ) {
    throw new UsageError("counts must be whole numbers (creates and concurrency at least 1)");
  }
  return command;
}

async function main(argv: string[]): Promise<number> {
  const command = commandLine(() => readCommand(argv), answersOf("load", `${usage}\n${help}`));
  if (typeof command === "number") return command;
  const { baseUrl } = command;
  const apiKey =
    baseUrl === undefined ? "" : await apiKeyFromEnvOrStdin(`API key for ${baseUrl}: `);
  if (apiKey === undefined) {
    process.stderr.write(
      `load: --base-url needs an API key: set PETSTORE_API_KEY or pipe it on stdin\n`,
    );
    return 2;
  }
  let report: LoadReport;
  try {
    report = await runLoad({
      ...command,
      target: baseUrl === undefined ? undefined : { baseUrl, apiKey },
      log: (line) => process.stdout.write(`${line}\n`),
    });
  } catch (error) {
    const where = baseUrl ?? "the local server";
    const reason = error instanceof Error ? error.message : String(error);
    process.stderr.write(`load: ${where} could not be loaded (${reason}); is it running?\n`);
    return 1;
  }
  process.stdout.write(`${formatReport(report)}\n`);
  return report.ok ? 0 : 1;
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2));
}
