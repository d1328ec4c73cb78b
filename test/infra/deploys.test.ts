/**
 * Safe deploys, as CloudFormation will receive them (after the AWS SAM transform, both stages):
 * every function publishes a version behind the alias `live` and the routes invoke the alias;
 * CodeDeploy moves the alias (all at once in staging, gradually in production) only after the
 * pre-traffic hook passed, and rolls back on the alarms; each stack refuses a foreign account.
 */
import { describe, expect, it } from "vitest";
import { functionsOf, loadTemplate } from "../../local/template.ts";
import { stageConfig, stages } from "../../scripts/stages.ts";
import type { Json, JsonObject } from "../support/cloudFormation.ts";
import {
  asArray,
  getAttArnOf,
  iamStatements,
  isObject,
  raw,
  text,
} from "../support/cloudFormation.ts";
import { skipWithout } from "../support/missingTool.ts";
import { transformTemplate } from "../support/samTransform.ts";

const template = raw(loadTemplate());
const apiFunctions = functionsOf().filter((spec) => spec.routeKeys.length > 0);
const hook = functionsOf().find((spec) => spec.name === "preTrafficHook");
const globals = template.Globals.Function;
const preference = isObject(globals.DeploymentPreference) ? globals.DeploymentPreference : {};
const alarmNames = Object.values(template.Resources)
  .filter((resource) => resource.Type === "AWS::CloudWatch::Alarm")
  .map((alarm) => text(alarm.Properties?.AlarmName ?? null));
const rollbackAlarms = asArray(preference.Alarms).map((alarm) => text(alarm));

const run = transformTemplate(stages.map((stage) => stageConfig(stage).parameters));

