/**
 * The JSON body parser's errors, as the installed @middy/http-json-body-parser really throws
 * them, mapped to the contract's answers. If an upgrade changes what middy throws, these fail.
 */
import { readFileSync } from "node:fs";
import middy from "@middy/core";
import httpJsonBodyParser from "@middy/http-json-body-parser";
import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { bodyParserPackage, fromBodyParserError } from "../../../lib/http/jsonBody.ts";

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
      expect(fromBodyParserError(await parserError(body))).toMatchObject({
        status: 400,
        code: "invalid_json",
      });
    },
  );

  it.each([
    ['{"name":"dog","__proto__":{"admin":true}}', "__proto__"],
    ['{"name":"dog","constructor":{"prototype":{}}}', "constructor"],
  ])("a refused key in %s → 400 invalid_body naming %s", async (body, key) => {
    const mapped = fromBodyParserError(await parserError(body));
    expect(mapped).toMatchObject({ status: 400, code: "invalid_body" });
    expect(mapped?.message).toContain(JSON.stringify(key));
  });

  it("a missing body → 400 invalid_json; a media type it refuses → 415", async () => {
    expect(fromBodyParserError(await parserError(undefined))).toMatchObject({
      code: "invalid_json",
    });
    expect(fromBodyParserError(await parserError("{}", {}))).toMatchObject({
      status: 415,
      code: "unsupported_media_type",
    });
  });

  it("leaves errors of anything else alone, even with the same status", () => {
    const foreign = Object.assign(new Error("Forbidden key in JSON body"), { statusCode: 422 });
    expect(fromBodyParserError(foreign)).toBeUndefined();
    const otherPackage = Object.assign(new Error("x"), {
      statusCode: 422,
      cause: { package: "@middy/validator" },
    });
    expect(fromBodyParserError(otherPackage)).toBeUndefined();
    expect(fromBodyParserError("a string")).toBeUndefined();
  });
});
