/** "ours without metrics" (bench/sandbox.ts): lib/metrics.ts's interface, doing nothing. */
import type { ServiceMetrics } from "../../lib/metrics.ts";

const nothing = (): void => undefined;

export function createMetrics(): ServiceMetrics {
  return {
    ...{ categoryCreated: nothing, idempotentReplay: nothing, error: nothing, flush: nothing },
    ...{ storeRetry: nothing, storeUnavailable: nothing, listSize: nothing },
    ...{ rateLimited: nothing, rateLimitFailOpen: nothing },
    middleware: () => ({ after: nothing }),
  };
}
