/**
 * `npm run invoke -- <function> <event.json> [--seed N] [--warm N]`: runs one built function on
 * one API Gateway event, like `sam local invoke -e`, on the local server's runtime (a container of
 * local/functionPool.ts, its Timeout and MemorySize enforced), against the embedded store (in
 * memory) or DYNAMODB_ENDPOINT. Lambda's INIT_START and START lines, the function's log lines, END
 * and REPORT (with its Init Duration: the invocation is a cold start, unless `--warm N` started N
 * containers first), in the function's LogFormat, go to stderr, and the result alone to stdout,
 * as `sam local invoke` splits them (so `npm run -s invoke -- … | jq .body` works); exit 0 on a
 * result, 1 when the function fails at init or throws (printed as Lambda reports it) or the store
 * cannot be prepared, 2 on bad usage.
 *
 *   npm run invoke -- listCategories events/list-gzip.json --seed 40
 *   npm run invoke -- CreateCategoryFunction events/create-ok.json
 *
 * The sample events send the documented key petstore_sample-key-for-local-invoke-only, which is
 * made valid here; with PETSTORE_API_KEY set, that key is made valid instead.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { ApiKeyStore, hashApiKey } from "../lib/repositories/apiKeys.ts";
import { CategoryStore } from "../lib/repositories/categories.ts";
import type { FunctionOutput } from "../local/functionPool.ts";
import { FunctionPool, hostInLambdaTimeZone } from "../local/functionPool.ts";
import type { FunctionError } from "../local/functionProtocol.ts";
import { ensureTable, localClient } from "../local/embeddedDynamo.ts";
import { localFunctionEnv, sampleApiKey, sampleKeyLabel } from "../local/functionEnv.ts";
import { describeBody, notAnHttpApiEvent } from "../local/apiGatewayEvent.ts";
import { localOperator, localTableName } from "../local/localKeys.ts";
import { openStore } from "../local/server.ts";
import type { FunctionSpec } from "../local/template.ts";
import { functionsOf, servedFunctions } from "../local/template.ts";
import { buildOrExit, bundleIsStale } from "./build.ts";
import { answersOf, commandLine, parseCommandLine, UsageError } from "./lib/args.ts";

// The functions behind routes: the pre-traffic hook takes CodeDeploy's event, not a request, and
// needs the versions a deploy publishes (test/infra/deployHook.test.ts runs it).
const functions = servedFunctions();
/**
 * Past what takes the list over Lambda's 6 MB before compression (about 65,000 seeded categories
 * of about 100 bytes each); more only makes a developer wait, minutes with no word.
 */
const maxSeed = 100_000;
const usage = `usage: npm run invoke -- <function> <event.json> [--seed N] [--warm N]
  function: ${functions.map((spec) => `${spec.name} (${spec.logicalId})`).join(", ")}
  event:    an API Gateway HTTP API (payload 2.0) event, e.g. events/list-ok.json
  --seed N  create N categories first, at most ${maxSeed.toLocaleString("en")} (e.g. to make a list large
            enough to be compressed; about 65,000 make one over 6 MB before compression)
  --warm N  start N containers first, like provisioned concurrency (INIT_REPORT), then invoke
            warm (no Init Duration in REPORT)
  env: DYNAMODB_ENDPOINT (default: an in-memory embedded store), PETSTORE_API_KEY`;

