/**
 * The abuse run's view of the store, through the project's one store proxy (local/storeProxy.ts):
 * every call gets ReturnConsumedCapacity=TOTAL and the write units DynamoDB's own answer reports
 * are summed, the rate limit's bucket calls (partition RATELIMIT#…) apart from the requests' own.
 * A conditional write whose condition fails consumes a write unit in DynamoDB all the same, but
 * its error answer carries no ConsumedCapacity (in DynamoDB and the emulators alike): each is
 * counted as the one unit it costs (items here are far under 1 KB).
 *
 * `outage`: while set, every call on a bucket is answered 503 ServiceUnavailable (retryable): the
 * bucket is out of reach, everything else works.
 */
import type { StoreProxy } from "../../../local/storeProxy.ts";
import { startStoreProxy, storeError } from "../../../local/storeProxy.ts";

export interface Units {
  writeUnits: number;
  readUnits: number;
  calls: number;
  /** Writes whose condition did not hold (counted in writeUnits, one unit each). */
  refusedWrites: number;
}

export interface StoreMeter {
  readonly endpoint: string;
  /** The rate limit's bucket calls. */
  readonly limiter: Units;
  /** Everything else: the requests' own calls (keys, categories, idempotency records). */
  readonly requests: Units;
  outage: boolean;
  /** Bucket calls answered 503 during the outage. */
  outageAnswers: number;
  close(): Promise<void>;
}

const reads = new Set(["GetItem", "Query", "BatchGetItem", "Scan"]);
const empty = (): Units => ({ writeUnits: 0, readUnits: 0, calls: 0, refusedWrites: 0 });

function isBucketCall(input: Record<string, unknown>): boolean {
  const key = input.Key as { pk?: { S?: string } } | undefined;
  return key?.pk?.S?.startsWith("RATELIMIT#") ?? false;
}

export async function startStoreMeter(store: string): Promise<StoreMeter> {
  const meter: Omit<StoreMeter, "endpoint" | "close"> = {
    limiter: empty(),
    requests: empty(),
    outage: false,
    outageAnswers: 0,
  };
  const proxy: StoreProxy = await startStoreProxy(store, async ({ operation, body }, forward) => {
    const input = JSON.parse(body) as Record<string, unknown>;
    const bucket = isBucketCall(input);
    const units = bucket ? meter.limiter : meter.requests;
    units.calls += 1;
    if (bucket && meter.outage) {
      meter.outageAnswers += 1;
      return storeError(503, "com.amazonaws.dynamodb.v20120810#ServiceUnavailable", "outage");
    }
    const answer = await forward(JSON.stringify({ ...input, ReturnConsumedCapacity: "TOTAL" }));
    const parsed = JSON.parse(answer.body || "{}") as {
      ConsumedCapacity?: unknown;
      __type?: string;
    };
    for (const entry of [parsed.ConsumedCapacity ?? []].flat() as { CapacityUnits?: number }[]) {
      units[reads.has(operation) ? "readUnits" : "writeUnits"] += entry.CapacityUnits ?? 0;
    }
    if ((parsed.__type ?? "").endsWith("ConditionalCheckFailedException")) {
      units.refusedWrites += 1;
      units.writeUnits += 1;
    }
    return answer;
  });
  return Object.assign(meter, {
    endpoint: proxy.endpoint,
    close: () => proxy.close(),
  });
}
