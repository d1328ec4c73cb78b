/**
 * The JSON body parser's errors, as the installed @middy/http-json-body-parser really throws
 * them, mapped to the contract's answers. If an upgrade changes what middy throws, these fail.
 */
import { readFileSync } from "node:fs";
import middy from "@middy/core";
import httpJsonBodyParser from "@middy/http-json-body-parser";
import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { toErrorResponse } from "../../../lib/http/errorResponse.ts";
import {
  bodyParserPackage,
  fromBodyParserError,
  jsonRequestBody,
} from "../../../lib/http/jsonBody.ts";

/** Any resource's fields: the body's checks serve every resource, each naming its own. */
const fields = { required: "a 'label'", accepted: "'label' and 'colour'" };
const readJson = (path: string): unknown =>
  JSON.parse(readFileSync(new URL(path, import.meta.url), "utf8"));
const installed = readJson("../../../node_modules/@middy/http-json-body-parser/package.json") as {
  name: string;
  version: string;
};
const declared = readJson("../../../package.json") as { dependencies: Record<string, string> };

/** What the installed parser throws for `body` (undefined when it parses). */
async function parserError(
  body: string | undefined,
  options: Parameters<typeof httpJsonBodyParser>[0] = { disableContentTypeCheck: true },
): Promise<unknown> {
  const handler = middy<APIGatewayProxyEventV2>()
    .use(httpJsonBodyParser(options))
    .handler(() => undefined);
  const event = { headers: {}, body } as unknown as APIGatewayProxyEventV2;
  try {
    await handler(event, {} as Context);
    return undefined;
  } catch (error) {
    return error;
  }
}

describe("the body parser's errors map by status and cause.package, never by message", () => {
  it(`pins @middy/http-json-body-parser ${installed.version}, which names itself in cause.package`, async () => {
    expect(installed.name).toBe(bodyParserPackage);
    expect(declared.dependencies[bodyParserPackage]).toBe(installed.version);
    const error = await parserError("{");
    expect(error).toMatchObject({ statusCode: 422, cause: { package: bodyParserPackage } });
  });

  it.each(["{", '{"name":', "[1,]", "nul", '{"name":"dog"}}'])(
    "malformed JSON %s → 400 invalid_json",
    async (body) => {
      expect(fromBodyParserError(await parserError(body), fields)).toMatchObject({
        status: 400,
        code: "invalid_json",
      });
    },
  );

  it.each([
    ['{"name":"dog","__proto__":{"admin":true}}', "__proto__"],
    ['{"name":"dog","constructor":{"prototype":{}}}', "constructor"],
  ])("a refused key in %s → 400 invalid_body naming %s", async (body, key) => {
    const mapped = fromBodyParserError(await parserError(body), fields);
    expect(mapped).toMatchObject({ status: 400, code: "invalid_body" });
    expect(mapped?.message).toContain(JSON.stringify(key));
  });

  it("a missing body → 400 invalid_json; a media type it refuses → 415", async () => {
    expect(fromBodyParserError(await parserError(undefined), fields)).toMatchObject({
      code: "invalid_json",
    });
    expect(fromBodyParserError(await parserError("{}", {}), fields)).toMatchObject({
      status: 415,
      code: "unsupported_media_type",
    });
  });

  it("leaves errors of anything else alone, even with the same status", () => {
    const foreign = Object.assign(new Error("Forbidden key in JSON body"), { statusCode: 422 });
    expect(fromBodyParserError(foreign, fields)).toBeUndefined();
    const otherPackage = Object.assign(new Error("x"), {
      statusCode: 422,
      cause: { package: "@middy/validator" },
    });
    expect(fromBodyParserError(otherPackage, fields)).toBeUndefined();
    expect(fromBodyParserError("a string", fields)).toBeUndefined();
  });
});

/** What a handler behind jsonRequestBody() receives, or the error answer it gets instead. */
async function throughBody(
  body: string | undefined,
  headers: Record<string, string> = {},
  isBase64Encoded = false,
): Promise<{ readonly parsed?: unknown; readonly error?: ReturnType<typeof toErrorResponse> }> {
  let parsed: unknown;
  const handler = middy<APIGatewayProxyEventV2>()
    .use(jsonRequestBody(fields))
    .handler((event) => {
      parsed = { body: event.body, isBase64Encoded: event.isBase64Encoded };
    });
  const event = { headers, body, isBase64Encoded } as unknown as APIGatewayProxyEventV2;
  try {
    await handler(event, {} as Context);
    return { parsed };
  } catch (error) {
    return { error: toErrorResponse(error) };
  }
}

