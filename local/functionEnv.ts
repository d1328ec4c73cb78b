/**
 * What a function bundle needs from its environment (lib/config.ts) to run against a local
 * DynamoDB endpoint, and the documented key that the sample events in events/ carry. Shared by
 * `npm run invoke` and the handler tests; local/server.ts sets the same variables.
 */
import { localCredentials, localRegion } from "./embeddedDynamo.ts";

/** The one key the sample events send (RFC 6750 b64token characters only). Local use only. */
export const sampleApiKey = "petstore_sample-key-for-local-invoke-only";
/** The label `npm run invoke` gives the sample key's record. */
export const sampleKeyLabel = "sample-events";

/** TABLE_NAME, AWS_REGION, DYNAMODB_ENDPOINT and placeholder credentials for a local store. */
export function localFunctionEnv(
  dynamoEndpoint: string,
  tableName: string,
): Record<string, string> {
  return {
    ...localCredentials,
    AWS_REGION: localRegion,
    TABLE_NAME: tableName,
    DYNAMODB_ENDPOINT: dynamoEndpoint,
  };
}

/**
 * A rate limit no local workload reaches, for the project's own tools (load, bench, tests) that
 * measure the service rather than its limits: they set it explicitly, so that nothing of theirs is
 * throttled by accident. `npm start`'s key gets the local default instead (lib/config.ts).
 * (Their servers' containers: local/serverProcess.ts.) The burst is the most a key may have: a
 * leased token lapses a tenth of the burst's time after its slot (lib/rateLimit/limiter.ts,
 * `graceMs`), here 100 s, so one lease still serves a bench process's warm calls.
 */
export const unthrottled = { RATE_LIMIT: "1000000/s", RATE_LIMIT_BURST: "1000000000" } as const;
