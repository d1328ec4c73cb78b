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
import { asArray, isObject, refOf, text } from "../../support/cloudFormation.ts";
import { nameText, ofType } from "../../support/templateResources.ts";

const alarms = ofType("AWS::CloudWatch::Alarm");
const apiFunctions = functionsOf()
  .filter((spec) => spec.routeKeys.length > 0)
  .map((spec) => ({ ...spec, stem: spec.logicalId.replace(/Function$/, "") }));
const hook = functionsOf().find((spec) => spec.routeKeys.length === 0);

/** The dashboard's body for a stage: `${...}` replaced as CloudFormation would, then JSON. */
function dashboardBody(stage: string): JsonObject {
  const [, dashboard] = ofType("AWS::CloudWatch::Dashboard")[0] ?? [];
  const body = dashboard?.Properties?.DashboardBody;
  const source = isObject(body) ? text(body["Fn::Sub"]) : "";
  const parameters = stageConfig(stage).parameters;
  // A function's Ref is its name; anything else, a stand-in naming what it stands for.
  const functionNames = new Map(
    functionsOf().map((spec) => [spec.logicalId, `petstore-${stage}-${spec.name}`]),
  );
  const substituted = source.replaceAll(/\$\{([^}]+)\}/g, (_match, name: string) =>
    name in parameters ? (parameters[name] ?? "") : (functionNames.get(name) ?? `resolved-${name}`),
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
      "SEARCH('{AWS/Lambda,FunctionName}",
      "SEARCH('{PetStore/production/InitDuration}'",
      '"AWS/DynamoDB","ConsumedReadCapacityUnits"',
      '"AWS/DynamoDB","ConsumedWriteCapacityUnits"',
      '"AWS/DynamoDB","ReadThrottleEvents"',
      '"type":"alarm"',
    ]) {
      expect(body, needle).toContain(needle);
    }
    // The alarm widget shows every alarm but the ones each function has (made by the template's
    // loop); those are shown by the metrics they watch, over every function of the stage.
    const perFunction = new Set(
      apiFunctions.flatMap((spec) => [`${spec.stem}ErrorsAlarm`, `${spec.stem}ThrottlesAlarm`]),
    );
    for (const [id] of alarms) {
      if (perFunction.has(id)) expect(body, id).not.toContain(`resolved-${id}.Arn`);
      else expect(body, id).toContain(`resolved-${id}.Arn`);
    }
  });

  // The init duration SEARCH reads a namespace each function's log group feeds (the template's
  // loop): one metric per function, named after it, valued from Lambda's cold start report.
  it("shows each function's init duration, from its own log group's filter", () => {
    const searched = /SEARCH\('\{(PetStore\/production\/InitDuration)\}'/.exec(body)?.[1];
    expect(searched).toBeDefined();
    const filters = ofType("AWS::Logs::MetricFilter");
    for (const spec of apiFunctions) {
      const fed = filters
        .filter(([, filter]) => refOf(filter.Properties?.LogGroupName) === `${spec.stem}LogGroup`)
        .flatMap(([, filter]) => asArray(filter.Properties?.MetricTransformations))
        .filter(isObject)
        .filter((t) => nameText(t.MetricNamespace).replace("${Stage}", "production") === searched);
      expect(
        fed.map((t) => nameText(t.MetricName)),
        spec.name,
      ).toEqual([`petstore-\${Stage}-${spec.name}`]);
      expect(fed[0]?.MetricValue).toBe("$.record.metrics.initDurationMs");
    }
  });

  // A SEARCH term `Name=token` matches a value holding that token (its words split at "-"), one
  // in quotes the whole value: the functions' metrics are every function of this stage's, the
  // hook's aside, whatever functions it has.
  it.each(["Duration", "Errors", "Throttles"])(
    "shows %s of every function of the stage",
    (metric) => {
      const searches = [...body.matchAll(/SEARCH\('\{AWS\/Lambda,FunctionName\} ([^']*)'/g)]
        .map((match) => match[1] ?? "")
        .filter((terms) => terms.includes(`MetricName=\\"${metric}\\"`));
      expect(searches.length, metric).toBeGreaterThan(0);
      const hookName = `petstore-production-${hook?.name ?? ""}`;
      for (const terms of searches) {
        const tokens = [...terms.matchAll(/(NOT )?FunctionName=(\\"[^\\]*\\"|[A-Za-z0-9]+)/g)];
        const matches = (name: string): boolean =>
          tokens.every(([, not, value = ""]) => {
            const hit = value.startsWith('\\"')
              ? value.slice(2, -2) === name
              : name.split("-").includes(value);
            return not ? !hit : hit;
          });
        for (const spec of apiFunctions)
          expect(matches(`petstore-production-${spec.name}`), spec.name).toBe(true);
        expect(matches(hookName), "the hook").toBe(false);
        expect(matches("petstore-staging-listCategories"), "another stage").toBe(false);
      }
    },
  );

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
