/**
 * What CloudFormation will actually deploy, as far as it can be known without AWS: the template
 * after the AWS SAM transform (aws-sam-translator, the library behind CloudFormation's
 * AWS::Serverless transform and the SAM CLI) with each stage's parameters — the routes invoke
 * each function's alias `live`, which CodeDeploy moves (all at once in staging, gradually in
 * production) only after the pre-traffic hook passed, rolling back on the alarms — and cfn-lint's
 * verdict on the template. Both tools are Python packages that are on developers' machines and
 * CI's image but not in package.json; when one is missing, its test says so and is skipped.
 */
import { describe, expect, it } from "vitest";
import { functionsOf, routesOf, servedFunctions, templatePath } from "../../local/template.ts";
import { stageConfig, stages } from "../../scripts/stages.ts";
import type { Json, JsonObject } from "../support/cloudFormation.ts";
import { asArray, getAttArnOf, isObject } from "../support/cloudFormation.ts";
import { cfnLint, cfnLintMissing } from "../support/cfnLint.ts";
import { skipWithout } from "../support/missingTool.ts";
import { transformTemplate } from "../support/samTransform.ts";
import { ofType as templateOfType } from "../support/templateResources.ts";
import { configurationParameter, releaseSha256 } from "../../scripts/lib/deploy/plan.ts";
import { rollbackAlarms } from "./rollbackAlarms.ts";

const corsOrigins = "https://a.example,https://b.example";

/** Every stage's transformed template, then staging's with CORS origins given: one run. */
function transformAll(): ReturnType<typeof transformTemplate> {
  return transformTemplate([
    ...stages.map((stage) => stageConfig(stage).parameters),
    { ...stageConfig("staging").parameters, CorsAllowedOrigins: corsOrigins },
  ]);
}

const all = transformAll();
/** The one function behind no route: the pre-traffic hook. */
const hookId = functionsOf().find((spec) => spec.routeKeys.length === 0)?.logicalId;

