/**
 * `npm run smoke -- <baseUrl | --stage <stage>> [--write] [--timeout-ms 10000]`: a short
 * end-to-end check that a running deployment (a stage, or `npm start`) answers as the contract
 * says. One PASS/FAIL line per check, then a summary; exit 1 when a check fails, 2 on a usage
 * error.
 *
 * The API key comes from PETSTORE_API_KEY or, failing that, the first line of standard input
 * (`pass show petstore/staging | npm run smoke -- --stage staging`); never from the command line,
 * where shell history and `ps` would keep it. Nothing prints it.
 *
 * Read-only by default: the list, 401, 404, 405, 400 and 501 checks create nothing. `--write`
 * adds one create (a category named `smoke-test <ISO time>`) and looks for it in the list; ask
 * for it only where that category may stay (the service has no delete).
 */
import { apiKeyFromEnvOrStdin } from "./lib/apiKey.ts";
import { commandLine, parseCommandLine, UsageError } from "./lib/args.ts";
import { runChecks, smokeCategoryPrefix } from "./lib/smoke/checks.ts";
import type { CheckResult } from "./lib/smoke/checks.ts";
import { stackOutput, stageConfig, stages } from "./stages.ts";
import { capture } from "./process.ts";

export { runChecks as runSmoke, smokeCategoryPrefix };
export type { CheckResult };

const usage =
  `usage: npm run smoke -- <baseUrl ending in /v1 | --stage ${stages.join("|")}> ` +
  `[--write] [--timeout-ms 10000]\n` +
  `  the key: PETSTORE_API_KEY, or the first line of standard input (never an argument)`;

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
  if ((baseUrl === undefined) === (values.stage === undefined)) {
    throw new UsageError("give either a base address or --stage, not both");
  }
  if (values.write && values["read-only"]) throw new UsageError("--write or --read-only, not both");
  if (values.stage !== undefined && !stages.includes(values.stage)) {
    throw new UsageError(`unknown stage "${values.stage}"`);
  }
  if (baseUrl !== undefined && !(URL.canParse(baseUrl) && /^https?:/.test(baseUrl))) {
    throw new UsageError(`not an http(s) address: ${baseUrl}`);
  }
  const timeoutMs = Number(values["timeout-ms"]);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new UsageError("--timeout-ms takes a whole number of milliseconds");
  }
  return { target: baseUrl ?? "", stage: values.stage, write: values.write, timeoutMs };
}

async function main(argv: string[]): Promise<number> {
  const invocation = commandLine(() => readInvocation(argv), {
    help: () => {
      console.log(usage);
    },
    mistake: (message) => {
      console.error(`${message}\n${usage}`);
    },
  });
  if (typeof invocation === "number") return invocation;
  const apiKey = await apiKeyFromEnvOrStdin();
  if (apiKey === undefined) {
    console.error(
      "no API key: set PETSTORE_API_KEY, or pipe the key on standard input " +
        "(e.g. from your secret manager). It is never read from the command line.",
    );
    return 2;
  }
  let baseUrl = invocation.target;
  if (invocation.stage !== undefined) {
    const config = stageConfig(invocation.stage);
    const found = await stackOutput(config, "BaseUrl", capture);
    if (!found.ok) {
      console.error(found.message);
      return 1;
    }
    baseUrl = found.value;
  }
  if (!/\/v1\/?$/.test(new URL(baseUrl).pathname)) {
    console.error(`note: ${baseUrl} does not end in /v1; the stack output BaseUrl does`);
  }
  console.log(`smoke test of ${baseUrl} (${invocation.write ? "with one write" : "read-only"})`);
  const results = await runChecks(baseUrl, apiKey, {
    timeoutMs: invocation.timeoutMs,
    write: invocation.write,
    report: ({ name, ok, detail }) => {
      console.log(`${ok ? "PASS" : "FAIL"}  ${name}${detail ? `: ${detail}` : ""}`);
    },
  });
  const failed = results.filter((result) => !result.ok).length;
  console.log(`smoke: ${results.length - failed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2));
}
