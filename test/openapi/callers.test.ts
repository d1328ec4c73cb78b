/**
 * openapi.yaml as callers' tools read it: Redocly's recommended lint finds nothing, the servers
 * are usable addresses, every operation carries a stability marking, and API Gateway's own
 * answers (not the Error shape) are listed beside the service's.
 */
import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { projectRoot } from "../../local/template.ts";
import type { JsonObject } from "../support/openapiDocument.ts";
import { loadOpenApi, openApiPath } from "../support/openapiDocument.ts";
import { openApiOperations as operations } from "./operations.ts";

const document = loadOpenApi();
const redoclyCli = resolve(projectRoot, "node_modules/@redocly/cli/bin/cli.js");
const gatewayMessage = "#/components/schemas/GatewayMessage";

/** Follows one internal `$ref`, as the documents' responses use them. */
function deref(node: JsonObject): JsonObject {
  const ref = node.$ref;
  if (typeof ref !== "string") return node;
  let target: unknown = document;
  for (const key of ref.slice(2).split("/")) target = (target as JsonObject)[key];
  return target as JsonObject;
}

/** The `$ref`s of a response's JSON body schema: itself or its `oneOf` branches. */
function bodyRefs(response: JsonObject): string[] {
  const content = deref(response).content as Record<string, JsonObject> | undefined;
  const schema = content?.["application/json"]?.schema as JsonObject | undefined;
  if (!schema) return [];
  const branches = (schema.oneOf as JsonObject[] | undefined) ?? [schema];
  return branches.flatMap((branch) => (typeof branch.$ref === "string" ? [branch.$ref] : []));
}

describe("Redocly's recommended lint finds nothing", () => {
  it("reports no error or warning beyond the two .redocly.lint-ignore.yaml accepts", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [redoclyCli, "lint", openApiPath, "--format=json"],
      {
        cwd: projectRoot,
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      },
    );
    const report = JSON.parse(stdout) as { totals: JsonObject; problems: JsonObject[] };
    expect(report.problems.map((problem) => problem.message)).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 2 });
  });
});

describe("servers are addresses a caller can fill in", () => {
  const servers = document.servers as {
    url: string;
    description?: string;
    variables?: JsonObject;
  }[];

  it("describes a deployed stage with apiId and region variables, eu-west-1 by default", () => {
    const deployed = servers.find((server) => server.url.includes("execute-api"));
    expect(deployed?.url).toBe("https://{apiId}.execute-api.{region}.amazonaws.com/v1");
    expect(deployed?.variables?.region).toEqual({ default: "eu-west-1" });
    expect(Object.keys(deployed?.variables ?? {}).sort()).toEqual(["apiId", "region"]);
  });

  it("all end in /v1, the local server's included, and no description holds an unfilled {placeholder}", () => {
    expect(servers.map((server) => server.url)).toContain("http://127.0.0.1:3000/v1");
    for (const server of servers) {
      expect(server.url).toMatch(/\/v1$/);
      expect(server.description ?? "").not.toMatch(/\{\w+\}/);
    }
  });
});

describe("every operation carries a stability marking", () => {
  it.each(operations())("%s has x-stability stable, beta or experimental", (_, operation) => {
    expect(["stable", "beta", "experimental"]).toContain(operation["x-stability"]);
  });

  // The contract's own choice of marking per operation: the declaration itself is checked here.
  it("marks the operations as the contract says", () => {
    const marking = Object.fromEntries(
      operations().map(([route, operation]) => [
        route,
        [operation["x-stability"], operation.deprecated === true],
      ]),
    );
    expect(marking).toEqual({
      "GET /categories": ["stable", false],
      "POST /categories": ["stable", false],
      "GET /pets/{petId}": ["stable", true],
      "GET /store/orders": ["experimental", false],
    });
  });

  it.each(operations().filter(([, operation]) => operation["x-stability"] !== "stable"))(
    "%s documents the Stability header on its answers",
    (_, operation) => {
      const headers = deref((operation.responses as JsonObject)["501"] as JsonObject).headers;
      expect(Object.keys(headers as JsonObject)).toContain("Stability");
    },
  );
});

describe("API Gateway's own answers are documented beside the service's", () => {
  it.each(operations())(
    "%s lists 429, 500, 503 and 504 as GatewayMessage bodies",
    (_, operation) => {
      const responses = operation.responses as Record<string, JsonObject>;
      for (const status of ["429", "500", "503", "504"]) {
        expect(responses[status], status).toBeDefined();
        expect(bodyRefs(responses[status] ?? {}), status).toContain(gatewayMessage);
      }
    },
  );

  it("lists API Gateway's 413 (over 10 MB) beside the service's payload_too_large", () => {
    const post = (document.paths as Record<string, JsonObject>)["/categories"]?.post as JsonObject;
    const tooLarge = (post.responses as Record<string, JsonObject>)["413"] ?? {};
    expect(bodyRefs(tooLarge)).toContain(gatewayMessage);
  });

  it("describes GatewayMessage as exactly {message}, so it never matches the Error shape", () => {
    expect(deref({ $ref: gatewayMessage })).toMatchObject({
      required: ["message"],
      additionalProperties: false,
    });
  });
});
