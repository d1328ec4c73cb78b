/**
 * The one place where a thrown error becomes the contract's Error shape `{code, message, status}`.
 */
import { ApiError, errors, StoreUnavailableError } from "../errors.ts";
import type { HttpResponse } from "./message.ts";
import { contractHeaders } from "./message.ts";

export interface ErrorOutcome {
  readonly response: HttpResponse;
  readonly error: ApiError;
}

/**
 * Turns anything thrown while serving a request into the contract's Error shape. `credential` is
 * the token the request presented, if any: a message that would repeat 8 or more characters of it
 * in a row (say, part of a key pasted as a field name) shows "[redacted]" there instead, so no
 * answer ever carries a key or a usable piece of one.
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

/** The shortest run of a key's characters an answer may never carry. */
const keepUnder = 8;

/**
 * Replaces every run of 8 or more characters that also occurs in the credential, wherever it
 * sits in the key (a field name may be any part of it, and messages cut long text): each 8
 * characters of the message found in the key mark their place, and each marked stretch becomes
 * one "[redacted]". The mark's brackets are not key characters (RFC 6750 b64token), so nothing
 * around it joins up into a run; a key that holds "redacted" itself gets "[…]" instead.
 */
function redact(message: string, credential: string): string {
  const marked = new Array<boolean>(message.length).fill(false);
  for (let start = 0; start + keepUnder <= message.length; start++) {
    if (credential.includes(message.slice(start, start + keepUnder))) {
      marked.fill(true, start, start + keepUnder);
    }
  }
  const mark = credential.includes("redacted") ? "[…]" : "[redacted]";
  let out = "";
  for (let i = 0; i < message.length; i++) {
    if (!marked[i]) out += message.charAt(i);
    else if (i === 0 || !marked[i - 1]) out += mark;
  }
  return out;
}

function toApiError(thrown: unknown): ApiError {
  if (thrown instanceof ApiError) return thrown;
  if (thrown instanceof StoreUnavailableError) return errors.serviceUnavailable();
  if (thrown instanceof Error && thrown.name === "TimeoutError") return errors.serviceUnavailable();
  // The body parser's errors are the contract's already (jsonRequestBody): a function without a
  // body does not carry the parser's mapping and its JSON error places (2.7 KB, 5 % of a list).
  return errors.internal(thrown);
}
