/**
 * The metrics tests' rig: the built bundles of createCategory, listCategories and routeFallback in
 * their containers (local/functionPool.ts), as `npm run invoke` and the local server run them,
 * with the environment the template gives (STAGE), a fault proxy between them and the embedded
 * store, and every stdout line they write kept per invocation.
 */
import { afterAll, beforeAll, expect } from "vitest";
import type { HttpEvent } from "../../lib/http/message.ts";
import { metricNames, metricsNamespace, metricsService } from "../../lib/metrics.ts";
import { ApiKeyStore } from "../../lib/repositories/apiKeys.ts";
import type { DynamoDb } from "../../lib/dynamodb.ts";
import type { EmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import { ensureTable, localClient, startEmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import { FunctionPool } from "../../local/functionPool.ts";
import { localFunctionEnv, sampleApiKey, sampleKeyLabel } from "../../local/functionEnv.ts";
import { servedFunctions } from "../../local/template.ts";
import type { FaultProxy } from "../support/faultProxy.ts";
import { startFaultProxy } from "../support/faultProxy.ts";
import type { EmfDocument } from "../support/emf.ts";
import { declared, declaring, isEmfLine, parseEmf } from "../support/emf.ts";
import { bodyText } from "./harness.ts";

export const stage = "staging";
export const tableName = "petstore-metrics";
/** A short Lambda timeout, so a request that meets a store outage gives up within ~2 s. */
const timeoutSeconds = 2;
/** A function of infra/template.yaml that serves routes, by its name there. */
export type Operation = string;

let dynamo: EmbeddedDynamo;
export let proxy: FaultProxy;
export let db: DynamoDb;
const hosts = new Map<Operation, FunctionPool>();
const stdout: string[] = [];

async function start(): Promise<void> {
  dynamo = await startEmbeddedDynamo();
  proxy = await startFaultProxy(dynamo.endpoint);
  db = localClient(dynamo.endpoint);
  await ensureTable(db, tableName);
  await new ApiKeyStore(db, tableName).issue(sampleKeyLabel, Date.now() + 10_000, {
    apiKey: sampleApiKey,
  });
  const env = {
    ...localFunctionEnv(proxy.endpoint, tableName),
    STAGE: stage,
    // The sample events' key is not of the key format: this stage still allows such keys.
    // (AWS_LAMBDA_INITIALIZATION_TYPE, which lib/metrics.ts reads, is the pool's, as Lambda's.)
    ALLOW_LEGACY_KEYS: "true",
  };
  const output = {
    stdout: (text: string) => stdout.push(...text.split("\n").filter(Boolean)),
    stderr: () => undefined,
  };
  for (const spec of servedFunctions()) {
    hosts.set(spec.name, new FunctionPool({ ...spec, timeoutSeconds }, env, { output }));
  }
}
async function stop(): Promise<void> {
  await Promise.all([...hosts.values()].map((host) => host.close()));
  db.close();
  await proxy.close();
  await dynamo.close();
}

export interface Invocation {
  readonly statusCode: number;
  readonly body: string;
  /** Every stdout line of the invocation, as the function wrote it. */
  readonly lines: readonly string[];
  /** The EMF documents among them. */
  readonly documents: readonly EmfDocument[];
}

export async function invoke(operation: Operation, event: HttpEvent): Promise<Invocation> {
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
    body: bodyText(result),
    lines,
    documents: lines.filter(isEmfLine).map(parseEmf),
  };
}

/** The one document of `invocation` that declares `name`, checked for namespace and dimensions. */
export function metric(invocation: Invocation, name: string, operation: Operation): EmfDocument {
  const found = declaring(invocation.lines, name);
  expect(found, `${name} in ${invocation.lines.join("\n")}`).toHaveLength(1);
  const [document] = found;
  if (!document) throw new Error(`no ${name} document`);
  const { namespace, dimensions } = declared(document);
  expect(namespace).toBe(metricsNamespace);
  expect(dimensions).toEqual(
    name === metricNames.errors
      ? ["code", "function", "service", "stage"]
      : ["function", "service", "stage"],
  );
  expect(document).toMatchObject({ service: metricsService, stage, function: operation });
  return document;
}

export const withKey = (event: HttpEvent, key: string): HttpEvent => ({
  ...event,
  headers: { ...event.headers, "idempotency-key": key },
});

/** Starts the rig before the file's tests and stops it after them. */
export function useMetricsRig(): void {
  beforeAll(start);
  afterAll(stop);
}
