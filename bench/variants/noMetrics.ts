/** "ours without metrics" (bench/sandbox.ts): lib/metrics.ts's interface, doing nothing. */
import type { ServiceMetrics } from "../../lib/metrics.ts";

const nothing = (): void => undefined;

export function createMetrics(): ServiceMetrics {
  return {
    ...{ count: nothing, error: nothing, flush: nothing },
    middleware: () => ({ after: nothing }),
  };
}
