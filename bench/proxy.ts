/**
 * The bench's view of the store, through the store meter (local/storeMeter.ts: the units the
 * store reports, the rate limiter's apart). It records each call in one line (operation, fields,
 * read consistency, attribute names), so the bench can check every variant makes ours' calls; it
 * counts round trips made one after another and can delay every answer. The rate limiter's calls
 * are kept apart, in `limiter`: the other variants have no limiter, and a request's own units stay
 * comparable with theirs.
 */
import { startStoreMeter } from "../local/storeMeter.ts";

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
  let [calls, rounds, inFlight] = [[] as string[], 0, 0];
  const meter = await startStoreMeter(store, {
    before: ({ operation, input, bucket }) => {
      if (inFlight++ === 0) rounds += 1;
      if (!bucket) calls.push(summary(operation, input));
      return undefined;
    },
    after: async () => {
      await new Promise((done) => setTimeout(done, counter.delayMs));
      inFlight -= 1;
    },
  });
  const counter: StoreTally = {
    endpoint: meter.endpoint,
    delayMs: 0,
    measure: async (work) => {
      [calls, rounds] = [[], 0];
      meter.reset();
      const started = performance.now();
      await work();
      const { requests, limiter } = meter;
      const { readUnits, writeUnits } = requests;
      return {
        calls,
        readUnits,
        writeUnits,
        rounds,
        limiter,
        ms: Math.round(performance.now() - started),
      };
    },
    close: () => void meter.close(),
  };
  return counter;
}
