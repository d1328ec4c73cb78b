/**
 * `npm run smoke -- <baseUrl | --stage <stage>> [--write] [--timeout-ms 10000]`: a short
 * end-to-end check that a running deployment (a stage, or `npm start`) answers as the contract
 * says. One PASS/FAIL line per check, then a summary. What stops it before the checks is one
 * line, with an exit code of its own (see `exitCodes`): 2 a mistake in the command line (no
 * target, no key), 3 an address not ending in /v1, 4 nothing answers there (connection refused,
 * no such host, no answer in time), 5 no SAM CLI to read a stage's address with, 6 the stage's
 * address could not be read (not deployed, no credentials); 1 when a check fails.
 *
 * The API key comes from PETSTORE_API_KEY or, failing that, the first line of standard input
 * (`pass show petstore/staging | npm run smoke -- --stage staging`); never from the command line,
 * where shell history and `ps` would keep it. Nothing prints it.
 *
 * Read-only by default: the list, 401, 404, 405, 400 and 501 (410 past the sunset) checks create
 * nothing. `--write`
 * adds one create (a category named `smoke-test <ISO time>`) and looks for it in the list; ask
 * for it only where that category may stay (the service has no delete).
 */
import { apiKeyFromEnvOrStdin } from "./lib/apiKey.ts";
import { answersOf, commandLine, parseCommandLine, UsageError } from "./lib/args.ts";
import { printCheck, runChecks } from "./lib/smoke/checks.ts";
import { samInstall } from "./lib/deploy/preflight.ts";
import { unreachable } from "./lib/smoke/reach.ts";
import { SettingsError, stackOutput, stageConfig, stages } from "./stages.ts";
import { capture, which } from "./process.ts";

/** What each way of stopping exits with; --help and docs/deploying.md ("Smoke test") list them. */
export const exitCodes = {
  passed: 0,
  checkFailed: 1,
  usage: 2,
  notV1: 3,
  unreachable: 4,
  noSamCli: 5,
  noBaseUrl: 6,
} as const;

const usage = `usage: npm run smoke -- <baseUrl ending in /v1 | --stage ${stages.join("|")}> [--write] [--timeout-ms 10000]
  the key: PETSTORE_API_KEY, or the first line of standard input (never an argument)
  --stage    read the stage's BaseUrl from its stack (the AWS SAM CLI, your AWS credentials)
  --write    also create one category (smoke-test <time>) and find it in the list
  --read-only  the default, said explicitly (refused together with --write)
exit: 0 every check passed, 1 a check failed, 2 a mistake in the command line (no target, no
  key), 3 the address does not end in /v1, 4 nothing answers there (connection refused, no such
  host, no answer in time), 5 no SAM CLI for --stage, 6 the stage's BaseUrl could not be read`;

interface Invocation {
  readonly target: string;
  readonly stage: string | undefined;
  readonly write: boolean;
  readonly timeoutMs: number;
}

function readInvocation(argv: string[]): Invocation | "help" {
  const { values, positionals } = parseCommandLine({
    args: argv,
    allowPositionals: true,
    options: {
      stage: { type: "string" },
      write: { type: "boolean", default: false },
      "read-only": { type: "boolean", default: false },
      "timeout-ms": { type: "string", default: "10000" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return "help";
  const [baseUrl, ...extra] = positionals;
  if (extra.length > 0) {
    throw new UsageError(
      "too many arguments. The API key is never an argument: set PETSTORE_API_KEY or pass it " +
        "on standard input.",
    );
  }
  if (baseUrl === undefined && values.stage === undefined) {
    throw new UsageError(
      `no target: give the base address (e.g. http://127.0.0.1:3000/v1) or --stage ${stages.join("|")}`,
    );
  }
  if (baseUrl !== undefined && values.stage !== undefined) {
    throw new UsageError("give either a base address or --stage, not both");
  }
  if (values.write && values["read-only"]) throw new UsageError("--write or --read-only, not both");
  if (values.stage !== undefined && !stages.includes(values.stage)) {
    throw new UsageError(`unknown stage "${values.stage}": use ${stages.join(" or ")}`);
  }
  if (baseUrl !== undefined && !(URL.canParse(baseUrl) && /^https?:/.test(baseUrl))) {
    // Not repeated: the one argument given is sometimes the key itself.
    throw new UsageError(
      "the argument is not an http(s) address. The API key is never an argument: set " +
        "PETSTORE_API_KEY or pass it on standard input.",
    );
  }
  const timeoutMs = Number(values["timeout-ms"]);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new UsageError("--timeout-ms takes a whole number of milliseconds");
  }
  return { target: baseUrl ?? "", stage: values.stage, write: values.write, timeoutMs };
}

async function main(argv: string[]): Promise<number> {
  const invocation = commandLine(() => readInvocation(argv), answersOf("smoke", usage));
  if (typeof invocation === "number") return invocation;
  // The address first, then the key: a wrong address is said before the operator fetches a key.
  let baseUrl = invocation.target;
  if (invocation.stage !== undefined) {
    const sam = which("sam");
    if (sam === undefined) {
      console.error(
        `smoke: --stage reads the stage's BaseUrl with the AWS SAM CLI (\`sam\`), which is not on PATH: install it (${samInstall}), or give the base address instead`,
      );
      return exitCodes.noSamCli;
    }
    let config;
    try {
      config = stageConfig(invocation.stage);
    } catch (error) {
      if (!(error instanceof SettingsError)) throw error;
      console.error(`smoke: ${error.message}`);
      return exitCodes.usage;
    }
    const found = await stackOutput(config, "BaseUrl", capture);
    if (!found.ok) {
      console.error(`smoke: ${found.message}`);
      return exitCodes.noBaseUrl;
    }
    baseUrl = found.value;
  }
  if (!/\/v1\/?$/.test(new URL(baseUrl).pathname)) {
    console.error(
      `smoke: ${baseUrl} does not end in /v1: give the API's base address, e.g. ${new URL(baseUrl).origin}/v1 (the stack output BaseUrl ends so)`,
    );
    return exitCodes.notV1;
  }
  const apiKey = await apiKeyFromEnvOrStdin();
  if (apiKey === undefined) {
    console.error(
      "smoke: no API key: set PETSTORE_API_KEY, or pipe the key on standard input " +
        "(e.g. from your secret manager). It is never read from the command line.",
    );
    return exitCodes.usage;
  }
  const down = await unreachable(baseUrl, invocation.timeoutMs);
  if (down !== undefined) {
    console.error(
      `smoke: nothing answers at ${baseUrl} (${down}): is the server running (npm start), or the stage deployed?`,
    );
    return exitCodes.unreachable;
  }
  console.log(`smoke test of ${baseUrl} (${invocation.write ? "with one write" : "read-only"})`);
  const results = await runChecks(baseUrl, apiKey, {
    timeoutMs: invocation.timeoutMs,
    write: invocation.write,
    report: printCheck,
  });
  const failed = results.filter((result) => !result.ok).length;
  console.log(`smoke: ${results.length - failed} passed, ${failed} failed`);
  return failed === 0 ? exitCodes.passed : exitCodes.checkFailed;
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2));
}
