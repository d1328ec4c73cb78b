/**
 * The roles as infra/template.yaml declares them: no wildcards but the stage's own prefix where
 * a grant covers every function of the stage, no managed policies, each role
 * assumable only by its service, each function writing only its own log group, DynamoDB only on
 * listed partitions. (Which calls and partitions: test/infra/iam/, from the code's calls.)
 */
import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../support/cloudFormation.ts";
import {
  asArray,
  getAttArnOf,
  iamStatements,
  isObject,
  text,
} from "../../support/cloudFormation.ts";
import {
  functions,
  globals,
  nameText,
  ofType,
  prop,
  template,
} from "../../support/templateResources.ts";

describe("IAM", () => {
  const statements = iamStatements(template);

  // Where a grant covers every function of the stage, it names them by the stage's prefix (the
  // template says why each is no wider in practice); nowhere else a wildcard.
  const scopedWildcards: Readonly<Record<string, RegExp>> = {
    InvokeNewVersions: /^arn:\$\{AWS::Partition\}:lambda:.*:function:petstore-\$\{Stage\}-\*:\*$/,
    ReportToCodeDeploy:
      /^arn:\$\{AWS::Partition\}:codedeploy:.*:deploymentgroup:\$\{ServerlessDeploymentApplication\}\/\*$/,
    MoveLiveAliases:
      /^arn:\$\{AWS::Partition\}:lambda:.*:function:petstore-\$\{Stage\}-\*(:live)?$/,
    WatchRollbackAlarms: /^arn:\$\{AWS::Partition\}:cloudwatch:.*:alarm:petstore-\$\{Stage\}-\*$/,
  };

  it("names no action with a wildcard, and a resource only by the stage's own prefix", () => {
    const wild = statements.flatMap(({ at, statement }) => [
      ...asArray(statement.Action)
        .filter((action) => typeof action !== "string" || action.includes("*"))
        .map((action) => `${at} Action ${JSON.stringify(action)}`),
      ...asArray(statement.Resource)
        .filter((resource) => JSON.stringify(resource).includes("*"))
        .filter(
          (resource) => !scopedWildcards[text(statement.Sid ?? null)]?.test(nameText(resource)),
        )
        .map((resource) => `${at} Resource ${JSON.stringify(resource)}`),
      ...(statement.NotAction !== undefined || statement.NotResource !== undefined
        ? [`${at} uses NotAction/NotResource`]
        : []),
    ]);
    expect(wild).toEqual([]);
  });

  // Each role's boundary, infra/pipeline.yaml's ceiling: test/infra/pipeline/stack.test.ts.
  it("attaches no managed policies (their resources are *)", () => {
    for (const [id, role] of ofType("AWS::IAM::Role")) {
      expect(role.Properties?.ManagedPolicyArns, id).toBeUndefined();
    }
  });

  it("lets Lambda assume the functions' roles and CodeDeploy its own, only by sts:AssumeRole", () => {
    const functionRoles = new Set(functions.map(([id]) => getAttArnOf(prop(id, "Role"))));
    const preference = globals.DeploymentPreference;
    const codeDeployRole = isObject(preference) ? getAttArnOf(preference.Role) : undefined;
    for (const [id, role] of ofType("AWS::IAM::Role")) {
      const service = functionRoles.has(id)
        ? "lambda.amazonaws.com"
        : id === codeDeployRole
          ? "codedeploy.amazonaws.com"
          : "(a role nothing uses)";
      expect(role.Properties?.AssumeRolePolicyDocument, id).toEqual({
        Version: "2012-10-17",
        Statement: [{ Effect: "Allow", Principal: { Service: service }, Action: "sts:AssumeRole" }],
      });
    }
  });

  it("lets each function write only its own log group", () => {
    for (const [id] of functions) {
      const role = getAttArnOf(prop(id, "Role")) ?? "";
      // The group named after the function (test/infra/template/functions.test.ts).
      const expected = `/aws/lambda/${nameText(prop(id, "FunctionName"))}`;
      const [group = ""] = ofType("AWS::Logs::LogGroup")
        .filter(([, resource]) => nameText(resource.Properties?.LogGroupName) === expected)
        .map(([groupId]) => groupId);
      const logStatements = statements
        .filter(({ owner }) => owner === role)
        .filter(({ statement }) =>
          asArray(statement.Action).some((action) => text(action).startsWith("logs:")),
        );
      expect(logStatements.map(({ statement }) => statement)).toHaveLength(1);
      const statement: JsonObject = logStatements[0]?.statement ?? {};
      expect(statement).toMatchObject({
        Sid: "WriteOwnLogGroup",
        Effect: "Allow",
        Action: ["logs:CreateLogStream", "logs:PutLogEvents"],
      });
      // Written either way CloudFormation reads the same: GetAtt, or a Sub of it in the loop.
      expect([
        JSON.stringify({ "Fn::GetAtt": [group, "Arn"] }),
        JSON.stringify({ "Fn::Sub": `\${${group}.Arn}` }),
      ]).toContain(JSON.stringify(statement.Resource));
    }
  });

  /** API functions' roles: logs and the table. Hook and CodeDeploy: test/infra/deploys.test.ts. */
  const actionsOf: Record<string, RegExp> = {
    PreTrafficHookRole:
      /^((logs|dynamodb):[A-Za-z]+|lambda:InvokeFunction|codedeploy:PutLifecycleEventHookExecutionStatus)$/,
    CodeDeployRole:
      /^(lambda:(GetAlias|UpdateAlias|GetProvisionedConcurrencyConfig|InvokeFunction)|cloudwatch:DescribeAlarms)$/,
  };

  it("grants only logs and DynamoDB actions (and each deploy role its few), DynamoDB only on partitions", () => {
    for (const { at, owner, statement } of statements) {
      expect(statement.Effect, at).toBe("Allow");
      for (const action of asArray(statement.Action).map(String)) {
        expect(action, at).toMatch(actionsOf[owner] ?? /^(logs|dynamodb):[A-Za-z]+$/);
        if (action.startsWith("dynamodb:")) {
          const condition = isObject(statement.Condition) ? statement.Condition : {};
          // ForAllValues: every leading key of the request must be listed.
          const keys = Object.entries(condition).filter(
            ([operator, test]) =>
              /^ForAllValues:String(Equals|Like)$/.test(operator) &&
              isObject(test) &&
              test["dynamodb:LeadingKeys"] !== undefined,
          );
          expect(keys.length, `${at}: ${action} without a LeadingKeys condition`).toBe(1);
        }
      }
    }
  });
});
