import { describe, expect, it } from "vitest";
import { fieldNames } from "../../lib/category.ts";
import type { HttpEvent } from "../../lib/http/message.ts";
import { expectContractHeaders, expectOneLogLine, loadEvent, useHarness } from "./harness.ts";

const harness = useHarness();
// Every answer writes one JSON log line holding neither the key nor its hash (expectOneLogLine).
const create = async (event: HttpEvent) => {
  const invocation = await harness.invoke(await harness.handler("createCategory"), event);
  expectOneLogLine(invocation, event);
  return invocation;
};
const withoutKey = (name: string): HttpEvent => {
  const event = loadEvent(name);
  delete event.headers.authorization;
  return event;
};

// Each test starts on an empty table (useHarness), so the first create takes id 1.
describe("a valid create stores the category under the next id and answers it with 201", () => {
  it("stores create-ok with id 1 and answers exactly the stored category", async () => {
    const { response, logLines } = await create(loadEvent("create-ok.json"));
    expect(response.statusCode).toBe(201);
    expectContractHeaders(response);
    const body = JSON.parse(response.body) as unknown;
    expect(body).toEqual({
      id: 1,
      name: "Rabbits",
      description: "Domestic rabbits and other lagomorphs",
    });
    expect(await harness.stored()).toEqual([body]);
    const line = JSON.parse(logLines[0] ?? "{}") as Record<string, unknown>;
    expect(line.level).toBe("INFO");
    expect(line.keyId).toMatch(/^key_[0-9a-f]+$/);
  });

  it.each([
    [
      "a base64-encoded JSON body",
      "create-base64.json",
      { name: "Hamsters", description: "Small rodents" },
    ],
    [
      "a body without Content-Type as JSON, omitting an absent description",
      "create-no-content-type.json",
      { name: "Guinea pigs" },
    ],
  ])("reads %s", async (_, file, stored) => {
    const { response } = await create(loadEvent(file));
    expect(response.statusCode).toBe(201);
    expectContractHeaders(response);
    expect(JSON.parse(response.body)).toStrictEqual({ id: 1, ...stored });
  });

  it("takes the id after the last stored one", async () => {
    await harness.seed(3);
    const { response } = await create(loadEvent("create-ok.json"));
    expect(response.statusCode).toBe(201);
    expect(JSON.parse(response.body)).toMatchObject({ id: 4, name: "Rabbits" });
    expect(await harness.stored()).toHaveLength(4);
  });

  it("trims the name before storing it", async () => {
    const event = loadEvent("create-ok.json");
    event.body = JSON.stringify({ name: "  Ferrets\t " });
    event.headers["content-length"] = String(Buffer.byteLength(event.body));
    const { response } = await create(event);
    expect(response.statusCode).toBe(201);
    expect(JSON.parse(response.body)).toStrictEqual({ id: 1, name: "Ferrets" });
    expect(await harness.stored()).toEqual([{ id: 1, name: "Ferrets" }]);
  });
});

describe("an unauthenticated create is refused before its body is read", () => {
  it("answers create-no-key (malformed body, no key) with 401, not 400", async () => {
    const { response } = await create(loadEvent("create-no-key.json"));
    expect(response).toBeApiError(401, "unauthorized", /API key is required/);
    expect(response.headers["www-authenticate"]).toBe('Bearer realm="petstore"');
  });

  it.each([
    "create-invalid.json",
    "create-unknown-field.json",
    "create-malformed-json.json",
    "create-wrong-media-type.json",
    "create-ok.json",
  ])("answers %s without its key with 401", async (name) => {
    await harness.seed(2);
    const before = await harness.stored();
    const { response } = await create(withoutKey(name));
    expect(response).toBeApiError(401, "unauthorized");
    expect(await harness.stored()).toEqual(before);
  });
});

describe("an invalid create is answered with the Error shape and stores nothing", () => {
  it.each([
    { name: "create-invalid.json", status: 400, code: "invalid_body", says: /'name'.*at most 100/ },
    { name: "create-unknown-field.json", status: 400, code: "invalid_body", says: /"id"/ },
    { name: "create-malformed-json.json", status: 400, code: "invalid_json", says: /JSON/ },
    {
      name: "create-wrong-media-type.json",
      status: 415,
      code: "unsupported_media_type",
      says: /application\/json/,
    },
  ])("answers $name with $status $code", async ({ name, status, code, says }) => {
    await harness.seed(2);
    const before = await harness.stored();
    const { response, logLines } = await create(loadEvent(name));
    expect(response).toBeApiError(status, code, says);
    expect(JSON.parse(logLines[0] ?? "{}")).toMatchObject({ level: "WARN", code });
    expect(await harness.stored()).toEqual(before);
  });

  it("names the category's own fields when the body is missing or carries a refused key", async () => {
    const withBody = (body: string) => ({ ...loadEvent("create-ok.json"), body });
    expect((await create(withBody(""))).response).toBeApiError(400, "invalid_body", /a 'name'/);
    const refused = await create(withBody('{"name":"dog","__proto__":{"admin":true}}'));
    const everyField = new RegExp(`only ${fieldNames.map((field) => `'${field}'`).join(".*")}`);
    expect(refused.response).toBeApiError(400, "invalid_body", everyField);
  });

  it("leaves the id counter untouched: the next valid create takes the next id", async () => {
    await harness.seed(2);
    for (const name of ["create-invalid.json", "create-malformed-json.json"]) {
      expect((await create(loadEvent(name))).response.statusCode).toBe(400);
    }
    expect((await create(withoutKey("create-ok.json"))).response.statusCode).toBe(401);
    const { response } = await create(loadEvent("create-ok.json"));
    expect(response.statusCode).toBe(201);
    expect(JSON.parse(response.body)).toMatchObject({ id: 3 });
    expect(await harness.stored()).toHaveLength(3);
  });
});
