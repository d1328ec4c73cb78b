/**
 * Safe deploys, as infra/template.yaml declares them: every function publishes a version behind
 * the alias `live`; each shifted function's deployment rolls back on alarms of the template; the
 * deploy roles hold only what they use; each stack refuses a foreign account. (The deployments
 * after the SAM transform: samTransform.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { functionsOf, loadTemplate, servedFunctions } from "../../local/template.ts";
import { stageConfig, stages } from "../../scripts/stages.ts";
import type { JsonObject } from "../support/cloudFormation.ts";
import { asArray, iamStatements, isObject, refOf } from "../support/cloudFormation.ts";
import { nameText, ofType, template } from "../support/templateResources.ts";
import { ownAlarms, rollbackAlarms as declaredAlarms } from "./rollbackAlarms.ts";

const apiFunctions = servedFunctions();
const hook = functionsOf().find((spec) => spec.name === "preTrafficHook");
const globals = template.Globals.Function;
const alarmNames = ofType("AWS::CloudWatch::Alarm").map(([, alarm]) =>
  nameText(alarm.Properties?.AlarmName),
);
const rollbackAlarms = (logicalId: string): string[] => declaredAlarms(logicalId).map(nameText);

describe("versions and aliases", () => {
  // What the SAM transform makes of them, stage by stage: samTransform.test.ts.
  it("every function publishes a version per deploy behind the alias live", () => {
    expect(globals.AutoPublishAlias).toBe("live");
  });
});

describe("rollback alarms", () => {
  it.each(apiFunctions.map((spec) => [spec.name, spec.logicalId]))(
    "%s: alarms of the template: the API's 5xx and latency, the ERROR log lines, its own errors",
    (name, id) => {
      expect(rollbackAlarms(id).filter((alarm) => !alarmNames.includes(alarm))).toEqual([]);
      for (const suffix of ["api-5xx-rate", "api-p99-latency", "error-log-lines"]) {
        expect(rollbackAlarms(id)).toContain(`petstore-\${Stage}-${suffix}`);
      }
      // Its own alarm watches its own function's Lambda errors.
      const own = ownAlarms(id).map((alarm) => template.Resources[refOf(alarm) ?? ""]);
      expect(own.map((alarm) => alarm?.Properties?.MetricName)).toEqual(["Errors"]);
      expect(own[0]?.Properties?.Dimensions).toEqual([
        { Name: "FunctionName", Value: { Ref: id } },
      ]);
      expect(rollbackAlarms(id)).toContain(`petstore-\${Stage}-${name}-errors`);
    },
  );
});

describe("the deploy roles hold only what they use", () => {
  const statements = iamStatements(template);
  const of = (role: string, sid: string): JsonObject | undefined =>
    statements.find(({ owner, statement }) => owner === role && statement.Sid === sid)?.statement;
  /** An IAM resource pattern as a test of ARNs written the template's way (`${Stage}` kept). */
  const covers = (pattern: string, arn: string): boolean =>
    new RegExp(
      `^${pattern.replaceAll(/[.+?^()|[\]\\{}$]/g, "\\$&").replaceAll("*", "[^:]*")}$`,
    ).test(arn);
  const arnPrefix = "arn:${AWS::Partition}:lambda:${AWS::Region}:${AWS::AccountId}:function:";
  const functionArn = (id: string): string =>
    `${arnPrefix}${nameText(template.Resources[id]?.Properties?.FunctionName)}`;
  const resourcesOf = (role: string, sid: string): string[] =>
    asArray(of(role, sid)?.Resource).map(nameText);
  const otherStage = (arn: string): string => arn.replace("${Stage}", "other");

  it("CodeDeploy may read the rollback alarms (the stage's own) and run exactly the hook", () => {
    const [alarms = "", ...more] = resourcesOf("CodeDeployRole", "WatchRollbackAlarms");
    expect(more).toEqual([]);
    for (const spec of apiFunctions) {
      for (const name of rollbackAlarms(spec.logicalId)) {
        const arn = `arn:\${AWS::Partition}:cloudwatch:\${AWS::Region}:\${AWS::AccountId}:alarm:${name}`;
        expect(covers(alarms, arn), name).toBe(true);
        expect(covers(alarms, otherStage(arn)), name).toBe(false);
      }
    }
    const hookName = nameText(
      template.Resources[hook?.logicalId ?? ""]?.Properties?.FunctionName ?? null,
    );
    const invoke = nameText(of("CodeDeployRole", "RunPreTrafficHook")?.Resource ?? null);
    expect(invoke).toBe(`${arnPrefix}${hookName}`);
  });

  it("CodeDeploy may move the live alias of each function it shifts, of this stage only", () => {
    const patterns = resourcesOf("CodeDeployRole", "MoveLiveAliases");
    expect(patterns).toHaveLength(2);
    for (const spec of apiFunctions) {
      for (const arn of [functionArn(spec.logicalId), `${functionArn(spec.logicalId)}:live`]) {
        expect(
          patterns.filter((pattern) => covers(pattern, arn)),
          arn,
        ).toHaveLength(1);
        expect(
          patterns.some((pattern) => covers(pattern, otherStage(arn))),
          arn,
        ).toBe(false);
      }
      // Another alias, or the unqualified function's versions, are not moved.
      expect(patterns.some((p) => covers(p, `${functionArn(spec.logicalId)}:other`))).toBe(false);
    }
  });

  it("the hook may invoke the new versions of the stage's functions, never the unqualified one", () => {
    const [pattern = "", ...more] = resourcesOf("PreTrafficHookRole", "InvokeNewVersions");
    expect(more).toEqual([]);
    const variables = template.Resources[hook?.logicalId ?? ""]?.Properties?.Environment;
    const given = Object.values(
      isObject(variables) && isObject(variables.Variables) ? variables.Variables : {},
    );
    for (const spec of apiFunctions) {
      // What it is given is each function's version, which the grant covers.
      expect(given).toContainEqual({ "Fn::Sub": `\${${spec.logicalId}.Version}` });
      expect(covers(pattern, `${functionArn(spec.logicalId)}:7`)).toBe(true);
      expect(covers(pattern, functionArn(spec.logicalId))).toBe(false);
      expect(covers(pattern, otherStage(`${functionArn(spec.logicalId)}:7`))).toBe(false);
    }
  });

  it("the hook may report only to this stack's CodeDeploy application, whose groups are the functions'", () => {
    const arns = resourcesOf("PreTrafficHookRole", "ReportToCodeDeploy");
    expect(arns).toEqual([
      "arn:${AWS::Partition}:codedeploy:${AWS::Region}:${AWS::AccountId}:deploymentgroup:${ServerlessDeploymentApplication}/*",
    ]);
  });
});

describe("each stack is pinned to its account", () => {
  const rules = (loadTemplate() as unknown as { Rules?: JsonObject }).Rules ?? {};

  it("a rule compares the stage's AccountId with the account deploying it", () => {
    const assertions = Object.values(rules).flatMap((rule) =>
      asArray(isObject(rule) ? rule.Assertions : []).filter(isObject),
    );
    expect(assertions.map((assertion) => assertion.Assert)).toContainEqual({
      "Fn::Equals": [{ Ref: "AccountId" }, { Ref: "AWS::AccountId" }],
    });
  });

  it("each stage names its own account, and its artifact bucket lives there", () => {
    const accounts = stages.map((stage) => stageConfig(stage).parameters.AccountId ?? "");
    for (const account of accounts) expect(account).toMatch(/^\d{12}$/);
    expect(new Set(accounts).size).toBe(stages.length);
    for (const stage of stages) {
      const { deploy, parameters } = stageConfig(stage);
      expect(deploy.s3_bucket).toBe(`petstore-${stage}-artifacts-${parameters.AccountId ?? ""}`);
    }
  });
});
