/**
 * The dashboard as infra/template.yaml declares it: one per stage, valid JSON once substituted,
 * over the gateway, the functions, the table, the alarms and the service's own EMF metrics by
 * the exact names and dimensions lib/metrics.ts emits.
 */
import { describe, expect, it } from "vitest";
import { functionsOf } from "../../../local/template.ts";
import {
  dimensionsOf,
  metricNames,
  metricsNamespace,
  metricsService,
} from "../../../lib/metrics.ts";
import { stageConfig, stages } from "../../../scripts/stages.ts";
import type { JsonObject } from "../../support/cloudFormation.ts";
import { asArray, isObject, text } from "../../support/cloudFormation.ts";
import { ofType } from "../../support/templateResources.ts";

const alarms = ofType("AWS::CloudWatch::Alarm");
const apiFunctions = functionsOf().filter((spec) => spec.routeKeys.length > 0);

/** The dashboard's body for a stage: `${...}` replaced as CloudFormation would, then JSON. */
function dashboardBody(stage: string): JsonObject {
  const [, dashboard] = ofType("AWS::CloudWatch::Dashboard")[0] ?? [];
  const body = dashboard?.Properties?.DashboardBody;
  const source = isObject(body) ? text(body["Fn::Sub"]) : "";
  const parameters = stageConfig(stage).parameters;
  const substituted = source.replaceAll(/\$\{([^}]+)\}/g, (_match, name: string) =>
    name in parameters ? (parameters[name] ?? "") : `resolved-${name}`,
  );
  return JSON.parse(substituted) as JsonObject;
}

describe("one dashboard per stage", () => {
  it.each(stages)("%s: the body is valid JSON once CloudFormation substitutes it", (stage) => {
    expect(asArray(dashboardBody(stage).widgets).length).toBeGreaterThan(5);
  });

  const body = JSON.stringify(dashboardBody("production"));

  it("shows requests, 4xx/5xx, p50/p99 latency, durations, cold starts, table and alarms", () => {
    for (const needle of [
      '"AWS/ApiGateway","Count"',
      '"AWS/ApiGateway","4xx"',
      '"AWS/ApiGateway","5xx"',
      '"stat":"p50"',
      '"stat":"p99"',
      '"AWS/Lambda","Duration"',
      "record.metrics.initDurationMs",
      '"AWS/DynamoDB","ConsumedReadCapacityUnits"',
      '"AWS/DynamoDB","ConsumedWriteCapacityUnits"',
      '"AWS/DynamoDB","ReadThrottleEvents"',
      '"type":"alarm"',
    ]) {
      expect(body, needle).toContain(needle);
    }
    for (const spec of apiFunctions) expect(body).toContain(`resolved-${spec.logicalId}`);
    for (const [id] of alarms) expect(body, id).toContain(`resolved-${id}.Arn`);
  });

  it("shows every metric lib/metrics.ts emits, by the names and dimensions it emits them", () => {
    const shown = new Set<string>();
    for (const match of body.matchAll(/\["PetStore","([A-Za-z]+)"((?:,"[^"]*")*)/g)) {
      shown.add(match[1] ?? "");
      expect(match[2]).toContain(`"service","${metricsService}"`);
      expect(match[2]).toContain('"stage","production"');
    }
    for (const match of body.matchAll(
      /SEARCH\('\{PetStore,([^}]*)\} MetricName=\\"([A-Za-z]+)\\"/g,
    )) {
      const name = match[2] ?? "";
      shown.add(name);
      // A SEARCH schema matches metrics with exactly these dimensions, no more and no fewer.
      expect(match[1]?.split(",").sort(), name).toEqual([...dimensionsOf(name)].sort());
    }
    expect(metricsNamespace).toBe("PetStore");
    expect([...shown].sort()).toEqual(Object.values(metricNames).sort());
  });
});
