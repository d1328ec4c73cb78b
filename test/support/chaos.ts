/**
 * Random faults while a workload runs (test/reliability/): which faults reject and which apply,
 * an injector that adds one-shot rules in proportion to the traffic, and a seeded random source
 * so a failing campaign can be replayed.
 */
import { randomSource } from "../../bench/data.ts";
import type { Fault } from "./faultProxy.ts";
import type { FaultStack } from "./faultStack.ts";
import { sleep, slowDelayMs } from "./faultStack.ts";

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
          ...(fault === "slow" && { delayMs: slowDelayMs }),
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

export interface OutageOptions {
  /** Operations the store refuses for the whole outage, each with one random rejecting fault. */
  readonly operations: readonly string[];
  readonly ms: number;
  readonly random: () => number;
}

/**
 * An outage: `chaos` paused, every request of `operations` refused for `ms`, then the rules
 * cleared and `chaos` resumed. Returns the faults injected meanwhile (random ones pending when
 * it began included).
 */
export async function holdOutage(
  stack: FaultStack,
  chaos: Chaos,
  options: OutageOptions,
): Promise<number> {
  const pick = (faults: readonly Fault[]): Fault =>
    faults[Math.floor(options.random() * faults.length)] as Fault;
  chaos.pause();
  const before = stack.injectedTotal();
  for (const operation of options.operations) {
    stack.proxy.inject({ fault: pick(rejectingFaults), operation, times: Infinity });
  }
  await sleep(options.ms);
  const during = stack.injectedTotal() - before;
  stack.proxy.clear();
  chaos.resume();
  return during;
}

/** A small deterministic PRNG (mulberry32): the benchmark's, so both repeat from a seed alike. */
export const seededRandom = randomSource;
