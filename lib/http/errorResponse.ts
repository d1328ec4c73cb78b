/**
 * The one place where a thrown error becomes the contract's Error shape `{code, message, status}`.
 */
import { ApiError, errors, StoreUnavailableError } from "../errors.ts";
import { fromBodyParserError } from "./jsonBody.ts";
import type { HttpResponse } from "./message.ts";
import { contractHeaders } from "./message.ts";

export interface ErrorOutcome {
  readonly response: HttpResponse;
  readonly error: ApiError;
}

/**
 * Turns anything thrown while serving a request into the contract's Error shape. `credential` is
 * the token the request presented, if any: a message that would repeat it (say, a key pasted as
 * a field name) shows "[redacted]" instead, so no answer ever carries a key.
 */
export function toErrorResponse(thrown: unknown, credential?: string): ErrorOutcome {
  const error = toApiError(thrown);
  const message = credential ? redact(error.message, credential) : error.message;
  const body = { code: error.code, message, status: error.status };
  return {
    error,
    response: {
      statusCode: error.status,
      headers: { ...contractHeaders, ...error.headers },
      body: JSON.stringify(body),
      isBase64Encoded: false,
    },
  };
}

/** Removes the credential, or any 8-character-or-longer start of it (messages cut long text). */
function redact(message: string, credential: string): string {
  for (let length = credential.length; length >= 8; length--) {
    const part = credential.slice(0, length);
    if (message.includes(part)) return message.replaceAll(part, "[redacted]");
  }
  return message;
}

function toApiError(thrown: unknown): ApiError {
  if (thrown instanceof ApiError) return thrown;
  if (thrown instanceof StoreUnavailableError) return errors.serviceUnavailable();
  if (thrown instanceof Error && thrown.name === "TimeoutError") return errors.serviceUnavailable();
  return fromBodyParserError(thrown) ?? errors.internal(thrown);
}
