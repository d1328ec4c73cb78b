/**
 * API Gateway HTTP API (payload 2.0) messages as the service sees them, and the headers every
 * answer carries (contract).
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";

export type HttpEvent = APIGatewayProxyEventV2;
export type HttpResponse = APIGatewayProxyStructuredResultV2 & {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
};

/** What a handler answers: a status and the data to send. The response middleware does the rest. */
export interface Reply {
  readonly statusCode: number;
  readonly data: unknown;
  /**
   * For a revalidatable answer (the list): its version, opaque to the HTTP code. The same version
   * means equivalent content: it names the ETag (lib/http/conditional.ts) and keys the encoded
   * bodies kept for answering it again (lib/http/response.ts).
   */
  readonly version?: string;
}

export const contractHeaders = {
  "content-type": "application/json; charset=utf-8",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
} as const;

/** Header lookup that tolerates hand-written events; API Gateway itself sends lower-case names. */
export function header(event: Pick<HttpEvent, "headers">, name: string): string | undefined {
  const headers = event.headers as Record<string, string | undefined> | undefined;
  if (!headers) return undefined;
  const exact = headers[name];
  if (exact !== undefined) return exact;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return value;
  }
  return undefined;
}
