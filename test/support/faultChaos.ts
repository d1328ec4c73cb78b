/**
 * The kinds of faults, by whether the store applied the request, and a chaos injector that keeps
 * adding random one-shot faults to the fault rig's proxy while a workload runs.
 */
import type { Fault } from "./faultProxy.ts";
import type { FaultStack } from "./faultStack.ts";
import { sleep } from "./faultStack.ts";

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
