/**
 * Alarms as infra/template.yaml declares them: they reach the stage's topic when they fire and
 * when they clear, every failure the Operating section names has one, and thresholds are per
 * stage (staging no stricter than production).
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { projectRoot, servedFunctions } from "../../../local/template.ts";
import {
  dimensionsOf,
  metricNames,
  metricsNamespace,
  metricsService,
} from "../../../lib/metrics.ts";
import { stageConfig } from "../../../scripts/stages.ts";
import type { Json, JsonObject } from "../../support/cloudFormation.ts";
import { asArray, isObject, refOf, text } from "../../support/cloudFormation.ts";
import { nameText, ofType, template } from "../../support/templateResources.ts";

const alarms = ofType("AWS::CloudWatch::Alarm");
const apiFunctions = servedFunctions();
const [topicId = ""] = ofType("AWS::SNS::Topic").map(([id]) => id);
const tableId = ofType("AWS::DynamoDB::Table")[0]?.[0] ?? "";

/** A Metrics Insights query's metric: SELECT FUNC(name) FROM SCHEMA(namespace, dimension, ...). */
const insightsQuery =
  /^SELECT [A-Z]+\(([A-Za-z0-9]+)\) FROM SCHEMA\(([^,)]+)((?:, [A-Za-z0-9]+)*)\)/;

/**
 * Every metric an alarm reads: [namespace, metric name, dimensions], metric math included; of a
 * Metrics Insights query, the dimensions are its SCHEMA's names (the values are its WHERE's).
 */
function metricsOf(alarm: JsonObject): { namespace: Json; name: Json; dimensions: Json }[] {
  const props = isObject(alarm.Properties) ? alarm.Properties : {};
  if (props.MetricName !== undefined) {
    return [
      {
        namespace: props.Namespace ?? null,
        name: props.MetricName,
        dimensions: props.Dimensions ?? [],
      },
    ];
  }
  const queries = asArray(props.Metrics).filter(isObject);
  const insights = queries
    .map((query) =>
      insightsQuery.exec(text(query.Expression ?? null).replace(/^\{"Fn::Sub":"|"\}$/g, "")),
    )
    .filter((match) => match !== null)
    .map(([, name = "", namespace = "", dimensions = ""]) => ({
      namespace,
      name,
      dimensions: dimensions.split(", ").filter(Boolean),
    }));
  const stats = queries
    .map((query) => (isObject(query.MetricStat) ? query.MetricStat.Metric : undefined))
    .filter(isObject)
    .map((metric) => ({
      namespace: metric.Namespace ?? null,
      name: metric.MetricName ?? null,
      dimensions: metric.Dimensions ?? [],
    }));
  return [...stats, ...insights];
}

function alarmsOn(namespace: string, name: string, dimension?: [string, Json]): string[] {
  return alarms
    .filter(([, alarm]) =>
      metricsOf(alarm).some(
        (metric) =>
          text(metric.namespace) === namespace &&
          metric.name === name &&
          (dimension === undefined ||
            asArray(metric.dimensions).some(
              (d) =>
                isObject(d) &&
                d.Name === dimension[0] &&
                JSON.stringify(d.Value) === JSON.stringify(dimension[1]),
            )),
      ),
    )
    .map(([id]) => id);
}

describe("alarms reach people", () => {
  it("one topic per stage; an e-mail subscription exactly when the stage names an address", () => {
    expect(ofType("AWS::SNS::Topic")).toHaveLength(1);
    const [[, subscription] = ["", {}]] = ofType("AWS::SNS::Subscription");
    expect(subscription.Condition).toBe("HasAlarmEmail");
    expect(subscription.Properties).toMatchObject({
      TopicArn: { Ref: topicId },
      Protocol: "email",
      Endpoint: { Ref: "AlarmEmail" },
    });
    expect(stageConfig("production").parameters.AlarmEmail).toMatch(/@/);
  });

  it.each(alarms)(
    "%s: notifies the topic on alarm and on recovery, missing data chosen",
    (id, alarm) => {
      const props = alarm.Properties ?? {};
      expect(props.AlarmActions, id).toEqual([{ Ref: topicId }]);
      expect(props.OKActions, id).toEqual([{ Ref: topicId }]);
      expect(props.ActionsEnabled ?? true).toBe(true);
      expect(["breaching", "notBreaching", "ignore", "missing"]).toContain(props.TreatMissingData);
      // Under the stage's prefix, which the deploy roles' grants name (a loop's alarm takes its
      // function's name: `${Function}-errors`).
      expect(nameText(props.AlarmName)).toMatch(/^petstore-\$\{Stage\}-[a-z0-9-]+$/i);
      expect(text(props.AlarmDescription).length).toBeGreaterThan(20);
      // Thresholds are per stage, in samconfig.toml.
      expect(refOf(props.Threshold) ?? "", id).toMatch(/^Alarm[A-Za-z0-9]+$/);
    },
  );
});