/** The command line read, "help", or a UsageError: one line naming the command, exit 2. */
function readCommandLine():
  { spec: FunctionSpec; event: unknown; seed: number; warm: number } | "help" {
  const parsed = parseCommandLine({
    allowPositionals: true,
    options: {
      seed: { type: "string" },
      warm: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (parsed.values.help) return "help";
  const [name, eventFile, ...extra] = parsed.positionals;
  if (name === undefined || eventFile === undefined || extra.length > 0)
    throw new UsageError(
      "give a function and an event file, e.g. listCategories events/list-ok.json",
    );
  const spec = functions.find((f) => f.name === name || f.logicalId === name);
  if (!spec)
    throw new UsageError(
      functionsOf().some((f) => f.name === name || f.logicalId === name)
        ? `${name} is behind no route (the deploy's pre-traffic hook): invoke runs ${functions.map((f) => f.name).join(", ")}`
        : `no function "${name}" in infra/template.yaml`,
    );
  const seed = Number(parsed.values.seed ?? 0);
  if (!Number.isSafeInteger(seed) || seed < 0 || seed > maxSeed)
    throw new UsageError(`--seed takes a whole number up to ${maxSeed.toLocaleString("en")}`);
  const warm = Number(parsed.values.warm ?? 0);
  if (!Number.isSafeInteger(warm) || warm < 0) throw new UsageError("--warm takes a whole number");
  // npm runs scripts from the project root; a relative path means the caller's directory.
  const path = resolve(process.env.INIT_CWD ?? process.cwd(), eventFile);
  let event: unknown;
  try {
    event = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new UsageError(
      `cannot read the event ${path}: ${error instanceof Error ? error.message : ""}`,
    );
  }
  const problem = notAnHttpApiEvent(event);
  if (problem)
    throw new UsageError(
      `${eventFile} is not an API Gateway HTTP API (payload 2.0) event: ${problem}`,
    );
  const { routeKey } = event as { routeKey: string };
  if (!spec.routeKeys.includes(routeKey)) {
    process.stderr.write(
      `warning: the event is for route "${routeKey}", which ${spec.name} does not serve (it serves ${spec.routeKeys.join(", ")})\n`,
    );
  }
  return { spec, event, seed, warm };
}

/**
 * The key the events send, registered in the store (as the OS user, in the key history), and the
 * seeded categories. `external`: a store that outlives this run (DYNAMODB_ENDPOINT), where a key
 * it registers stays valid until revoked: said on stderr, with how to revoke it.
 */
async function prepareStore(endpoint: string, seed: number, external: boolean): Promise<void> {
  const db = localClient(endpoint);
  const deadline = Date.now() + 60_000 + seed * 100;
  try {
    await ensureTable(db, localTableName);
    const who = `${localOperator() ?? "local:unknown"} (npm run invoke)`;
    const keys = new ApiKeyStore(db, localTableName).actingAs(who);
    const fixedKey = process.env.PETSTORE_API_KEY?.trim() || undefined;
    const apiKey = fixedKey ?? sampleApiKey;
    // A key already in the store is left as it is, revoked or not.
    if (!(await keys.find(hashApiKey(apiKey), deadline))) {
      const label = fixedKey ? "PETSTORE_API_KEY" : sampleKeyLabel;
      const { record } = await keys.issue(label, deadline, { apiKey });
      if (external) {
        process.stderr.write(
          `invoke: registered ${fixedKey ? "PETSTORE_API_KEY" : "the sample events' public key"} ` +
            `as ${record.keyId} in the store at ${endpoint}; it stays valid there until revoked ` +
            `(npm run keys -- revoke ${record.keyId}, with the same DYNAMODB_ENDPOINT)\n`,
        );
      }
    }
    const categories = new CategoryStore(db, localTableName);
    for (let i = 1; i <= seed; i++) {
      await categories.create(
        {
          name: `Seeded category ${i}`,
          description: `Category ${i} of ${seed}, created by --seed`,
        },
        `seed-${i}`,
        deadline,
      );
    }
  } finally {
    db.close();
  }
}

/** How Lambda reports a function error (init or handler) to a synchronous caller. */
function lambdaError(error: FunctionError): string {
  const report = {
    errorType: error.name,
    errorMessage: error.message,
    trace: error.stack.split("\n"),
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * One invocation in a container of the function's pool, with its own environment, as in Lambda:
 * a cold one, or one of `warm` started first.
 */
async function invoke(
  spec: FunctionSpec,
  event: unknown,
  endpoint: string,
  warm: number,
): Promise<Outcome> {
  hostInLambdaTimeZone();
  const env = { ...process.env, ...localFunctionEnv(endpoint, localTableName) };
  // The function's output and Lambda's lines on stderr: stdout is the result's alone.
  const logs: FunctionOutput = {
    stdout: (text) => process.stderr.write(text),
    stderr: (text) => process.stderr.write(text),
  };
  const options = { lambdaLines: true, warm, output: logs };
  const pool = new FunctionPool(spec, env as Record<string, string>, options);
  const refusal = pool.warmRefusal(warm);
  if (refusal) return { code: 2, stdout: "", stderr: `invoke: ${refusal}\n` };
  try {
    if (warm > 0) await pool.warm();
    // A failing init (e.g. a ConfigError) is a function error too, as in Lambda.
    const outcome = await pool.invoke(event);
    if (!outcome.ok) return { code: 1, stdout: lambdaError(outcome.error), stderr: "" };
    return {
      code: 0,
      stdout: `${JSON.stringify(outcome.result, null, 2)}\n`,
      stderr: describeBody(outcome.result),
    };
  } finally {
    await pool.close();
  }
}

async function main(): Promise<Outcome> {
  const read = commandLine(readCommandLine, answersOf("invoke", usage));
  if (typeof read === "number") process.exit(read);
  const { spec, event, seed, warm } = read;
  if (bundleIsStale(spec)) await buildOrExit("invoke");
  const external = process.env.DYNAMODB_ENDPOINT || undefined;
  let dynamo;
  try {
    dynamo = await openStore({ dynamoEndpoint: external });
  } catch (error) {
    if (!external) throw error;
    const why = error instanceof Error ? error.message : String(error);
    return {
      code: 1,
      stdout: "",
      stderr: `invoke: ${why}: start that store, or unset DYNAMODB_ENDPOINT\n`,
    };
  }
  try {
    await prepareStore(dynamo.endpoint, seed, external !== undefined);
  } catch (error) {
    await dynamo.close();
    const why = error instanceof Error ? error.message : String(error);
    return {
      code: 1,
      stdout: "",
      stderr: `invoke: the store at ${dynamo.endpoint} failed: ${why}\n`,
    };
  }
  const outcome = await invoke(spec, event, dynamo.endpoint, warm);
  await dynamo.close();
  return outcome;
}

const { code, stdout, stderr } = await main();
process.stderr.write(stderr);
// Exit explicitly: the bundle's keep-alive sockets to an external store would hold the process.
process.stdout.write(stdout, () => process.exit(code));
