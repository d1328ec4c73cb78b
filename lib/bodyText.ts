/**
 * Reading answers as a client does: asking for a compressed body, and the one decoder of gzip/br
 * bodies, of HTTP answers (scripts/lib/httpClient.ts) and of Lambda results (the pre-traffic
 * hook, the bench, the tests). Off the request path: no function but the hook bundles it.
 */
import { brotliDecompressSync, gunzipSync } from "node:zlib";

/**
 * What the project's clients ask for, as browsers do: a list whose JSON is over Lambda's 6 MB
 * response limit is answered only compressed (406 `response_too_large` otherwise), so a check
 * that leaves this out fails on a healthy stage once its list grows.
 */
export const acceptCompressed = { "accept-encoding": "br, gzip" } as const;

/** A body as text, undoing its Content-Encoding (gzip or br; anything else is taken as is). */
export function decodeBody(bytes: Buffer, encoding: string | undefined): string {
  const plain =
    encoding === "gzip"
      ? gunzipSync(bytes)
      : encoding === "br"
        ? brotliDecompressSync(bytes)
        : bytes;
  return plain.toString("utf8");
}

/** A Lambda proxy result's body as text, undoing base64 and Content-Encoding. */
export function lambdaBodyText(result: {
  readonly body?: string | undefined;
  readonly isBase64Encoded?: boolean | undefined;
  readonly headers?: Readonly<Record<string, unknown>> | undefined;
}): string {
  const body = result.body ?? "";
  if (result.isBase64Encoded !== true) return body;
  const encoding = result.headers?.["content-encoding"];
  return decodeBody(
    Buffer.from(body, "base64"),
    typeof encoding === "string" ? encoding : undefined,
  );
}
