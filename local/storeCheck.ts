/**
 * A quick look at a DynamoDB-compatible endpoint before anything relies on it, so an endpoint
 * that is down or wrong ends in one clear line within seconds, not after a request's whole
 * retry budget.
 */
import { localClient } from "./embeddedDynamo.ts";

export class StoreUnreachableError extends Error {
  override readonly name = "StoreUnreachableError";
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
