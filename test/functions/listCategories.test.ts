import { describe, expect, it } from "vitest";
import type { HttpEvent } from "../../lib/http/message.ts";
import { sampleApiKey } from "../../local/functionEnv.ts";
import {
  bodyText,
  expectContractHeaders,
  expectOneLogLine,
  loadEvent,
  useHarness,
} from "./harness.ts";

const harness = useHarness();
// Every answer writes one JSON log line holding neither the key nor its hash (expectOneLogLine).
const list = async (event: HttpEvent) => {
  const invocation = await harness.invoke(await harness.handler("listCategories"), event);
  expectOneLogLine(invocation, event);
  return invocation;
};

// Each test starts on an empty table (useHarness).
describe("a listing answers every stored category, in id order, exactly as stored", () => {
  it("answers an empty array before anything is created", async () => {
    const { response } = await list(loadEvent("list-ok.json"));
    expect(response.statusCode).toBe(200);
    expectContractHeaders(response, "private, no-cache");
    expect(response.isBase64Encoded).toBe(false);
    expect(JSON.parse(response.body)).toEqual([]);
  });

  it("answers the categories with id, name and description only, ordered by id", async () => {
    await harness.seed(3);
    const { response, logLines } = await list(loadEvent("list-ok.json"));
    expect(response.statusCode).toBe(200);
    expectContractHeaders(response, "private, no-cache");
    const body = JSON.parse(response.body) as Record<string, unknown>[];
    expect(body).toEqual(await harness.stored());
    expect(body.map((category) => category.id)).toEqual([1, 2, 3]);
    for (const category of body) {
      expect(Object.keys(category).sort()).toEqual(["description", "id", "name"]);
    }
    const line = JSON.parse(logLines[0] ?? "{}") as Record<string, unknown>;
    expect(line.level).toBe("INFO");
    expect(line.keyId).toMatch(/^key_[0-9a-f]+$/);
  });

  it("accepts the Bearer scheme name in any case", async () => {
    const event = loadEvent("list-ok.json");
    event.headers.authorization = `bEaReR ${sampleApiKey}`;
    expect((await list(event)).response.statusCode).toBe(200);
  });
});

describe("a listing without an accepted key is refused with 401 and a Bearer challenge", () => {
  it("asks for a key when none is sent", async () => {
    const { response, logLines } = await list(loadEvent("list-no-key.json"));
    expect(response).toBeApiError(401, "unauthorized", /required/);
    expect(response.headers["www-authenticate"]).toBe('Bearer realm="petstore"');
    const line = JSON.parse(logLines[0] ?? "{}") as Record<string, unknown>;
    expect(line).toMatchObject({ level: "WARN", code: "unauthorized" });
    expect(line).not.toHaveProperty("keyId");
  });

  it("says the key was not accepted, and nothing more, when an unknown key is sent", async () => {
    const event = loadEvent("list-bad-key.json");
    const { response } = await list(event);
    expect(response).toBeApiError(401, "unauthorized", /^the API key was not accepted$/);
    expect(response.headers["www-authenticate"]).toBe(
      'Bearer realm="petstore", error="invalid_token"',
    );
    expect(response.body).not.toContain(event.headers.authorization?.slice(7) ?? "?");
  });
});

describe("a large listing is compressed when the client accepts gzip or br", () => {
  const seedOverOneKiB = () =>
    harness.seed(30, "a description long enough that thirty of them exceed one kibibyte");

  it("answers a list over 1 KiB br-compressed to the list-gzip event, and the same list uncompressed without Accept-Encoding", async () => {
    await seedOverOneKiB();
    const plain = (await list(loadEvent("list-ok.json"))).response;
    expect(plain.isBase64Encoded).toBe(false);
    expect(plain.headers).not.toHaveProperty("content-encoding");
    expect(Buffer.byteLength(plain.body)).toBeGreaterThan(1024);

    const { response } = await list(loadEvent("list-gzip.json"));
    expect(response.statusCode).toBe(200);
    expectContractHeaders(response, "private, no-cache");
    expect(response.isBase64Encoded).toBe(true);
    expect(response.headers["content-encoding"]).toBe("br");
    expect(response.headers.vary).toBe("accept-encoding");
    expect(Buffer.from(response.body, "base64").length).toBeLessThan(Buffer.byteLength(plain.body));
    const categories = JSON.parse(bodyText(response)) as unknown[];
    expect(categories).toHaveLength(30);
    expect(categories).toEqual(JSON.parse(plain.body));
    expect(categories).toEqual(await harness.stored());
  });

  it("uses gzip when the client accepts only gzip", async () => {
    await seedOverOneKiB();
    const event = loadEvent("list-gzip.json");
    event.headers["accept-encoding"] = "gzip";
    const { response } = await list(event);
    expect(response.headers["content-encoding"]).toBe("gzip");
    expect(JSON.parse(bodyText(response))).toHaveLength(30);
    expect(JSON.parse(bodyText(response))).toEqual(await harness.stored());
  });
});
