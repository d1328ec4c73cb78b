/**
 * A proxy between the service's DynamoDB client and the embedded store (local/storeProxy.ts) that
 * records every call (X-Amz-Target operation and JSON input) under the label the test has set,
 * e.g. the function handling the current request.
 *
 * Two ways to drive the code's retry, recovery and clean-up paths, and with them the calls it
 * only makes there:
 *
 *   - `loseFirstAnswers`: the first time a given request body arrives it is forwarded (so the
 *     write lands) and then the connection is cut before the answer; the client retries the
 *     same body, which goes through.
 *   - `fault`: for the calls it picks, "conditional" forwards the call and then answers
 *     ConditionalCheckFailedException (only for calls with a ConditionExpression: as if another
 *     request had written first); "error" answers a non-retryable ValidationException without
 *     forwarding (the call fails and nothing is written).
 */
import { startStoreProxy, storeError } from "../../local/storeProxy.ts";

export interface RecordedCall {
  readonly label: string;
  /** The operation, e.g. "GetItem" (from X-Amz-Target: DynamoDB_20120810.GetItem). */
  readonly operation: string;
  readonly input: unknown;
  /** Whether the proxy cut this call's answer. */
  readonly lost: boolean;
  /** The fault the proxy answered this call with, if any. */
  readonly fault: Fault | undefined;
}

export type Fault = "conditional" | "error";

export interface RecordingProxy {
  readonly endpoint: string;
  readonly calls: RecordedCall[];
  label: string;
  loseFirstAnswers: boolean;
  fault: ((operation: string, input: unknown) => Fault | undefined) | undefined;
  close(): Promise<void>;
}

const faultAnswers = {
  conditional: storeError(
    400,
    "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException",
    "The conditional request failed",
  ),
  error: storeError(
    400,
    "com.amazon.coral.validate#ValidationException",
    "failure injected by the test's recording proxy",
  ),
};

function parsed(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

export async function startRecordingProxy(upstream: string): Promise<RecordingProxy> {
  const seen = new Set<string>();
  const settings = { label: "setup", loseFirstAnswers: false, fault: undefined };
  const proxy: Omit<RecordingProxy, "endpoint" | "close"> = { calls: [], ...settings };
  const store = await startStoreProxy(upstream, async ({ operation, body }, forward) => {
    const input = parsed(body);
    const lost = proxy.loseFirstAnswers && !seen.has(body);
    seen.add(body);
    const picked = proxy.fault?.(operation, input);
    const conditional =
      typeof input === "object" && input !== null && "ConditionExpression" in input;
    const fault = picked === "conditional" && !conditional ? undefined : picked;
    proxy.calls.push({ label: proxy.label, operation, input, lost, fault });
    if (fault === "error") return faultAnswers.error;
    const answer = await forward();
    if (fault === "conditional") return faultAnswers.conditional;
    return lost ? "cut" : answer;
  });
  return Object.assign(proxy, store);
}

/**
 * A lease of the key's rate limit tokens (lib/rateLimit/): every request with a valid key counts,
 * whatever it answers, so a container's first request (and one in a while) leases a block on
 * the key's own bucket partition. It is not the request's write: those are checked without it.
 */
export function isRateLimitLease(call: RecordedCall): boolean {
  const input = call.input as { Key?: { pk?: { S?: unknown } } } | null;
  const pk = input?.Key?.pk?.S;
  return call.operation === "UpdateItem" && typeof pk === "string" && pk.startsWith("RATELIMIT#");
}
