/**
 * What a DynamoDB error means to the repositories. Transport faults, throttling and 5xx are the
 * client's business (lib/dynamodb.ts retries them within the deadline and ends in
 * StoreUnavailableError); what reaches a repository is either a condition that did not hold (an
 * expected outcome of a conditional write) or a fault to pass on.
 */
import { DynamoDbError } from "../dynamodb.ts";

export function isConditionFailure(error: unknown): boolean {
  return error instanceof DynamoDbError && error.type === "ConditionalCheckFailedException";
}

/** Awaits a conditional write: true when it was made, false when its condition did not hold. */
export async function conditionHeld(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
