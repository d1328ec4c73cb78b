/**
 * A fault-injecting proxy between the service's DynamoDB client and the embedded store
 * (local/storeProxy.ts). Each rule applies to the next `times` requests for an operation (or
 * any): throttling answers, 5xx, connection resets before or after the store has applied the
 * request, and slow answers.
 */
import type { StoreAnswer } from "../../local/storeProxy.ts";
import { startStoreProxy, storeError } from "../../local/storeProxy.ts";
import { partitions } from "../../lib/table/schema.ts";

export type Fault =
  | "provisioned_throughput_exceeded"
  | "throttling"
  | "server_error"
  | "service_unavailable"
  | "reset"
  /** The store applies the request, then the connection drops before the answer arrives. */
  | "lost_response"
  | "slow";

export interface FaultRule {
  readonly fault: Fault;
  readonly operation?: string;
  /** Only requests whose item key's partition starts with this (a GetItem of a category, say). */
  readonly partition?: string;
  /** How many matching requests to fault; Infinity for all until cleared. */
  readonly times: number;
  /** For "slow": how long to hold the answer. */
  readonly delayMs?: number;
}

export interface FaultProxy {
  readonly endpoint: string;
  inject(rule: FaultRule): void;
  clear(): void;
  /** Requests seen per operation, faulted or not (the rate limiter's bucket calls aside). */
  readonly seen: Map<string, number>;
  /** The rate limiter's bucket calls: forwarded untouched, never faulted, counted apart. */
  readonly limiterCalls: () => number;
  /** Faults injected so far, per fault kind. */
  readonly injected: Map<Fault, number>;
  /** "slow" answers the store has given so far, held back now or before: those requests applied. */
  readonly slowAnswered: () => number;
  close(): Promise<void>;
}

/** The faults answered without asking the store. */
const errorAnswers: Partial<Record<Fault, StoreAnswer>> = {
  provisioned_throughput_exceeded: injected(400, "ProvisionedThroughputExceededException"),
  throttling: injected(400, "ThrottlingException"),
  server_error: injected(500, "InternalServerError"),
  service_unavailable: injected(503, "ServiceUnavailable"),
};

/** The partition of the item a request names by its Key or Item ("" for a Query or a batch). */
function partitionOf(body: string): string {
  type Named = { pk?: { S?: unknown } };
  const { Key, Item } = JSON.parse(body) as { Key?: Named; Item?: Named };
  const pk = (Key ?? Item)?.pk?.S;
  return typeof pk === "string" ? pk : "";
}

function injected(status: number, type: string): StoreAnswer {
  return storeError(status, `com.amazonaws.dynamodb.v20120810#${type}`, "injected fault");
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const rules: { rule: FaultRule; left: number }[] = [];
  const seen = new Map<string, number>();
  const injected = new Map<Fault, number>();
  const count = <K>(map: Map<K, number>, key: K) => map.set(key, (map.get(key) ?? 0) + 1);

  const take = (operation: string, partition: string): FaultRule | undefined => {
    const entry = rules.find(
      (r) =>
        r.left > 0 &&
        (!r.rule.operation || r.rule.operation === operation) &&
        partition.startsWith(r.rule.partition ?? ""),
    );
    if (!entry) return undefined;
    entry.left -= 1;
    count(injected, entry.rule.fault);
    return entry.rule;
  };

  // The limiter's leases (lib/rateLimit/) ride on the same store but are not the category path
  // these faults test: a fault there fails open by design (test/http/rateLimit.test.ts,
  // npm run load -- --scenario abuse), so they pass through and stay out of `seen`.
  let limiterCalls = 0;
  let slowAnswered = 0;
  const store = await startStoreProxy(target, async ({ operation, body }, forward) => {
    const partition = partitionOf(body);
    if (partition.startsWith(partitions.rateLimit(""))) {
      limiterCalls += 1;
      return forward();
    }
    count(seen, operation);
    const rule = take(operation, partition);
    const error = rule && errorAnswers[rule.fault];
    if (error) return error;
    if (rule?.fault === "reset") return "cut";
    const answer = await forward();
    if (rule?.fault === "lost_response") return "cut";
    if (rule?.fault === "slow") {
      slowAnswered += 1;
      await new Promise((done) => setTimeout(done, rule.delayMs ?? 3000));
    }
    return answer;
  });
  return {
    ...store,
    inject: (rule) => {
      rules.push({ rule, left: rule.times });
    },
    clear: () => {
      rules.length = 0;
    },
    seen,
    limiterCalls: () => limiterCalls,
    injected,
    slowAnswered: () => slowAnswered,
  };
}
