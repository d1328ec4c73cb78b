/**
 * The bench's view of the store, through local/storeProxy.ts. It records each call in one line
 * (operation, fields, read consistency, attribute names), so the bench can check every variant
 * makes ours' calls; it adds ReturnConsumedCapacity=TOTAL and sums the units the store reports
 * (dynalite counts them as DynamoDB documents: 4 KB per consistent read unit, 1 KB per write
 * unit), so no price rests on a hand count; it counts round trips made one after another and can
 * delay every answer. Dynalite checks a signature's form, not its value, so the rewritten body
 * still passes. The rate limiter's calls (its bucket, partition RATELIMIT#…: a lease now and then,
 * lib/rateLimit/) are kept apart, in `limiter`: the other variants have no limiter, and a
 * request's own units stay comparable with theirs.
 */
import { startStoreProxy } from "../local/storeProxy.ts";

export type Tally = {
  calls: string[];
  readUnits: number;
  writeUnits: number;
  rounds: number;
  limiter: { calls: number; readUnits: number; writeUnits: number };
};
/** The calls, units, round trips and wall time (ms) of `work` alone. */
type Measure = (work: () => Promise<unknown>) => Promise<Tally & { ms: number }>;
export type StoreTally = { endpoint: string; delayMs: number; measure: Measure; close(): void };
type Input = Record<string, unknown>;

const reads = new Set(["GetItem", "Query", "Scan", "BatchGetItem"]);
const empty = (): Tally => ({
  ...{ calls: [], readUnits: 0, writeUnits: 0, rounds: 0 },
  limiter: { calls: 0, readUnits: 0, writeUnits: 0 },
});

/** A call on a rate limit bucket (lib/table/schema.ts: RATELIMIT#<keyId>). */
function isLimiterCall(input: Input): boolean {
  const key = input.Key as { pk?: { S?: string } } | undefined;
  return key?.pk?.S?.startsWith("RATELIMIT#") ?? false;
}
/** Paging (ExclusiveStartKey) is left out: it depends on the page size, not on the calls made. */
function summary(operation: string, input: Input): string {
  const field = (name: string): string => {
    if (name === "ConsistentRead") return `${name}=${String(input[name])}`;
    const names = Object.keys(input[name] ?? {}).sort();
    return name === "Item" || name === "Key" ? `${name}(${names.join(",")})` : name;
  };
  const fields = Object.keys(input).filter((name) => name !== "ExclusiveStartKey");
  return [operation, ...fields.sort().map(field)].join(" ");
}

export async function startStoreTally(store: string): Promise<StoreTally> {
  let [tally, inFlight] = [empty(), 0];
  const proxy = await startStoreProxy(store, async ({ operation, body }, forward) => {
    if (inFlight++ === 0) tally.rounds += 1;
    const input = JSON.parse(body) as Input;
    const limiter = isLimiterCall(input);
    if (limiter) tally.limiter.calls += 1;
    else tally.calls.push(summary(operation, input));
    const answer = await forward(JSON.stringify({ ...input, ReturnConsumedCapacity: "TOTAL" }));
    const used = (JSON.parse(answer.body) as { ConsumedCapacity?: unknown }).ConsumedCapacity;
    const units = limiter ? tally.limiter : tally;
    for (const entry of [used ?? []].flat() as { CapacityUnits: number }[])
      units[reads.has(operation) ? "readUnits" : "writeUnits"] += entry.CapacityUnits;
    await new Promise((done) => setTimeout(done, counter.delayMs));
    inFlight -= 1;
    return answer;
  });
  const counter: StoreTally = {
    endpoint: proxy.endpoint,
    delayMs: 0,
    measure: async (work) => {
      tally = empty();
      const started = performance.now();
      await work();
      return { ...tally, ms: Math.round(performance.now() - started) };
    },
    close: () => void proxy.close(),
  };
  return counter;
}
