/**
 * Hostile requests that only the wire can carry, against the real local server (the built
 * bundles behind the local API Gateway stand-in): repeated header lines (which API Gateway joins
 * with commas), header bytes outside ASCII, raw request bodies that are not UTF-8 (sent on as
 * base64), and POSTs without Content-Type. The same invariants as the handler-level properties:
 * never a 5xx, the Error shape, an answer openapi.yaml documents, nothing stored unless 201, and
 * neither the key nor its SHA-256 nor anything key-like the request presented in any answer or
 * in any line of the server's request log.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyVerdict, MediaVerdict } from "../support/hostile.ts";
import {
  expectNoSecretIn,
  expectSafeAnswer,
  keyLikeRuns,
  maxBodyBytes,
  nearMiss,
  randomKeyLike,
  sha256,
  validDescriptionArb,
  validNameArb,
} from "../support/hostile.ts";
import type { RunningServer } from "../support/localServer.ts";
import { startServer } from "../support/localServer.ts";
import type { RawAnswer } from "../support/rawHttp.ts";
import { sendRaw } from "../support/rawHttp.ts";

const numRuns = 400;

let server: RunningServer;
let key: string;
/** Requests sent so far, the generated ones and the store checks between them. */
let requestsSent = 0;

beforeAll(async () => {
  server = await startServer();
  key = server.apiKey;
});
afterAll(async () => {
  await server.stop();
});

type Header = readonly [string, Buffer];
const latin1 = (text: string): Buffer => Buffer.from(text, "latin1");

/** Header value bytes a client can put on the wire: HTAB, visible ASCII, space and obs-text. */
const headerBytes = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0x20, max: 0x7e }),
      fc.constant(0x09),
      fc.integer({ min: 0x80, max: 0xff }),
    ),
    { maxLength: 120 },
  )
  .map((bytes) => Buffer.from(bytes));

interface AuthLines {
  readonly values: readonly Buffer[];
  /** undefined: the contract leaves it open (obs-text white space around the key). */
  readonly verdict: KeyVerdict | undefined;
  readonly label: string;
}

function authLinesArb(validKey: string): fc.Arbitrary<AuthLines> {
  const bearer = latin1(`Bearer ${validKey}`);
  const lines =
    (verdict: KeyVerdict | undefined, label: string) =>
    (...values: Buffer[]): AuthLines => ({ values, verdict, label });
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(lines("accept", "one line")(bearer)) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(`  Bearer   ${validKey}  `, `\tbearer ${validKey}\t`, `BEARER ${validKey}`)
        .map((value) => lines("accept", "spacing and case")(latin1(value))),
    },
    { weight: 1, arbitrary: fc.constant(lines("refuse", "no header")()) },
    {
      weight: 3,
      arbitrary: fc.constant(lines("refuse", "the key twice, two lines")(bearer, bearer)),
    },
    {
      weight: 2,
      arbitrary: headerBytes.chain((junk) =>
        fc.constantFrom(
          lines("refuse", "key then junk line")(bearer, junk),
          lines("refuse", "junk then key line")(junk, bearer),
        ),
      ),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom([0xff], [0xe9], [0xc3, 0xa9], [0xe2, 0x80, 0x8b], [0x80])
        .map((bytes) =>
          lines(
            "refuse",
            "non-ASCII byte after the key",
          )(Buffer.concat([bearer, Buffer.from(bytes)])),
        ),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom([0xa0], [0xc2, 0xa0])
        .map((bytes) =>
          lines(
            undefined,
            "no-break space after the key",
          )(Buffer.concat([bearer, Buffer.from(bytes)])),
        ),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.nat(), fc.constantFrom([0xc3, 0xa9], [0xff], [0x09], [0x20]))
        .map(([at, bytes]) => {
          const index = 10 + (at % (validKey.length - 10));
          return lines(
            "refuse",
            "bytes inside the key",
          )(
            Buffer.concat([
              latin1(`Bearer ${validKey.slice(0, index)}`),
              Buffer.from(bytes),
              latin1(validKey.slice(index)),
            ]),
          );
        }),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.nat(), fc.constantFrom(..."AZaz09-_".split("")))
        .map(([at, char]) =>
          lines("refuse", "near miss")(latin1(`Bearer ${nearMiss(validKey, at, char)}`)),
        ),
    },
    {
      weight: 1,
      arbitrary: randomKeyLike.map((guess) =>
        lines("refuse", "unknown key")(latin1(`Bearer ${guess}`)),
      ),
    },
    { weight: 2, arbitrary: headerBytes.map((junk) => lines("refuse", "random bytes")(junk)) },
  );
}

interface MediaLines {
  readonly values: readonly Buffer[];
  readonly verdict: MediaVerdict;
}

