/**
 * The built bundles run as the local server and `npm run invoke` run them (local/functionHost.ts),
 * for one test file: with the environment the template gives (STAGE), a short Lambda timeout, and
 * a fault proxy between them and an embedded store holding the sample key. Every stdout line the
 * functions write is kept, so a test reads exactly what one invocation wrote.
 */
import { afterAll, beforeAll } from "vitest";
import type { DynamoDb } from "../../lib/dynamodb.ts";
import type { HttpEvent } from "../../lib/http/message.ts";
import { ApiKeyStore } from "../../lib/repositories/apiKeys.ts";
import type { EmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import { ensureTable, localClient, startEmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import { FunctionHost } from "../../local/functionHost.ts";
import { localFunctionEnv, sampleApiKey, sampleKeyLabel } from "../../local/functionEnv.ts";
import { functionsOf } from "../../local/template.ts";
import { lambdaBodyText } from "../../scripts/lib/httpClient.ts";
import type { EmfDocument } from "./emf.ts";
import { isEmfLine, parseEmf } from "./emf.ts";
import type { FaultProxy } from "./faultProxy.ts";
import { startFaultProxy } from "./faultProxy.ts";

export interface HostedInvocation {
  readonly statusCode: number;
  readonly body: string;
  /** Every stdout line of the invocation, as the function wrote it. */
  readonly lines: readonly string[];
  /** The EMF documents among them. */
  readonly documents: readonly EmfDocument[];
}

export interface HostsOptions<Operation extends string> {
  readonly stage: string;
  readonly tableName: string;
  readonly timeoutSeconds: number;
  readonly operations: readonly Operation[];
}

export interface FunctionHosts<Operation extends string> {
  /** Between the functions and the store: inject faults here. */
  readonly proxy: () => FaultProxy;
  /** Straight to the store. */
  readonly db: () => DynamoDb;
  readonly invoke: (operation: Operation, event: HttpEvent) => Promise<HostedInvocation>;
}

export function useFunctionHosts<Operation extends string>(
  options: HostsOptions<Operation>,
): FunctionHosts<Operation> {
  let dynamo: EmbeddedDynamo | undefined;
  let proxy: FaultProxy | undefined;
  let db: DynamoDb | undefined;
  const hosts = new Map<Operation, FunctionHost>();
  const stdout: string[] = [];

  beforeAll(async () => {
    dynamo = await startEmbeddedDynamo();
    proxy = await startFaultProxy(dynamo.endpoint);
    db = localClient(dynamo.endpoint);
    await ensureTable(db, options.tableName);
    await new ApiKeyStore(db, options.tableName).issue(
      sampleKeyLabel,
      undefined,
      Date.now() + 10_000,
      sampleApiKey,
    );
    const env = {
      ...localFunctionEnv(proxy.endpoint, options.tableName),
      STAGE: options.stage,
      // As Lambda sets it: Powertools counts cold starts of on-demand environments only.
      AWS_LAMBDA_INITIALIZATION_TYPE: "on-demand",
    };
    const output = {
      stdout: (text: string) => stdout.push(...text.split("\n").filter(Boolean)),
      stderr: () => undefined,
    };
    for (const spec of functionsOf()) {
      const name = options.operations.find((operation) => operation === spec.name);
      if (name) {
        const setup = { ...spec, timeoutSeconds: options.timeoutSeconds };
        hosts.set(name, new FunctionHost(setup, env, output));
      }
    }
  });
  afterAll(async () => {
    await Promise.all([...hosts.values()].map((host) => host.close()));
    db?.close();
    await proxy?.close();
    await dynamo?.close();
  });

  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the function hosts are not started (beforeAll)");
    return value;
  };
  return {
    proxy: () => started(proxy),
    db: () => started(db),
    invoke: async (operation, event) => {
      const host = hosts.get(operation);
      if (!host) throw new Error(`${operation} is not in infra/template.yaml`);
      const before = stdout.length;
      const outcome = await host.invoke(event);
      if (!outcome.ok) throw new Error(`${operation} failed: ${outcome.error.message}`);
      const result = outcome.result as {
        statusCode: number;
        body: string;
        headers: Record<string, string>;
        isBase64Encoded: boolean;
      };
      const lines = stdout.slice(before);
      return {
        statusCode: result.statusCode,
        body: lambdaBodyText(result),
        lines,
        documents: lines.filter(isEmfLine).map(parseEmf),
      };
    },
  };
}