describe("every failure the issue names has an alarm", () => {
  const api: [string, Json] = ["ApiId", { Ref: "HttpApi" }];
  const table: [string, Json] = ["TableName", { Ref: tableId }];

  it("callers get 5xx: the API's 5xx metric and the functions' own ERROR log lines", () => {
    expect(alarmsOn("AWS/ApiGateway", "5xx", api)).toHaveLength(1);
    const filters = ofType("AWS::Logs::MetricFilter").filter(
      ([, filter]) => filter.Properties?.FilterPattern === '{ $.level = "ERROR" }',
    );
    const groups = filters.map(([, filter]) => refOf(filter.Properties?.LogGroupName));
    for (const spec of apiFunctions) {
      expect(groups, spec.name).toContain(`${spec.logicalId.replace(/Function$/, "")}LogGroup`);
    }
    for (const [id, filter] of filters) {
      const [transformation] = asArray(filter.Properties?.MetricTransformations).filter(isObject);
      const namespace = text(transformation?.MetricNamespace ?? null);
      expect(alarmsOn(namespace, text(transformation?.MetricName ?? null)), id).toHaveLength(1);
    }
  });

  it("API p99 latency", () => {
    const [id = ""] = alarmsOn("AWS/ApiGateway", "Latency", api);
    expect(template.Resources[id]?.Properties?.ExtendedStatistic).toBe("p99");
  });

  it.each(apiFunctions.map((spec) => [spec.name, spec.logicalId]))(
    "%s: Lambda errors and throttles",
    (_name, logicalId) => {
      const fn: [string, Json] = ["FunctionName", { Ref: logicalId }];
      expect(alarmsOn("AWS/Lambda", "Errors", fn)).toHaveLength(1);
      expect(alarmsOn("AWS/Lambda", "Throttles", fn)).toHaveLength(1);
    },
  );

  it("requests admitted without their rate limit: lib/metrics' count, summed over the stage's functions", () => {
    const [id = ""] = alarmsOn(metricsNamespace, metricNames.rateLimitFailOpen);
    const queries = asArray(template.Resources[id]?.Properties?.Metrics).filter(isObject);
    // One Metrics Insights query: every function's count, whatever functions the stage has,
    // with exactly the dimensions lib/metrics.ts emits it with, of this service and stage.
    expect(queries).toHaveLength(1);
    const dimensions = [...dimensionsOf(metricNames.rateLimitFailOpen)];
    expect(dimensions.sort()).toEqual(["function", "service", "stage"]);
    expect(queries[0]?.Expression).toEqual({
      "Fn::Sub": `SELECT SUM(${metricNames.rateLimitFailOpen}) FROM SCHEMA(${metricsNamespace}, ${dimensionsOf(metricNames.rateLimitFailOpen).join(", ")}) WHERE service = '${metricsService}' AND stage = '\${Stage}'`,
    });
    expect(queries[0]?.ReturnData).toBe(true);
  });

  it("concurrent executions near the account's limit", () => {
    expect(alarmsOn("AWS/Lambda", "ConcurrentExecutions")).toHaveLength(1);
  });

  it("DynamoDB throttled requests and system errors on the table", () => {
    const throttles = alarmsOn("AWS/DynamoDB", "ReadThrottleEvents", table);
    expect(throttles).toEqual(alarmsOn("AWS/DynamoDB", "WriteThrottleEvents", table));
    expect(throttles).toHaveLength(1);
    const [systemErrors = ""] = alarmsOn("AWS/DynamoDB", "SystemErrors", table);
    // SystemErrors exists per operation only: every operation the code makes on the table is
    // summed. lib/table/table.ts is the one module that calls the store; IAM has no action of
    // its own for a transaction (each item's is checked), so the calls are read from the code.
    const called = [
      ...readFileSync(resolve(projectRoot, "lib/table/table.ts"), "utf8").matchAll(
        /\.call(?:<[^>]*>)?\(\s*"([A-Za-z]+)"/g,
      ),
    ].map((match) => match[1]);
    const operations = metricsOf(template.Resources[systemErrors] ?? {}).flatMap((metric) =>
      asArray(metric.dimensions)
        .filter((d) => isObject(d) && d.Name === "Operation")
        .map((d) => (isObject(d) ? d.Value : null)),
    );
    expect(called.length).toBeGreaterThan(5);
    expect(operations.sort()).toEqual([...new Set(called)].sort());
  });
});

describe("thresholds per stage", () => {
  const thresholds = Object.keys(template.Parameters).filter((name) =>
    /^Alarm(?!Email)/.test(name),
  );

  it("every threshold parameter is used by an alarm", () => {
    const used = alarms.map(([, alarm]) => refOf(alarm.Properties?.Threshold));
    expect(thresholds.filter((name) => !used.includes(name))).toEqual([]);
  });

  it.each(thresholds)("%s: staging is at least as loose as production", (name) => {
    const staging = Number(stageConfig("staging").parameters[name]);
    const production = Number(stageConfig("production").parameters[name]);
    expect(staging).toBeGreaterThanOrEqual(production);
    expect(production).toBeGreaterThan(0);
  });
});
