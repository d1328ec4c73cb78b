/**
 * A quick look at a DynamoDB-compatible endpoint before anything relies on it, so an endpoint
 * that is down or wrong ends in one clear line within seconds, not after a request's whole
 * retry budget.
 */
import { localClient } from "./embeddedDynamo.ts";

export class StoreUnreachableError extends Error {
  override readonly name = "StoreUnreachableError";
}

/** DYNAMODB_ENDPOINT that is not a URL: the message says what to give. */
export class StoreEndpointError extends Error {
  override readonly name = "StoreEndpointError";
}

/**
 * DYNAMODB_ENDPOINT as `npm start` and `npm run keys` both read it: unset or empty means the data
 * folder's embedded store; otherwise the URL of a running DynamoDB-compatible store.
 */
export function storeEndpointOf(
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const endpoint = env.DYNAMODB_ENDPOINT || undefined;
  // Not repeated: a mistyped value may hold a password (http://user:pw@host:80000).
  if (endpoint && !(URL.canParse(endpoint) && /^https?:$/.test(new URL(endpoint).protocol)))
    throw new StoreEndpointError(
      "DYNAMODB_ENDPOINT must be an http(s) URL such as http://127.0.0.1:8000",
    );
  // A store takes signed requests, never a URL's user and password; and every message names the
  // endpoint, which must then not carry a secret.
  const url = endpoint ? new URL(endpoint) : undefined;
  if (url?.username || url?.password)
    throw new StoreEndpointError(
      "DYNAMODB_ENDPOINT must not hold a user or password (the store takes signed requests): give its address alone, such as http://127.0.0.1:8000",
    );
  return endpoint;
}

export async function assertStoreReachable(endpoint: string, withinMs = 3000): Promise<void> {
  const db = localClient(endpoint);
  try {
    await db.call("ListTables", { Limit: 1 }, Date.now() + withinMs);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new StoreUnreachableError(
      `no DynamoDB answer from ${endpoint} within ${withinMs / 1000} s (${why})`,
    );
  } finally {
    db.close();
  }
}
