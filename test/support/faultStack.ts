/**
 * The end-to-end fault rig: an embedded store (dynalite) started in the test process, the
 * fault-injecting proxy in front of it, and the local server (`scripts/start.ts`, a child
 * process running the built bundles) talking to the store only through the proxy:
 *
 *   client ──HTTP──▶ local server (functions) ──DynamoDB JSON──▶ fault proxy ──▶ dynalite
 *
 * Plus a direct client to the store (behind the proxy), the request log parsed, a chaos
 * injector that keeps adding random faults while a workload runs, and the check of "what the
 * client saw" (the 201s) against "what is listed": none lost, no phantom, no id twice, none
 * altered.
 */
import type { DynamoDb } from "../../lib/dynamodb.ts";
import type { RequestLogLine } from "../../lib/log.ts";
import type { EmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import { localClient, startEmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import { functionsOf } from "../../local/template.ts";
import type { Fault, FaultProxy } from "./faultProxy.ts";
import { startFaultProxy } from "./faultProxy.ts";
import type { RunningServer } from "./localServer.ts";
import { startServer } from "./localServer.ts";
import { scaled } from "./speed.ts";
import { expect } from "vitest";
import type { Category } from "./client.ts";
import { listCategories } from "./client.ts";

/** The categories functions' Lambda timeout (infra/template.yaml), which bounds a request's budget. */
export const lambdaTimeoutMs =
  1000 *
  Math.max(
    ...functionsOf()
      .filter((spec) => spec.routeKeys.some((routeKey) => routeKey.endsWith(" /v1/categories")))
      .map((spec) => spec.timeoutSeconds),
  );

/**
 * The per-attempt timeout the rig gives the functions, so "slow" faults cost little time: 250 ms
 * on a quiet machine, more on a busy one, measured as each stack starts. Where an answer the
 * proxy gives at once takes longer than that to be read, the request fails on a timeout instead
 * of the injected fault, and its log line names another cause. At most a fifth of the budget, so
 * a request still makes several attempts.
 */
function attemptTimeoutNow(): number {
  return Math.min(scaled(250), lambdaTimeoutMs / 5);
}

export interface FaultStack {
  /** The functions' per-attempt timeout (STORE_ATTEMPT_TIMEOUT_MS) on this stack. */
  readonly attemptTimeoutMs: number;
  /** A slow answer held well past the attempt timeout: the attempt is abandoned and retried. */
  readonly slowDelayMs: number;
  readonly dynamo: EmbeddedDynamo;
  readonly proxy: FaultProxy;
  readonly server: RunningServer;
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Straight to the store, around the proxy: for arranging and inspecting rows. */
  readonly db: DynamoDb;
  /** Total faults the proxy has injected so far, all kinds together. */
  injectedTotal(): number;
  stop(): Promise<void>;
}

export async function startFaultStack(env: Record<string, string> = {}): Promise<FaultStack> {
  const attemptTimeoutMs = attemptTimeoutNow();
  const dynamo = await startEmbeddedDynamo();
  const proxy = await startFaultProxy(dynamo.endpoint);
  let server: RunningServer;
  try {
    server = await startServer({
      env: {
        DYNAMODB_ENDPOINT: proxy.endpoint,
        STORE_ATTEMPT_TIMEOUT_MS: String(attemptTimeoutMs),
        // Every request looks its key up (GetItem), so key lookups meet the faults too.
        API_KEY_CACHE_SECONDS: "0",
        ...env,
      },
    });
  } catch (error) {
    await proxy.close();
    await dynamo.close();
    throw error;
  }
  const db = localClient(dynamo.endpoint);
  return {
    attemptTimeoutMs,
    slowDelayMs: 3 * attemptTimeoutMs,
    dynamo,
    proxy,
    server,
    baseUrl: server.baseUrl,
    apiKey: server.apiKey,
    db,
    injectedTotal: () => [...proxy.injected.values()].reduce((a, b) => a + b, 0),
    stop: async () => {
      await server.stop();
      db.close();
      await proxy.close();
      await dynamo.close();
    },
  };
}

/** The request log (the server's stdout) parsed; a line that is not a JSON object fails the test. */
export function logEntries(server: RunningServer): RequestLogLine[] {
  return server.logLines.map((line) => {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new Error(`a log line is not a JSON object: ${line}`);
    }
    return parsed as RequestLogLine;
  });
}

/** How many lines of the request log carry each status. */
export function loggedStatuses(server: RunningServer): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of logEntries(server)) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/** Waits until the server has written at least `count` log lines (stdout trails the answer). */
export async function waitForLogLines(
  server: RunningServer,
  count: number,
  timeoutMs = scaled(5_000),
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (server.logLines.length < count) {
    if (Date.now() > until) {
      throw new Error(`expected ${count} log lines, have ${server.logLines.length}`);
    }
    await sleep(10);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

/** Faults that answer without the store applying anything. */
export const rejectingFaults = [
  "provisioned_throughput_exceeded",
  "throttling",
  "server_error",
  "service_unavailable",
  "reset",
] as const satisfies readonly Fault[];

/** Faults where the store applies the request and the answer is lost or late. */
export const applyingFaults = ["lost_response", "slow"] as const satisfies readonly Fault[];

export interface ChaosOptions {
  readonly faults: readonly Fault[];
  readonly operations: readonly string[];
  /** Chance that a store request of one of `operations` earns a fault for a later one. */
  readonly probability: number;
  /** How often the injector looks at the traffic. */
  readonly tickMs: number;
  /** At most this many injected-but-not-yet-applied faults at any time. */
  readonly maxPending: number;
  /** A seeded random source, so a failing campaign can be replayed. */
  readonly random: () => number;
}

export interface Chaos {
  /** Random rules added so far (each for one request). */
  readonly added: () => number;
  /** Stops adding rules, e.g. while an outage rule holds the proxy. */
  pause(): void;
  /** Adds rules again, after `proxy.clear()` dropped whatever was still pending. */
  resume(): void;
  stop(): void;
}

/**
 * Random faults in proportion to the traffic: for each store request of the chosen operations
 * the proxy has seen, with `probability`, a one-shot rule (random kind) is added for the next
 * request of the same operation, whichever request that belongs to. An operation that gets no
 * traffic gets no faults, so a rarely used one is not starved by a pile of pending rules.
 *
 * While it runs (not paused) it must be the only source of rules: it reads how many of its
 * rules are still pending from the proxy's running total.
 */
export function startChaos(stack: FaultStack, options: ChaosOptions): Chaos {
  let added = 0;
  /** Rules known to be applied or dropped: not pending. */
  let settled = 0;
  let paused = false;
  let offset = stack.injectedTotal();
  const lastSeen = new Map(options.operations.map((op) => [op, stack.proxy.seen.get(op) ?? 0]));
  const pick = <T>(items: readonly T[]): T =>
    items[Math.floor(options.random() * items.length)] as T;
  const timer = setInterval(() => {
    for (const operation of options.operations) {
      const seen = stack.proxy.seen.get(operation) ?? 0;
      const fresh = seen - (lastSeen.get(operation) ?? 0);
      lastSeen.set(operation, seen);
      for (let i = 0; i < fresh && !paused; i++) {
        const pending = added - settled - (stack.injectedTotal() - offset);
        if (pending >= options.maxPending || options.random() >= options.probability) continue;
        const fault = pick(options.faults);
        stack.proxy.inject({
          fault,
          operation,
          times: 1,
          ...(fault === "slow" && { delayMs: stack.slowDelayMs }),
        });
        added += 1;
      }
    }
  }, options.tickMs);
  return {
    added: () => added,
    pause: () => {
      paused = true;
    },
    resume: () => {
      settled = added;
      offset = stack.injectedTotal();
      paused = false;
    },
    stop: () => {
      paused = true;
      clearInterval(timer);
    },
  };
}

/**
 * An outage longer than the request budget: chaos paused, every request of `operations` refused
 * (one rejecting kind picked per operation) for `ms`, then the proxy cleared and chaos resumed.
 * Resolves to the faults injected meanwhile (its own, and random ones pending when it began).
 */
export async function outlastingOutage(
  stack: FaultStack,
  chaos: Chaos,
  ms: number,
  operations: readonly string[],
  random: () => number,
): Promise<number> {
  const pick = (): Fault => rejectingFaults[Math.floor(random() * rejectingFaults.length)] as Fault;
  chaos.pause();
  const before = stack.injectedTotal();
  for (const operation of operations)
    stack.proxy.inject({ fault: pick(), operation, times: Infinity });
  await sleep(ms);
  const during = stack.injectedTotal() - before;
  stack.proxy.clear();
  chaos.resume();
  return during;
}

export interface Consistency {
  /** Answered 201 but not listed. */
  readonly lost: Category[];
  /** Listed although no 201 named it. */
  readonly phantom: Category[];
  /** Listed more than once, or one id answered to two creates. */
  readonly duplicateIds: number[];
  /** Listed under a 201's id with other content than the 201 answered. */
  readonly altered: Category[];
}

/** Compares the categories the client saw a 201 for with the list: they must be the same set. */
export function consistency(
  created: readonly Category[],
  listed: readonly Category[],
): Consistency {
  const duplicateIds = new Set<number>();
  const byId = new Map<number, Category>();
  for (const category of created) {
    if (byId.has(category.id)) duplicateIds.add(category.id);
    byId.set(category.id, category);
  }
  const listedIds = new Set<number>();
  const phantom: Category[] = [];
  const altered: Category[] = [];
  for (const category of listed) {
    if (listedIds.has(category.id)) duplicateIds.add(category.id);
    listedIds.add(category.id);
    const seen = byId.get(category.id);
    if (!seen) phantom.push(category);
    else if (JSON.stringify(seen) !== JSON.stringify(category)) altered.push(category);
  }
  return {
    lost: created.filter((category) => !listedIds.has(category.id)),
    phantom,
    duplicateIds: [...duplicateIds],
    altered,
  };
}

/** One line of figures for the run's output: requests, faults, and what was lost (nothing). */
export async function reportFigures(
  label: string,
  stack: FaultStack,
  created: readonly Category[],
  extra: Readonly<Record<string, number>> = {},
): Promise<void> {
  const check = consistency(created, await listCategories(stack.baseUrl, stack.apiKey));
  const figures = {
    requests: stack.server.logLines.length,
    faultsInjected: stack.injectedTotal(),
    created201: created.length,
    ...extra,
    lost: check.lost.length,
    phantom: check.phantom.length,
    duplicateIds: check.duplicateIds.length,
  };
  console.info(`[reliability] ${label}: ${JSON.stringify(figures)}`);
}

export function expectConsistent(created: readonly Category[], listed: readonly Category[]): void {
  expect(consistency(created, listed)).toEqual({
    lost: [],
    phantom: [],
    duplicateIds: [],
    altered: [],
  });
  const ids = listed.map((category) => category.id);
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
}

/** A list answered during a workload, and the 201s the client had when it asked for it. */
export interface ListSnapshot {
  readonly seenBefore: readonly Category[];
  readonly listed: readonly Category[];
}

/**
 * Each list, in id order with no id twice, held every 201 seen before it was asked for, and
 * nothing under an id that no 201 answered with that content (a category in flight may show up
 * before its 201 arrives).
 */
export function expectListsHeldTheirPast(
  snapshots: readonly ListSnapshot[],
  created: readonly Category[],
): void {
  const everCreated = new Map(created.map((c) => [c.id, c]));
  for (const { seenBefore, listed } of snapshots) {
    const ids = listed.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const listedIds = new Set(ids);
    expect(seenBefore.filter((c) => !listedIds.has(c.id))).toEqual([]);
    expect(listed.filter((c) => everCreated.get(c.id)?.name !== c.name)).toEqual([]);
  }
}