const mediaLinesArb: fc.Arbitrary<MediaLines> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .constantFrom([], ["application/json"], ["application/json; charset=utf-8"])
      .map((values) => ({ values: values.map(latin1), verdict: "json" as const })),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(
        ["application/json", "application/json"],
        ["application/json", "text/plain"],
        ["text/plain", "application/json"],
        ["text/plain"],
        [""],
        ["application/x-www-form-urlencoded"],
      )
      .map((values) => ({ values: values.map(latin1), verdict: "not_json" as const })),
  },
  {
    weight: 1,
    arbitrary: headerBytes.map((bytes) => ({ values: [bytes], verdict: "unknown" as const })),
  },
);

type BodyKind = "valid" | "bad_request" | "too_large";
interface WireBody {
  readonly bytes: Buffer;
  readonly kind: BodyKind;
  readonly label: string;
}

const validJson = fc
  .tuple(validNameArb, fc.option(validDescriptionArb, { nil: undefined }))
  .map(([name, description]) =>
    JSON.stringify({ name, ...(description !== undefined && { description }) }),
  );
const invalidUtf8 = fc.constantFrom(
  [0xff],
  [0xfe, 0xff],
  [0xc0, 0xaf], // overlong "/"
  [0xed, 0xa0, 0x80], // a UTF-16 surrogate written as UTF-8 (CESU-8)
  [0xe2, 0x82], // truncated
  [0x80], // lone continuation byte
  [0xf8, 0x88, 0x80, 0x80, 0x80], // five-byte form
);
const body = (kind: BodyKind, label: string) => (bytes: Buffer) => ({ bytes, kind, label });

const wireBodyArb: fc.Arbitrary<WireBody> = fc.oneof(
  { weight: 5, arbitrary: validJson.map((json) => body("valid", "JSON")(Buffer.from(json))) },
  {
    weight: 3,
    arbitrary: fc.tuple(validJson, invalidUtf8, fc.nat()).map(([json, bad, at]) => {
      const index = at % (json.length + 1);
      return body(
        "bad_request",
        "invalid UTF-8 inside JSON",
      )(
        Buffer.concat([
          Buffer.from(json.slice(0, index)),
          Buffer.from(bad),
          Buffer.from(json.slice(index)),
        ]),
      );
    }),
  },
  {
    weight: 2,
    arbitrary: fc
      .uint8Array({ maxLength: 2_048 })
      .map((bytes) => body("bad_request", "random bytes")(Buffer.from(bytes))),
  },
  {
    weight: 2,
    arbitrary: validJson.chain((json) =>
      fc.constantFrom(
        body(
          "bad_request",
          "UTF-8 BOM",
        )(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(json)])),
        body("bad_request", "UTF-16LE")(Buffer.from(json, "utf16le")),
        body("bad_request", "Latin-1 é")(Buffer.from(json.replace(/}$/, ',"x":"é"}'), "latin1")),
        body("bad_request", "empty")(Buffer.alloc(0)),
      ),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.integer({ min: -4, max: 4 }), invalidUtf8).map(([delta, bad]) => {
      const size = maxBodyBytes + delta;
      const bytes = Buffer.alloc(size, "x");
      Buffer.from(bad).copy(bytes, Math.floor(size / 2));
      return body(
        size > maxBodyBytes ? "too_large" : "bad_request",
        "invalid UTF-8 near 64 KiB",
      )(bytes);
    }),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: -4, max: 4 }).map((delta) => {
      const prefix = '{"name":"x","description":"';
      const size = maxBodyBytes + delta;
      const json = `${prefix}${"é".repeat(Math.floor((size - prefix.length - 2) / 2))}`;
      const text = `${json}${"x".repeat(size - Buffer.byteLength(json) - 2)}"}`;
      // Under the limit, still far over 1,000 code points: a 400 either way.
      return body(
        size > maxBodyBytes ? "too_large" : "bad_request",
        "JSON near 64 KiB",
      )(Buffer.from(text));
    }),
  },
);

const extraLinesArb = fc.array(
  fc.tuple(
    fc.constantFrom(
      "x-custom",
      "X-Custom",
      "x-forwarded-for",
      "accept",
      "user-agent",
      "cookie",
      "accept-encoding",
    ),
    headerBytes,
  ),
  { maxLength: 5 },
);

interface WireCase {
  readonly method: "GET" | "POST";
  readonly authName: string;
  readonly auth: AuthLines;
  readonly mediaName: string;
  readonly media: MediaLines;
  readonly extra: readonly (readonly [string, Buffer])[];
  readonly body: WireBody;
}

