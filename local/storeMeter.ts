/**
 * The store's own figures for the calls made through the project's one store proxy
 * (./storeProxy.ts), for the bench (bench/proxy.ts) and the abuse run (scripts/lib/load/abuse.ts):
 * every call gets ReturnConsumedCapacity=TOTAL and the units the store's answer reports are
 * summed (dynalite counts them as DynamoDB documents: 4 KB per consistent read unit, 1 KB per
 * write unit), so no figure rests on a hand count. Dynalite checks a signature's form, not its
 * value, so the rewritten body still passes. The rate limiter's calls (its bucket, partition
 * RATELIMIT#…: a lease now and then, lib/rateLimit/) are kept apart, in `limiter`, from the
 * requests' own (keys, categories, idempotency records).
 */
import type { StoreAnswer } from "./storeProxy.ts";
import { startStoreProxy } from "./storeProxy.ts";

export interface Units {
  writeUnits: number;
  readUnits: number;
  calls: number;
  /** Writes whose condition did not hold. */
  refusedWrites: number;
}

/** A call as the meter sees it: its operation and input, and whether it is on a bucket. */
export interface MeteredCall {
  readonly operation: string;
  readonly input: Record<string, unknown>;
  readonly bucket: boolean;
}

export interface StoreMeterOptions {
  /**
   * A conditional write whose condition fails consumes a write unit in DynamoDB all the same, but
   * its error answer carries no ConsumedCapacity (in DynamoDB and the emulators alike): when set,
   * each is counted as the one unit it costs (items here are far under 1 KB).
   */
  readonly refusedWriteUnit?: boolean;
  /** Sees each call first; an answer it gives is the client's, and the store is not asked. */
  readonly before?: (call: MeteredCall) => StoreAnswer | undefined;
  /** Runs once the store has answered a call, before the client gets the answer. */
  readonly after?: () => Promise<void>;
}

export interface StoreMeter {
  readonly endpoint: string;
  /** The rate limit's bucket calls. */
  limiter: Units;
  /** The same, per bucket (its partition, `RATELIMIT#<bucket>`): each key's own share. */
  buckets: Map<string, Units>;
  /** Everything else: the requests' own calls. */
  requests: Units;
  /** Starts both counts again from zero (a call still under way counts in the old ones). */
  reset(): void;
  close(): Promise<void>;
}

const reads = new Set(["GetItem", "Query", "BatchGetItem", "Scan"]);
const empty = (): Units => ({ writeUnits: 0, readUnits: 0, calls: 0, refusedWrites: 0 });

/** The bucket a call is on (lib/table/schema.ts: RATELIMIT#<keyId>), by its key or item. */
function bucketOf(input: Record<string, unknown>): string | undefined {
  const pk = ((input.Key ?? input.Item) as { pk?: { S?: string } } | undefined)?.pk?.S;
  return pk?.startsWith("RATELIMIT#") ? pk : undefined;
}

export async function startStoreMeter(
  store: string,
  options: StoreMeterOptions = {},
): Promise<StoreMeter> {
  const proxy = await startStoreProxy(store, async ({ operation, body }, forward) => {
    const input = JSON.parse(body) as Record<string, unknown>;
    const pk = bucketOf(input);
    const bucket = pk !== undefined;
    let counts = [meter.requests];
    if (pk !== undefined) {
      const own = meter.buckets.get(pk) ?? empty();
      meter.buckets.set(pk, own);
      counts = [meter.limiter, own];
    }
    for (const units of counts) units.calls += 1;
    const made = options.before?.({ operation, input, bucket });
    if (made) return made;
    const answer = await forward(JSON.stringify({ ...input, ReturnConsumedCapacity: "TOTAL" }));
    const parsed = JSON.parse(answer.body || "{}") as {
      ConsumedCapacity?: unknown;
      __type?: string;
    };
    for (const units of counts) {
      for (const entry of [parsed.ConsumedCapacity ?? []].flat() as { CapacityUnits?: number }[]) {
        units[reads.has(operation) ? "readUnits" : "writeUnits"] += entry.CapacityUnits ?? 0;
      }
      if ((parsed.__type ?? "").endsWith("ConditionalCheckFailedException")) {
        units.refusedWrites += 1;
        if (options.refusedWriteUnit) units.writeUnits += 1;
      }
    }
    await options.after?.();
    return answer;
  });
  const meter: StoreMeter = {
    endpoint: proxy.endpoint,
    limiter: empty(),
    buckets: new Map<string, Units>(),
    requests: empty(),
    reset: () => {
      [meter.limiter, meter.requests, meter.buckets] = [empty(), empty(), new Map<string, Units>()];
    },
    close: () => proxy.close(),
  };
  return meter;
}
