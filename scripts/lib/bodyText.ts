/** The one decoder of gzip/br bodies: of HTTP answers (httpClient.ts) and of Lambda results. */
import { brotliDecompressSync, gunzipSync } from "node:zlib";

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