function expectedStatus(input: WireCase): number | undefined {
  if (input.auth.verdict === undefined) return undefined;
  if (input.auth.verdict === "refuse") return 401;
  if (input.method === "GET") return 200;
  if (input.media.verdict === "unknown") return undefined;
  if (input.media.verdict === "not_json") return 415;
  return { valid: 201, bad_request: 400, too_large: 413 }[input.body.kind];
}

async function send(
  method: "GET" | "POST",
  headers: readonly Header[],
  payload: Buffer | undefined,
): Promise<RawAnswer> {
  requestsSent += 1;
  return sendRaw(server.baseUrl, {
    method,
    path: "/v1/categories",
    headers,
    ...(payload && { body: payload }),
  });
}

async function storedCount(): Promise<number> {
  const answer = await send("GET", [["Authorization", latin1(`Bearer ${key}`)]], undefined);
  expect(answer.status).toBe(200);
  return (JSON.parse(answer.text) as unknown[]).length;
}

/** The server's log lines from `from` on, once `count` of them have arrived (5 s at most). */
async function logLinesSince(from: number, count: number): Promise<string[]> {
  for (let waited = 0; server.logLines.length < from + count && waited < 5_000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return server.logLines.slice(from);
}

function wireCaseArb(): fc.Arbitrary<WireCase> {
  return fc.record({
    method: fc.constantFrom("POST", "POST", "POST", "GET"),
    authName: fc.constantFrom("Authorization", "authorization", "AUTHORIZATION"),
    auth: authLinesArb(key),
    mediaName: fc.constantFrom("Content-Type", "content-type", "CONTENT-TYPE"),
    media: mediaLinesArb,
    extra: extraLinesArb,
    body: wireBodyArb,
  });
}

/**
 * Sends one generated request and checks its answer, its one log line (below 500, without the
 * key, its SHA-256 or anything key-like it presented) and that the store grew only on a 201.
 */
async function checkWireCase(input: WireCase): Promise<void> {
  const stored = await storedCount();
  const headers: Header[] = [
    ...input.auth.values.map((value): Header => [input.authName, value]),
    ...input.media.values.map((value): Header => [input.mediaName, value]),
    ...input.extra,
  ];
  // Content-Type is left out: its value is the service's own ("application/json"). A run
  // the body also holds may be named back (an unknown field): left out too.
  const sentBody = `${input.body.bytes.toString("latin1")}\n${input.body.bytes.toString("utf8")}`;
  const presented = keyLikeRuns(
    ...[...input.auth.values, ...input.extra.map(([, value]) => value)].map((value) =>
      value.toString("latin1"),
    ),
  ).filter((run) => !sentBody.includes(run));
  const secrets = [key, sha256(key), ...presented];
  // Every earlier request's line first (each request is logged once, maybe after its answer).
  await logLinesSince(0, requestsSent);
  const linesBefore = server.logLines.length;
  const answer = await send(
    input.method,
    headers,
    input.method === "POST" ? input.body.bytes : undefined,
  );
  expectSafeAnswer(answer, secrets);
  const expected = expectedStatus(input);
  if (expected !== undefined)
    expect(answer.status, `${input.auth.label} / ${input.body.label}`).toBe(expected);
  const lines = await logLinesSince(linesBefore, 1);
  expect(lines).toHaveLength(1);
  expect((JSON.parse(lines[0] ?? "{}") as { status: number }).status).toBe(answer.status);
  expectNoSecretIn(lines[0] ?? "", secrets);
  expect((await storedCount()) - stored).toBe(answer.status === 201 ? 1 : 0);
}

describe("wire-only hostile requests: repeated headers, raw non-UTF-8 bytes, no Content-Type: never a 5xx, nothing stored unless 201, no key echoed or logged", () => {
  it(`holds for ${numRuns} generated requests`, async () => {
    await fc.assert(fc.asyncProperty(wireCaseArb(), checkWireCase), { numRuns });
  });
});

describe("the server's request log has one line per request and its stderr nothing but the start banner", () => {
  it(`holds after ${numRuns / 4} generated requests`, async () => {
    const linesBefore = server.logLines.length;
    const sentBefore = requestsSent;
    await fc.assert(fc.asyncProperty(wireCaseArb(), checkWireCase), { numRuns: numRuns / 4 });
    const sent = requestsSent - sentBefore;
    const lines = await logLinesSince(linesBefore, sent);
    expect(lines).toHaveLength(sent);
    for (const line of lines) expectNoSecretIn(line, [key, sha256(key)]);
    expect(server.stderr()).not.toMatch(/invocation failed|local server:/);
    expect(server.stderr().split(key).length - 1).toBeLessThanOrEqual(2); // the start banner only
  });
});