describe("after the AWS SAM transform", () => {
  skipWithout(all.missing);

  it("runs without errors", () => {
    expect(all.error).toBeUndefined();
  });

  describe.each(stages)("%s", (stage) => {
    const result = { transformed: all.transformed?.[stages.indexOf(stage)] };
    const byId = result.transformed?.Resources ?? {};
    const resources = Object.entries(byId);
    const ofType = (type: string): (typeof resources)[number][] =>
      resources.filter(([, resource]) => resource.Type === type);

    it("transforms into plain CloudFormation", () => {
      expect(resources.length).toBeGreaterThan(0);
      expect(resources.filter(([, r]) => r.Type.startsWith("AWS::Serverless::"))).toEqual([]);
    });

    it("has one API stage, $default, and no stage named Stage", () => {
      expect(ofType("AWS::ApiGateway::Stage")).toEqual([]);
      expect(ofType("AWS::ApiGateway::RestApi")).toEqual([]);
      const apiStages = ofType("AWS::ApiGatewayV2::Stage");
      expect(apiStages.map(([, r]) => r.Properties?.StageName)).toEqual(["$default"]);
      expect(JSON.stringify(result.transformed)).not.toMatch(/"StageName":\s*"Stage"/);
      const [, apiStage] = apiStages[0] ?? [];
      expect(apiStage?.Properties?.AutoDeploy).toBe(true);
      expect(apiStage?.Properties?.DefaultRouteSettings).toEqual({
        ThrottlingRateLimit: { Ref: "ThrottlingRateLimit" },
        ThrottlingBurstLimit: { Ref: "ThrottlingBurstLimit" },
      });
    });

    it("routes exactly the template's routes, each to its function's alias live, never $LATEST", () => {
      const [, api] = ofType("AWS::ApiGatewayV2::Api")[0] ?? [];
      const body = api?.Properties?.Body;
      const paths = isObject(body) && isObject(body.paths) ? body.paths : {};
      const routes = Object.entries(paths).flatMap(([path, operations]) =>
        Object.entries(isObject(operations) ? operations : {}).map(([method, operation]) => {
          const route = path === "/$default" ? "$default" : `${method.toUpperCase()} ${path}`;
          const uri = JSON.stringify(
            isObject(operation) ? operation["x-amazon-apigateway-integration"] : null,
          );
          const id = routesOf().get(route)?.logicalId ?? "(no function)";
          expect(uri, route).toMatch(new RegExp(`functions/\\$\\{${id}Aliaslive\\}/invocations`));
          return route;
        }),
      );
      expect(routes.sort()).toEqual([...routesOf().keys()].sort());
    });

    it("lets API Gateway invoke each function's alias only from this API", () => {
      const permissions = ofType("AWS::Lambda::Permission");
      expect(permissions.length).toBeGreaterThan(0);
      for (const [id, permission] of permissions) {
        expect(permission.Properties?.Principal, id).toBe("apigateway.amazonaws.com");
        expect(JSON.stringify(permission.Properties?.SourceArn), id).toContain(
          '"__ApiId__":{"Ref":"HttpApi"}',
        );
        expect(JSON.stringify(permission.Properties?.FunctionName), id).toMatch(/Aliaslive"\}$/);
      }
    });

    it.each(servedFunctions().map((spec) => [spec.name, spec.logicalId]))(
      "%s: CodeDeploy moves live after the pre-traffic hook, rolling back on the alarms",
      (_name, id) => {
        const expectedType = stageConfig(stage).parameters.DeploymentType;
        expect(expectedType).toBe(stage === "production" ? "Canary10Percent5Minutes" : "AllAtOnce");
        const group = byId[`${id}DeploymentGroup`]?.Properties ?? {};
        expect(JSON.stringify(group.DeploymentConfigName)).toContain(
          `"ConfigName":"${expectedType}"`,
        );
        expect(group.AutoRollbackConfiguration).toMatchObject({ Enabled: true });
        expect(getAttArnOf(group.ServiceRoleArn)).toBe("CodeDeployRole");
        const configured = asArray(
          isObject(group.AlarmConfiguration) ? group.AlarmConfiguration.Alarms : [],
        ).map((alarm) => (isObject(alarm) ? alarm.Name : null));
        expect(configured).toEqual(rollbackAlarms(id));
        const alias = byId[`${id}Aliaslive`];
        const update = isObject(alias?.UpdatePolicy)
          ? alias.UpdatePolicy.CodeDeployLambdaAliasUpdate
          : {};
        expect(update).toMatchObject({
          BeforeAllowTrafficHook: { Ref: hookId },
          DeploymentGroupName: { Ref: `${id}DeploymentGroup` },
        });
      },
    );

    // The hook's ReportToCodeDeploy grant covers every group of this application: its groups
    // must be exactly the shifted functions' (the hook's own is not among them).
    it("the stack's one CodeDeploy application holds exactly the shifted functions' groups", () => {
      const groups = ofType("AWS::CodeDeploy::DeploymentGroup");
      expect(groups.map(([id]) => id).sort()).toEqual(
        servedFunctions()
          .map((spec) => `${spec.logicalId}DeploymentGroup`)
          .sort(),
      );
      for (const [, group] of groups) {
        expect(group.Properties?.ApplicationName).toEqual({
          Ref: "ServerlessDeploymentApplication",
        });
      }
      expect(ofType("AWS::CodeDeploy::Application")).toHaveLength(1);
    });

    it("keeps the account rule", () => {
      expect(result.transformed?.Rules).toBeDefined();
    });

    it("creates no IAM role or managed policy beyond the template's own roles", () => {
      const roles = ofType("AWS::IAM::Role");
      expect(roles.map(([id]) => id).sort()).toEqual(
        templateOfType("AWS::IAM::Role")
          .map(([id]) => id)
          .sort(),
      );
      for (const [id, role] of roles) {
        expect(role.Properties?.ManagedPolicyArns, id).toBeUndefined();
      }
    });

    it("functions are nodejs24.x on arm64 with JSON logs, each in its own role", () => {
      const functions = ofType("AWS::Lambda::Function");
      // The ones behind the routes and the pre-traffic hook.
      expect(functions.map(([id]) => id).sort()).toEqual(
        functionsOf()
          .map((spec) => spec.logicalId)
          .sort(),
      );
      for (const [id, fn] of functions) {
        const props = fn.Properties ?? {};
        expect(props.Runtime, id).toBe("nodejs24.x");
        expect(props.Architectures, id).toEqual(["arm64"]);
        expect(props.Handler, id).toBe("index.handler");
        expect(isObject(props.LoggingConfig) && props.LoggingConfig.LogFormat, id).toBe("JSON");
        if (id !== hookId) expect(Number(props.Timeout), id).toBeLessThan(30);
      }
    });

    it("CORS is off for this stage's empty origin list, on and exact for given origins", () => {
      const [, api] = ofType("AWS::ApiGatewayV2::Api")[0] ?? [];
      const body = api?.Properties?.Body;
      const cors = isObject(body) ? body["x-amazon-apigateway-cors"] : undefined;
      // The SAM transform leaves the choice to CloudFormation: Fn::If on HasCors.
      expect(isObject(cors) && asArray(cors["Fn::If"])[0]).toBe("HasCors");
      const corsOn = (all.transformed?.[stages.length]?.Resources.HttpApi?.Properties?.Body ??
        {}) as JsonObject;
      const chosen = asArray((corsOn["x-amazon-apigateway-cors"] as JsonObject)["Fn::If"])[1];
      expect(isObject(chosen) && chosen.allowOrigins).toEqual(corsOrigins.split(","));
    });

    it(`keeps the table ${stage === "production" ? "(Retain)" : "deletable (Delete)"}`, () => {
      const [, table] = ofType("AWS::DynamoDB::Table")[0] ?? [];
      const expected: Json = stage === "production" ? "Retain" : "Delete";
      expect(table?.DeletionPolicy).toBe(expected);
      expect(table?.UpdateReplacePolicy).toBe(expected);
    });
  });
});

describe("a deploy publishes new versions when the code or a value the functions read changes, not an alarm's", () => {
  // As npm run deploy gives the parameters: the stage's, and the release's hash of the bundles
  // and the values the functions read (a bundle here: a stand-in for its hash).
  const served = servedFunctions();
  const bundles = Object.fromEntries(served.map(({ name }, index) => [name, String(index)]));
  const changedBundle = served[0]?.name ?? "";
  const deployed = (changes: Record<string, string>, code = bundles): Record<string, string> => {
    const parameters = { ...stageConfig("staging").parameters, ...changes };
    return { ...parameters, [configurationParameter]: releaseSha256(parameters, code) };
  };
  const run = transformTemplate([
    deployed({}),
    deployed({ DefaultRateLimit: "77/s" }),
    deployed({ AlarmThrottles: "11" }),
    deployed({}, { ...bundles, [changedBundle]: "changed" }),
    // By hand (`sam deploy --config-env`): samconfig's empty hash, SAM's own naming.
    { ...stageConfig("staging").parameters, [configurationParameter]: "" },
  ]);
  skipWithout(run.missing);
  /** Per function behind a route, the logical id of the version the deploy would publish. */
  const versions = (deploy: number): Record<string, string | undefined> => {
    const ids = Object.entries(run.transformed?.[deploy]?.Resources ?? {})
      .filter(([, resource]) => resource.Type === "AWS::Lambda::Version")
      .map(([id]) => id);
    return Object.fromEntries(
      servedFunctions().map(({ logicalId }) => [
        logicalId,
        ids.find((id) => id.startsWith(`${logicalId}Version`)),
      ]),
    );
  };
  const moved = (a: number, b: number): boolean[] => {
    const [before, after] = [versions(a), versions(b)];
    return Object.entries(before).map(([id, version]) => {
      expect(version, id).toBeDefined();
      return after[id] !== version;
    });
  };

  it("a rate limit changed alone: every function behind a route publishes a new version", () => {
    expect(run.error).toBeUndefined();
    expect(moved(0, 1)).toEqual(served.map(() => true));
  });

  it("one bundle changed alone: so do they (one hash for all: the code is in it)", () => {
    expect(moved(0, 3)).toEqual(served.map(() => true));
  });

  it("an alarm threshold changed alone: no new version, so no deployment", () => {
    expect(moved(0, 2)).toEqual(served.map(() => false));
  });

  it("by hand, with the empty hash, SAM names versions itself", () => {
    expect(moved(0, 4)).toEqual(served.map(() => true));
    expect(Object.values(versions(4)).every((id) => id !== undefined)).toBe(true);
  });
});

describe("cfn-lint", () => {
  skipWithout(cfnLintMissing);

  it("finds no error, warning or informational finding in the template", () => {
    const { findings, status } = cfnLint(templatePath);
    expect(findings).toBe("");
    expect(status).toBe(0);
  });
});