describe("a POST body is JSON: any JSON media type, or none at all (read as JSON)", () => {
  it.each([
    {},
    { "content-type": "application/json; charset=utf-8" },
    { "Content-Type": "application/vnd.x+json" },
  ])("parses with headers %j", async (headers) => {
    expect((await throughBody('{"name":"dog"}', headers)).parsed).toEqual({
      body: { name: "dog" },
      isBase64Encoded: false,
    });
  });

  it("another media type is 415 unsupported_media_type, before the body is read", async () => {
    const { error } = await throughBody("", { "content-type": "text/plain" });
    expect(error?.response).toBeApiError(415, "unsupported_media_type");
  });

  it.each(["gzip", "GZIP", " br ", "deflate, gzip"])(
    "a body with Content-Encoding %j is 415, saying to send it uncompressed",
    async (coding) => {
      const { error } = await throughBody('{"name":"dog"}', { "content-encoding": coding });
      expect(error?.response).toBeApiError(415, "unsupported_media_type", /Content-Encoding/);
    },
  );

  it.each(["identity", "", "IDENTITY"])(
    "Content-Encoding %j is no coding: parsed",
    async (coding) => {
      expect((await throughBody('{"name":"dog"}', { "content-encoding": coding })).parsed).toEqual({
        body: { name: "dog" },
        isBase64Encoded: false,
      });
    },
  );

  it("a base64 body is decoded before it is parsed", async () => {
    const body = Buffer.from('{"name":"dög"}').toString("base64");
    expect((await throughBody(body, {}, true)).parsed).toEqual({
      body: { name: "dög" },
      isBase64Encoded: false,
    });
  });
});

describe("a missing, empty or blank body is 400 invalid_body naming the required field", () => {
  it.each([undefined, "", "  \n\t "])("%j", async (body) => {
    const { error } = await throughBody(body);
    expect(error?.response).toBeApiError(
      400,
      "invalid_body",
      `the request body is missing: send a JSON object with ${fields.required}`,
    );
  });
});

describe("a body nested deeper than 64 levels cannot be a NewCategory", () => {
  const nested = (depth: number): string => "[".repeat(depth) + "]".repeat(depth);

  it("64 levels reach the parser (and then the field rules)", async () => {
    expect((await throughBody(nested(64))).parsed).toMatchObject({ isBase64Encoded: false });
  });

  it("65 levels of well-formed JSON are 400 invalid_body", async () => {
    const { error } = await throughBody(nested(65));
    expect(error?.response).toBeApiError(400, "invalid_body", /deeper than 64 levels/);
  });

  it("deep malformed JSON is 400 invalid_json, as any malformed body", async () => {
    const { error } = await throughBody(`${nested(65)}]`);
    expect(error?.response).toBeApiError(400, "invalid_json");
  });

  it("nesting far past the parser's stack is still answered, not a 500", async () => {
    const { error } = await throughBody(nested(5000));
    expect(error?.response).toBeApiError(400, "invalid_body");
  });
});

describe("a refused key's message names it and the accepted fields", () => {
  it("says which fields are accepted", async () => {
    const { error } = await throughBody('{"name":"dog","__proto__":{}}');
    expect(error?.response).toBeApiError(
      400,
      "invalid_body",
      `the field "__proto__" is not accepted: only ${fields.accepted} are`,
    );
  });

  it("a 422 that carries a JSON.parse message is malformed JSON even with data", () => {
    const error = Object.assign(new Error("Invalid or malformed JSON was provided"), {
      statusCode: 422,
      cause: { package: bodyParserPackage, message: "Unexpected end", data: "{" },
    });
    expect(fromBodyParserError(error, fields)).toMatchObject({ code: "invalid_json" });
  });

  it("another status from the parser is not the contract's to name", () => {
    const error = Object.assign(new Error("x"), {
      statusCode: 400,
      cause: { package: bodyParserPackage },
    });
    expect(fromBodyParserError(error, fields)).toBeUndefined();
    const noCause = Object.assign(new Error("x"), { statusCode: 422, cause: null });
    expect(fromBodyParserError(noCause, fields)).toBeUndefined();
  });
});

describe("a JSON syntax error's message says where the body stops being JSON", () => {
  it.each([
    ['{"name":"dog",\n "description" "x"}', "at line 2, column 16"],
    ['{"name":"dog"}}', "at line 1, column 15"],
    ['{\r\n  "name": "dog",\r\n  "description": tru', "it ends early, at line 3, column 21"],
    ['{"name":', "it ends early, at line 1, column 9"],
  ])("%j → %s", async (body, place) => {
    const { error } = await throughBody(body);
    expect(error?.response).toBeApiError(
      400,
      "invalid_json",
      `the request body is not well-formed JSON: ${place}`,
    );
  });

  it("deeper than 64 levels, too", async () => {
    const { error } = await throughBody(`${"[".repeat(65)}x`);
    expect(error?.response).toBeApiError(
      400,
      "invalid_json",
      "the request body is not well-formed JSON: at line 1, column 66",
    );
  });

  it("says only where, never what the body holds there", async () => {
    const { error } = await throughBody('{"name": petstore_secret}');
    expect(error?.response.body).not.toContain("petstore_secret");
  });
});
