/**
 * The DynamoDB calls the API functions make, recorded: the local server runs the real bundles
 * over the embedded store with a recording proxy in between, and a representative set of
 * requests goes to every route, once normally, once with every first answer from the store lost
 * (so retry and recovery paths run too), then once per kind of call seen with that kind failing
 * (as a lost race, then as an error). test/infra/iam/ checks the calls against the roles.
 */
import { randomBytes } from "node:crypto";
import { startEmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import type { LocalServer } from "../../local/server.ts";
import { unthrottled } from "../../local/functionEnv.ts";
import { startLocalServer } from "../../local/server.ts";
import { routesOf, servedFunctions, tableOf } from "../../local/template.ts";
import type { ItemAccess } from "./dynamoAccess.ts";
import { accessesOf } from "./dynamoAccess.ts";
import { suggestedValue } from "./iamGrants.ts";
import type { Scenario } from "./iamScenarios.ts";
import { scenarios } from "./iamScenarios.ts";
import type { RecordingProxy } from "./recordingDynamoProxy.ts";
import { startRecordingProxy } from "./recordingDynamoProxy.ts";

// The functions behind routes. The pre-traffic hook's table calls are cross-checked against its
// role in test/infra/deployHook.test.ts, which runs it.
export const apiFunctionSpecs = servedFunctions();
export const routes = routesOf(apiFunctionSpecs);
const partitionKey =
  (tableOf().KeySchema as { AttributeName: string; KeyType: string }[]).find(
    (key) => key.KeyType === "HASH",
  )?.AttributeName ?? "";
/** The exploration stops here: more kinds of call than this means it does not converge. */
export const maxExploredKinds = 40;

export interface Recording {
  readonly proxy: RecordingProxy;
  readonly statuses: readonly { round: string; scenario: Scenario; status: number }[];
  /** Call kinds ("UpdateItem IDEMPOTENCY#*") whose failure the exploration has tried. */
  readonly explored: readonly string[];
  /** Every item access the functions made (setup calls aside). */
  accesses(): ItemAccess[];
  close(): Promise<void>;
}

/** The functions' request log lines (one per request, on stdout): not the test's output. */
const writeStdout = process.stdout.write.bind(process.stdout);

export async function recordCalls(): Promise<Recording> {
  process.stdout.write = (chunk: string | Uint8Array, ...rest: never[]) =>
    String(chunk).startsWith('{"time":') ? true : writeStdout(chunk, ...rest);
  const dynamo = await startEmbeddedDynamo();
  const proxy = await startRecordingProxy(dynamo.endpoint);
  // No 429s: a throttled create would skip the very paths the failure rounds are there to reach,
  // and which of them are throttled would depend on the machine's speed.
  const server = await startLocalServer({
    port: 0,
    dynamoEndpoint: proxy.endpoint,
    env: unthrottled,
  });
  const rig: Rig = {
    server,
    proxy,
    statuses: [],
    unknownKey: `petstore_${randomBytes(32).toString("base64url")}`,
  };
  const accesses = (): ItemAccess[] =>
    proxy.calls
      .filter((call) => call.label !== "setup")
      .flatMap((call) => accessesOf(call, partitionKey));

  await runRound(rig, "normal");
  proxy.loseFirstAnswers = true;
  await runRound(rig, "lost answers");
  proxy.loseFirstAnswers = false;
  const explored = await exploreFailures(rig, accesses);
  return {
    proxy,
    statuses: rig.statuses,
    explored,
    accesses,
    close: async () => {
      process.stdout.write = writeStdout;
      await server.close();
      await proxy.close();
      await dynamo.close();
    },
  };
}

interface Rig {
  readonly server: LocalServer;
  readonly proxy: RecordingProxy;
  readonly statuses: { round: string; scenario: Scenario; status: number }[];
  readonly unknownKey: string;
}

/** Every scenario once, each call labelled with the function that made it. */
async function runRound(
  { server, proxy, statuses, unknownKey }: Rig,
  round: string,
): Promise<void> {
  for (const scenario of scenarios(round)) {
    const spec = routes.get(scenario.route);
    if (!spec) throw new Error(`scenario for ${scenario.route}, which the template lacks`);
    proxy.label = spec.name;
    const key = scenario.key === "valid" ? server.apiKey : unknownKey;
    const response = await fetch(`${server.baseUrl.replace(/\/v1$/, "")}${scenario.path}`, {
      method: scenario.method,
      headers: {
        ...(scenario.key && { authorization: `Bearer ${key}` }),
        ...scenario.headers,
      },
      // Bytes, so that fetch adds no Content-Type of its own.
      ...(scenario.body !== undefined && { body: new TextEncoder().encode(scenario.body) }),
    });
    await response.arrayBuffer();
    statuses.push({ round, scenario, status: response.status });
    proxy.label = "between requests";
  }
}

/**
 * For every kind of call seen so far (and those that appear on the way), the scenarios again
 * with that kind failing: once as a lost race (condition failed), once as an error. Returns the
 * kinds tried.
 */
async function exploreFailures(rig: Rig, accesses: () => ItemAccess[]): Promise<string[]> {
  const explored: string[] = [];
  for (;;) {
    const next = kindsOf(accesses()).find((kind) => !explored.includes(kind));
    if (next === undefined || explored.length >= maxExploredKinds) break;
    explored.push(next);
    for (const fault of ["conditional", "error"] as const) {
      rig.proxy.fault = (operation, input) =>
        kindsOf(
          accessesOf({ label: "", operation, input, lost: false, fault: undefined }, partitionKey),
        ).includes(next)
          ? fault
          : undefined;
      await runRound(rig, `${fault}: ${next}`);
    }
  }
  rig.proxy.fault = undefined;
  return explored;
}

/** The kinds of call among the accesses: operation and the partition's LeadingKeys value. */
export function kindsOf(accesses: readonly ItemAccess[]): string[] {
  return [
    ...new Set(
      accesses.map((access) => `${access.operation} ${suggestedValue(access.leadingKey)}`),
    ),
  ];
}
