/**
 * The HTTP API as infra/template.yaml declares it: one API on its $default stage, the BaseUrl
 * output ending in /v1, per-stage throttling, JSON access logs, and CORS off unless a stage
 * lists origins.
 */
import { describe, expect, it } from "vitest";
import { stageConfig, stages } from "../../../scripts/stages.ts";
import { evaluate, parameterValues } from "../../support/cfnConditions.ts";
import { getAttArnOf, isObject, text } from "../../support/cloudFormation.ts";
import {
  asObject,
  loadOpenApi,
  operationMethods,
  resolveRef,
} from "../../support/openapiDocument.ts";
import type { JsonObject } from "../../support/openapiDocument.ts";
import { ofType, resources, template } from "../../support/templateResources.ts";

describe("API", () => {
  it("has no API Gateway stage named Stage (one HTTP API on its $default stage)", () => {
    expect(ofType("AWS::Serverless::Api")).toEqual([]);
    const apis = ofType("AWS::Serverless::HttpApi");
    expect(apis.map(([id]) => id)).toEqual(["HttpApi"]);
    for (const [, api] of apis) {
      // No StageName means SAM's `$default` stage; any name would also enter the URL.
      expect(api.Properties?.StageName).toBeUndefined();
    }
    const stageNames = resources
      .filter(([, resource]) => resource.Properties?.StageName !== undefined)
      .map(([id, resource]) => `${id}: ${JSON.stringify(resource.Properties?.StageName)}`);
    expect(stageNames).toEqual([]);
    expect(JSON.stringify(template)).not.toMatch(/"StageName":\s*"Stage"/);
  });

  it("outputs BaseUrl: the API's address ending in /v1", () => {
    const value = template.Outputs.BaseUrl?.Value;
    expect(value).toEqual({
      "Fn::Sub": "https://${HttpApi}.execute-api.${AWS::Region}.${AWS::URLSuffix}/v1",
    });
  });

  it("throttles the stage by parameters (rate and burst per stage)", () => {
    expect(template.Resources.HttpApi?.Properties?.DefaultRouteSettings).toEqual({
      ThrottlingRateLimit: { Ref: "ThrottlingRateLimit" },
      ThrottlingBurstLimit: { Ref: "ThrottlingBurstLimit" },
    });
  });

  // integrationRequestId: the Lambda request id the function's log line carries.
  it("writes JSON access logs with request ids, route, status and latency", () => {
    const settings = template.Resources.HttpApi?.Properties?.AccessLogSettings;
    expect(isObject(settings)).toBe(true);
    if (!isObject(settings)) return;
    expect(getAttArnOf(settings.DestinationArn)).toBe("AccessLogGroup");
    const format = JSON.parse(text(settings.Format)) as Record<string, string>;
    expect(format).toMatchObject({
      requestId: "$context.requestId",
      routeKey: "$context.routeKey",
      status: "$context.status",
      latencyMs: "$context.responseLatency",
      integrationRequestId: "$context.integration.requestId",
    });
  });

  it.each(stages)(
    "CORS in %s: off when the stage gives no origins, else exactly those",
    (stage) => {
      const { parameters } = stageConfig(stage);
      const cors = evaluate(
        template.Resources.HttpApi?.Properties?.CorsConfiguration,
        parameterValues(template, parameters),
        template.Conditions,
      );
      const origins = parameters.CorsAllowedOrigins ?? "";
      if (origins === "") expect(cors).toBeUndefined();
      else expect(cors).toMatchObject({ AllowOrigins: origins.split(",") });
    },
  );

  it("CORS, when on, allows only the listed origins and the API's methods and headers", () => {
    const cors = stagingCorsWith("https://a.example,https://b.example");
    expect(cors).toMatchObject({
      AllowOrigins: ["https://a.example", "https://b.example"],
      AllowMethods: ["GET", "POST"],
      AllowCredentials: false,
    });
    // CloudFormation matches AllowedPattern against each value of a CommaDelimitedList.
    const pattern = new RegExp(text(template.Parameters.CorsAllowedOrigins?.AllowedPattern));
    const accepts = (list: string): boolean => list.split(",").every((v) => pattern.test(v));
    expect(accepts("")).toBe(true);
    expect(accepts("https://a.example,https://b.example:8443")).toBe(true);
    expect(accepts("*")).toBe(false);
    expect(accepts("https://*.example")).toBe(false);
    expect(accepts("a.example")).toBe(false);
  });

  it("CORS, when on, lets a browser's script send and read every header the interface names", () => {
    const cors = stagingCorsWith("https://a.example") as {
      AllowHeaders: string[];
      ExposeHeaders: string[];
    };
    // A script sends only CORS-safelisted request headers unless they are allowed, and reads only
    // safelisted response headers unless they are exposed (the Fetch standard). The bearer token
    // and the JSON body's content-type are not safelisted. Not exposed, as the browser itself
    // acts on them: content-encoding, vary, x-content-type-options (cache-control is safelisted).
    const { request, response } = interfaceHeaders();
    expect(new Set(cors.AllowHeaders)).toEqual(
      new Set(["authorization", "content-type", ...request]),
    );
    const browsers = ["cache-control", "content-encoding", "vary", "x-content-type-options"];
    expect(new Set(cors.ExposeHeaders)).toEqual(
      new Set(response.filter((header) => !browsers.includes(header))),
    );
  });
});

/** The request header parameters and the response headers openapi.yaml names, lower-cased. */
function interfaceHeaders(): { request: string[]; response: string[] } {
  const request = new Set<string>();
  const response = new Set<string>();
  const deref = (value: unknown): JsonObject =>
    isObject(value) && typeof value.$ref === "string"
      ? resolveRef(value.$ref).value
      : asObject(value, "openapi.yaml");
  for (const item of Object.values(asObject(loadOpenApi().paths, "paths"))) {
    const path = asObject(item, "a path item");
    const operations = operationMethods.flatMap((method) =>
      path[method] === undefined ? [] : [asObject(path[method], method)],
    );
    for (const operation of operations) {
      const parameters = [path.parameters ?? [], operation.parameters ?? []].flat() as unknown[];
      for (const parameter of parameters.map(deref)) {
        if (parameter.in === "header") request.add(String(parameter.name).toLowerCase());
      }
      for (const answer of Object.values(asObject(operation.responses, "responses")).map(deref)) {
        for (const name of Object.keys(answer.headers ?? {})) response.add(name.toLowerCase());
      }
    }
  }
  return { request: [...request], response: [...response] };
}

/** The API's CORS configuration in staging, with these origins listed. */
function stagingCorsWith(origins: string): unknown {
  return evaluate(
    template.Resources.HttpApi?.Properties?.CorsConfiguration,
    parameterValues(template, {
      ...stageConfig("staging").parameters,
      CorsAllowedOrigins: origins,
    }),
    template.Conditions,
  );
}