describe("versions and aliases", () => {
  it("every function publishes a version per deploy behind the alias live", () => {
    expect(globals.AutoPublishAlias).toBe("live");
  });

  describe.each(stages)("%s, after the SAM transform", (stage) => {
    skipWithout(run.missing);
    const resources = run.transformed?.[stages.indexOf(stage)]?.Resources ?? {};

    it("transforms without errors", () => {
      expect(run.error).toBeUndefined();
    });

    it("every route invokes a function's alias, never $LATEST", () => {
      const api = resources.HttpApi?.Properties?.Body;
      const paths = isObject(api) && isObject(api.paths) ? api.paths : {};
      const uris = Object.values(paths).flatMap((operations) =>
        Object.values(isObject(operations) ? operations : {}).map((operation) =>
          JSON.stringify(isObject(operation) ? operation["x-amazon-apigateway-integration"] : null),
        ),
      );
      expect(uris.length).toBe(functionsOf().flatMap((spec) => spec.routeKeys).length);
      for (const uri of uris)
        expect(uri).toMatch(/functions\/\$\{[A-Za-z]+FunctionAliaslive\}\/invocations/);
      const permissions = Object.values(resources).filter(
        (r) => r.Type === "AWS::Lambda::Permission",
      );
      for (const permission of permissions) {
        expect(JSON.stringify(permission.Properties?.FunctionName)).toMatch(/Aliaslive"\}$/);
      }
    });

    it.each(apiFunctions.map((spec) => [spec.name, spec.logicalId]))(
      "%s: CodeDeploy moves live after the pre-traffic hook, rolling back on the alarms",
      (_name, id) => {
        const expectedType = stageConfig(stage).parameters.DeploymentType;
        expect(expectedType).toBe(stage === "production" ? "Canary10Percent5Minutes" : "AllAtOnce");
        const group = resources[`${id}DeploymentGroup`]?.Properties ?? {};
        expect(JSON.stringify(group.DeploymentConfigName)).toContain(
          `"ConfigName":"${expectedType}"`,
        );
        expect(group.AutoRollbackConfiguration).toMatchObject({ Enabled: true });
        expect(getAttArnOf(group.ServiceRoleArn)).toBe("CodeDeployRole");
        const configured = asArray(
          isObject(group.AlarmConfiguration) ? group.AlarmConfiguration.Alarms : [],
        ).map((alarm) => text(isObject(alarm) ? alarm.Name : null));
        expect(configured).toEqual(rollbackAlarms);
        const alias = resources[`${id}Aliaslive`];
        const update = isObject(alias?.UpdatePolicy)
          ? alias.UpdatePolicy.CodeDeployLambdaAliasUpdate
          : {};
        expect(update).toMatchObject({
          BeforeAllowTrafficHook: { Ref: "PreTrafficHookFunction" },
          DeploymentGroupName: { Ref: `${id}DeploymentGroup` },
        });
      },
    );

    it("the hook itself is not shifted by CodeDeploy", () => {
      expect(resources.PreTrafficHookFunctionDeploymentGroup).toBeUndefined();
    });

    it("keeps the account rule", () => {
      expect(run.transformed?.[stages.indexOf(stage)]?.Rules).toBeDefined();
    });
  });
});

describe("rollback alarms", () => {
  it("each name in the deployment preference is an alarm's AlarmName", () => {
    expect(rollbackAlarms.length).toBeGreaterThanOrEqual(4);
    expect(rollbackAlarms.filter((name) => !alarmNames.includes(name))).toEqual([]);
  });

  it("include the API's 5xx and latency, the ERROR log lines and every function's errors", () => {
    for (const suffix of ["api-5xx-rate", "api-p99-latency", "error-log-lines"]) {
      expect(rollbackAlarms).toContain(`{"Fn::Sub":"petstore-\${Stage}-${suffix}"}`);
    }
    for (const spec of apiFunctions) {
      expect(rollbackAlarms).toContain(`{"Fn::Sub":"petstore-\${Stage}-${spec.name}-errors"}`);
    }
  });
});

describe("the deploy roles hold only what they use", () => {
  const statements = iamStatements(template);
  const of = (role: string, sid: string): JsonObject | undefined =>
    statements.find(({ owner, statement }) => owner === role && statement.Sid === sid)?.statement;

  it("CodeDeploy may read exactly the rollback alarms and run exactly the hook", () => {
    const arns = asArray(of("CodeDeployRole", "WatchRollbackAlarms")?.Resource).map((arn) =>
      text(arn),
    );
    expect(arns.map((arn) => arn.replace(/^.*:alarm:/, "").replace(/"\}$/, ""))).toEqual(
      rollbackAlarms.map((name) => name.replace(/^\{"Fn::Sub":"/, "").replace(/"\}$/, "")),
    );
    const hookName = text(
      template.Resources[hook?.logicalId ?? ""]?.Properties?.FunctionName ?? null,
    );
    const invoke = text(of("CodeDeployRole", "RunPreTrafficHook")?.Resource ?? null);
    expect(invoke.replace(/^.*:function:/, "")).toBe(hookName.replace(/^\{"Fn::Sub":"/, ""));
  });

  it("CodeDeploy may move exactly the live alias of each function it shifts", () => {
    const resources: Json[] = asArray(of("CodeDeployRole", "MoveLiveAliases")?.Resource);
    expect(resources).toEqual(
      apiFunctions.flatMap((spec) => [
        { "Fn::GetAtt": [spec.logicalId, "Arn"] },
        { "Fn::Sub": `\${${spec.logicalId}.Arn}:live` },
      ]),
    );
  });

  it("the hook may invoke exactly the new versions (not $LATEST, not the alias)", () => {
    const resources: Json[] = asArray(of("PreTrafficHookRole", "InvokeNewVersions")?.Resource);
    expect(resources).toEqual(apiFunctions.map((spec) => ({ Ref: `${spec.logicalId}.Version` })));
    const variables = template.Resources[hook?.logicalId ?? ""]?.Properties?.Environment;
    const given = Object.values(
      isObject(variables) && isObject(variables.Variables) ? variables.Variables : {},
    );
    for (const resource of resources) expect(given).toContainEqual(resource);
  });

  it("the hook may report only to the deployment groups of these functions", () => {
    const arns = asArray(of("PreTrafficHookRole", "ReportToCodeDeploy")?.Resource).map((arn) =>
      text(arn),
    );
    expect(arns).toEqual(
      apiFunctions.map((spec) =>
        JSON.stringify({
          "Fn::Sub": `arn:\${AWS::Partition}:codedeploy:\${AWS::Region}:\${AWS::AccountId}:deploymentgroup:\${ServerlessDeploymentApplication}/\${${spec.logicalId}DeploymentGroup}`,
        }),
      ),
    );
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
