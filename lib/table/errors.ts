/**
 * What DynamoDB's answers mean, in one place: an answer is a value, a DynamoDbError (DynamoDB
 * itself refused), or a TransportError (no usable answer). The client (lib/dynamodb.ts) retries
 * what `isRetryable` says until the request's deadline; what reaches a repository is either a
 * condition that did not hold (an expected outcome of a conditional write) or a fault to pass on.
 */
/** An error answered by DynamoDB itself (`__type` without the namespace, e.g. `ConditionalCheckFailedException`). */
export class DynamoDbError extends Error {
  override readonly name = "DynamoDbError";
  readonly type: string;
  readonly statusCode: number;
  /**
   * A failed condition's item as answered, when the write asked for it
   * (ReturnValuesOnConditionCheckFailure); read through Table.collidedWith.
   */
  readonly item: object | undefined;
  /** A cancelled transaction's reason per write, in order ("None", "ConditionalCheckFailed", …). */
  readonly reasons: readonly string[];
  constructor(
    type: string,
    statusCode: number,
    message: string,
    item?: object,
    reasons: readonly string[] = [],
  ) {
    super(`${type}: ${message}`);
    this.type = type;
    this.statusCode = statusCode;
    this.item = item;
    this.reasons = reasons;
  }
}

/** The connection failed, was reset, or the answer did not arrive in time. Always retryable. */
export class TransportError extends Error {
  override readonly name = "TransportError";
}

const retryableTypes = new Set([
  "ProvisionedThroughputExceededException",
  "ThrottlingException",
  "RequestLimitExceeded",
  "LimitExceededException",
  "InternalServerError",
  "ServiceUnavailable",
  // A retried transaction (same ClientRequestToken, lib/table/table.ts) whose first attempt the
  // store is still making: asked again once that is done, a made one answers as made.
  "TransactionInProgressException",
]);

export function isRetryable(error: unknown): boolean {
  if (error instanceof TransportError) return true;
  return (
    error instanceof DynamoDbError && (error.statusCode >= 500 || retryableTypes.has(error.type))
  );
}

/** The JSON answer of a 200, or the error the answer describes. */
export function readAnswer(status: number, text: string): unknown {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // A cut-off or non-JSON answer (a proxy's error page, a reset mid-body) is a transport fault.
    throw new TransportError(`unreadable answer (HTTP ${status})`);
  }
  if (status === 200) return json;
  const fault = (json ?? {}) as {
    __type?: unknown;
    message?: unknown;
    Message?: unknown;
    Item?: unknown;
    CancellationReasons?: unknown;
  };
  const type =
    typeof fault.__type === "string" ? fault.__type.slice(fault.__type.lastIndexOf("#") + 1) : "";
  const message = fault.message ?? fault.Message;
  throw new DynamoDbError(
    type || `HTTP${status}`,
    status,
    typeof message === "string" ? message : "no message",
    typeof fault.Item === "object" && fault.Item !== null ? fault.Item : undefined,
    reasonsOf(fault.CancellationReasons),
  );
}

/** The codes of a cancelled transaction's CancellationReasons, one per write. */
function reasonsOf(reasons: unknown): string[] {
  if (!Array.isArray(reasons)) return [];
  return reasons.map((reason: unknown) => {
    const code = (reason as { Code?: unknown } | null)?.Code;
    return typeof code === "string" ? code : "None";
  });
}

export function isConditionFailure(error: unknown): error is DynamoDbError {
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
