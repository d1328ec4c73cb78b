/**
 * lib/sigv4.ts against `aws4` (a well-kept SigV4 implementation, kept as a dev dependency to be
 * this oracle): for any request the DynamoDB client sends, the same headers and the same
 * Authorization, to the character.
 */
import aws4 from "aws4";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AwsCredentials } from "../../lib/sigv4.ts";
import { signPost } from "../../lib/sigv4.ts";

interface Case {
  readonly host: string;
  readonly region: string;
  readonly target: string;
  /** A header of the caller's own, with spaces to trim and runs of them to fold (canonical form). */
  readonly note?: string;
  readonly body: string;
  readonly credentials: AwsCredentials;
  readonly now: number;
}

/** aws4's headers for the same request, names lower-cased. */
function byAws4(c: Case): Record<string, string> {
  const amzDate = new Date(c.now).toISOString().replace(/[:-]|\.\d{3}/g, "");
  const signed = aws4.sign(
    {
      host: c.host,
      path: "/",
      method: "POST",
      service: "dynamodb",
      region: c.region,
      headers: {
        "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Target": c.target,
        "X-Amz-Date": amzDate,
        ...(c.note !== undefined && { "X-Note": c.note }),
      },
      body: c.body,
    },
    c.credentials,
  );
  return Object.fromEntries(
    Object.entries(signed.headers ?? {}).map(([name, value]) => [
      name.toLowerCase(),
      String(value),
    ]),
  );
}

function ours(c: Case): Record<string, string> {
  return signPost(
    {
      host: c.host,
      region: c.region,
      service: "dynamodb",
      headers: {
        "content-type": "application/x-amz-json-1.0",
        "x-amz-target": c.target,
        ...(c.note !== undefined && { "X-Note": c.note }),
      },
      body: c.body,
    },
    c.credentials,
    c.now,
  );
}

const token = fc.stringMatching(/^[A-Za-z0-9+/=]{1,80}$/);
const cases = fc.record(
  {
    host: fc.oneof(
      fc.constantFrom("dynamodb.eu-west-1.amazonaws.com", "dynamodb.us-east-1.amazonaws.com"),
      fc.integer({ min: 1, max: 65535 }).map((port) => `127.0.0.1:${String(port)}`),
    ),
    region: fc.constantFrom("eu-west-1", "us-east-1", "ap-southeast-2", "local"),
    target: fc
      .constantFrom("GetItem", "PutItem", "Query", "TransactWriteItems")
      .map((operation) => `DynamoDB_20120810.${operation}`),
    body: fc.oneof(
      fc.json(),
      fc.string({ unit: "grapheme" }).map((text) => JSON.stringify({ S: text })),
    ),
    credentials: fc.record(
      { accessKeyId: token, secretAccessKey: token, sessionToken: token },
      { requiredKeys: ["accessKeyId", "secretAccessKey"] },
    ),
    note: fc.stringMatching(/^[ a-z]{0,12}$/),
    // 2001 to 2100, any millisecond: the date's form and the day's key both move.
    now: fc.integer({ min: Date.UTC(2001, 0, 1), max: Date.UTC(2100, 0, 1) }),
  },
  { requiredKeys: ["host", "region", "target", "body", "credentials", "now"] },
);

describe("a DynamoDB request is signed as aws4 signs it (Signature Version 4)", () => {
  it("gives the same headers and Authorization for any body, host, region, time and credentials", () => {
    fc.assert(
      fc.property(cases, (c) => {
        expect(ours(c)).toEqual(byAws4(c));
      }),
      { numRuns: 300 },
    );
  });

  it("signs the session token of temporary credentials (Lambda's) and sends it", () => {
    const c: Case = {
      host: "dynamodb.eu-west-1.amazonaws.com",
      region: "eu-west-1",
      target: "DynamoDB_20120810.GetItem",
      body: "{}",
      credentials: { accessKeyId: "AKID", secretAccessKey: "secret", sessionToken: "tok" },
      now: Date.UTC(2026, 10, 28, 1, 2, 3, 456),
    };
    const headers = ours(c);
    expect(headers["x-amz-security-token"]).toBe("tok");
    expect(headers["x-amz-date"]).toBe("20261128T010203Z");
    expect(headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKID\/20261128\/eu-west-1\/dynamodb\/aws4_request, SignedHeaders=content-length;content-type;host;x-amz-date;x-amz-security-token;x-amz-target, Signature=[0-9a-f]{64}$/,
    );
    expect(headers).toEqual(byAws4(c));
  });

  it("one container's credentials sign right across midnight, regions and a new secret (the kept key)", () => {
    const at = (day: number, region: string, secretAccessKey = "secret"): Case => ({
      host: `dynamodb.${region}.amazonaws.com`,
      region,
      target: "DynamoDB_20120810.Query",
      body: "{}",
      credentials: { accessKeyId: "AKID", secretAccessKey },
      now: Date.UTC(2026, 10, day, 23, 59, 59, 999),
    });
    for (const c of [
      at(27, "eu-west-1"),
      at(27, "eu-west-1"),
      at(28, "eu-west-1"),
      at(28, "us-east-1"),
      at(28, "us-east-1", "rotated"),
    ])
      expect(ours(c)).toEqual(byAws4(c));
  });
});
