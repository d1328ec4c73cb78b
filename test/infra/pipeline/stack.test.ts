/**
 * infra/pipeline.yaml (the OIDC provider, the deploy roles and the artifact bucket): passes
 * cfn-lint, grants no wildcard action and only what a deploy of the stage needs, lets only this
 * repository's job in the stage's environment in, and creates what samconfig.toml names.
 */
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadTemplate, projectRoot } from "../../../local/template.ts";
import { stageConfig, stages } from "../../../scripts/stages.ts";
import type { Json, JsonObject } from "../../support/cloudFormation.ts";
import { asArray, iamStatements, isObject, raw, text } from "../../support/cloudFormation.ts";
import { cfnLint, cfnLintMissing } from "../../support/cfnLint.ts";
import { skipWithout } from "../../support/missingTool.ts";
import { transformTemplate } from "../../support/samTransform.ts";
import { template } from "../../support/templateResources.ts";

const pipelinePath = resolve(projectRoot, "infra/pipeline.yaml");
const pipeline = raw(loadTemplate(pipelinePath));

describe("infra/pipeline.yaml under cfn-lint", () => {
  skipWithout(cfnLintMissing);

  it("passes, informational checks included", () => {
    const { findings, status } = cfnLint(pipelinePath);
    expect(findings).toBe("");
    expect(status).toBe(0);
  });
});

describe("infra/pipeline.yaml", () => {
  const statements = iamStatements(pipeline);

  it("grants no wildcard action, and * resources only to actions that take no other", () => {
    const resourceless = new Set([
      "logs:DescribeLogGroups",
      "logs:CreateLogDelivery",
      "logs:GetLogDelivery",
      "logs:UpdateLogDelivery",
      "logs:DeleteLogDelivery",
      "logs:ListLogDeliveries",
      "logs:PutResourcePolicy",
      "logs:DescribeResourcePolicies",
      "logs:DescribeIndexPolicies",
      "lambda:GetAccountSettings",
    ]);
    for (const { at, statement } of statements.filter((s) => s.statement.Effect === "Allow")) {
      const actions = asArray(statement.Action).map(String);
      for (const action of actions) expect(action, at).not.toContain("*");
      if (asArray(statement.Resource).includes("*")) {
        expect(
          actions.filter((action) => !resourceless.has(action)),
          at,
        ).toEqual([]);
      }
    }
  });

  it("scopes every other grant to the stage's stack, bucket or resource names", () => {
    for (const { at, statement } of statements.filter((s) => s.statement.Effect === "Allow")) {
      for (const resource of asArray(statement.Resource).filter((r) => r !== "*")) {
        expect(text(resource), at).toMatch(
          /petstore-\$\{Stage\}|ArtifactBucket|CloudFormationRole|\/apis|\/tags\/|aws:transform|deploymentconfig:CodeDeployDefault/,
        );
      }
    }
  });

  it("lets only this repository's job in the stage's environment assume the deploy role", () => {
    const role = pipeline.Resources.GitHubDeployRole?.Properties ?? {};
    const trust = asArray(
      (role.AssumeRolePolicyDocument as JsonObject | undefined)?.Statement,
    ).filter(isObject);
    expect(trust).toHaveLength(1);
    expect(trust[0]?.Action).toBe("sts:AssumeRoleWithWebIdentity");
    expect(trust[0]?.Condition).toEqual({
      StringEquals: {
        "token.actions.githubusercontent.com:aud": "sts.amazonaws.com",
        "token.actions.githubusercontent.com:sub": {
          "Fn::Sub": "repo:${GitHubRepository}:environment:${Stage}",
        },
      },
    });
    expect(role.RoleName).toEqual({ "Fn::Sub": "petstore-${Stage}-github-deploy" });
  });

  it("never expires a package the stack may still run: only replaced versions of a key", () => {
    // SAM skips the upload of a package whose key (its content's hash) exists: an unchanged
    // bundle's object keeps its first date, and a failed update's rollback needs it again.
    const bucket = pipeline.Resources.ArtifactBucket?.Properties ?? {};
    expect(bucket.VersioningConfiguration).toEqual({ Status: "Enabled" });
    const rules = asArray((bucket.LifecycleConfiguration as JsonObject | undefined)?.Rules).filter(
      isObject,
    );
    expect(rules.length).toBeGreaterThan(0);
    for (const rule of rules) {
      expect(
        Object.keys(rule).filter((key) =>
          /^(ExpirationInDays|ExpirationDate|Transitions?)$/.test(key),
        ),
      ).toEqual([]);
      expect(rule.NoncurrentVersionExpiration).toBeDefined();
    }
  });

  it.each(stages)("creates the bucket and role %s's samconfig names", (stage) => {
    const { deploy, parameters } = stageConfig(stage);
    const account = parameters.AccountId ?? "";
    const sub = (id: string, property: string): string =>
      text(
        (pipeline.Resources[id]?.Properties?.[property] as JsonObject | undefined)?.["Fn::Sub"] ??
          null,
      )
        .replaceAll("${Stage}", stage)
        .replaceAll("${AWS::AccountId}", account);
    expect(deploy.s3_bucket).toBe(sub("ArtifactBucket", "BucketName"));
    expect(deploy.role_arn).toBe(
      `arn:aws:iam::${account}:role/${sub("CloudFormationRole", "RoleName")}`,
    );
  });
});

/**
 * What CloudFormation's handler reads each resource type of the stack with: from the registry
 * schemas' `handlers.read.permissions` (us-east-1, August 2026, as pulumi/pulumi-aws-native and
 * hashicorp/terraform-provider-awscc vendor them), each type's own Get or Describe and every one
 * this role lacked before (KMS reads, which apply only to a customer key, left out). The read runs on every update that needs the resource's state, and every deploy
 * updates every resource's tags (the stack's `commit` tag): one missing permission fails a deploy.
 */
const readHandlers: Readonly<Record<string, readonly string[]>> = {
  "AWS::DynamoDB::Table": [
    "dynamodb:DescribeTable",
    "dynamodb:DescribeContinuousBackups",
    "dynamodb:DescribeContributorInsights",
    "dynamodb:DescribeKinesisStreamingDestination",
    "dynamodb:ListTagsOfResource",
    "dynamodb:GetResourcePolicy",
  ],
  "AWS::Lambda::Function": [
    "lambda:GetFunction",
    "lambda:GetFunctionCodeSigningConfig",
    "lambda:GetRuntimeManagementConfig",
    "lambda:GetFunctionRecursionConfig",
    "lambda:GetFunctionScalingConfig",
  ],
  "AWS::Lambda::Version": [
    "lambda:GetProvisionedConcurrencyConfig",
    "lambda:GetRuntimeManagementConfig",
    "lambda:GetFunctionScalingConfig",
  ],
  "AWS::Lambda::Alias": ["lambda:GetAlias", "lambda:GetProvisionedConcurrencyConfig"],
  "AWS::Lambda::Permission": ["lambda:GetPolicy"],
  "AWS::IAM::Role": ["iam:GetRole", "iam:ListRolePolicies", "iam:ListAttachedRolePolicies"],
  "AWS::IAM::RolePolicy": ["iam:GetRolePolicy"],
  "AWS::Logs::LogGroup": [
    "logs:DescribeLogGroups",
    "logs:ListTagsForResource",
    "logs:GetDataProtectionPolicy",
    "logs:DescribeIndexPolicies",
  ],
  "AWS::Logs::MetricFilter": ["logs:DescribeMetricFilters"],
  "AWS::SNS::Topic": [
    "sns:GetTopicAttributes",
    "sns:ListTagsForResource",
    "sns:GetDataProtectionPolicy",
  ],
  "AWS::SNS::Subscription": ["sns:GetSubscriptionAttributes"],
  "AWS::CloudWatch::Alarm": ["cloudwatch:DescribeAlarms", "cloudwatch:ListTagsForResource"],
  "AWS::CloudWatch::Dashboard": ["cloudwatch:GetDashboard", "cloudwatch:ListTagsForResource"],
  "AWS::CodeDeploy::Application": ["codedeploy:GetApplication", "codedeploy:ListTagsForResource"],
  "AWS::CodeDeploy::DeploymentGroup": [
    "codedeploy:GetDeploymentGroup",
    "codedeploy:ListTagsForResource",
    "codedeploy:ListDeployments",
  ],
  "AWS::ApiGatewayV2::Api": ["apigateway:GET"],
  "AWS::ApiGatewayV2::Stage": ["apigateway:GET"],
};

describe("the CloudFormation role may read every resource type of the stack as its handler does", () => {
  const transform = transformTemplate([stageConfig("production").parameters]);
  skipWithout(transform.missing);

  it("grants each read handler's permissions, for every type the transformed template holds", () => {
    expect(transform.error).toBeUndefined();
    const granted = new Set(
      iamStatements(pipeline)
        .filter(
          ({ owner, statement }) => owner === "CloudFormationRole" && statement.Effect === "Allow",
        )
        .flatMap(({ statement }) => asArray(statement.Action).map(String)),
    );
    const types = new Set(
      Object.values(transform.transformed?.[0]?.Resources ?? {}).map((resource) => resource.Type),
    );
    expect([...types].filter((type) => !(type in readHandlers))).toEqual([]);
    const missing = [...types].flatMap((type) =>
      (readHandlers[type] ?? [])
        .filter((action) => !granted.has(action))
        .map((a) => `${type}: ${a}`),
    );
    expect(missing).toEqual([]);
  });
});

describe("the CloudFormation role cannot raise its own rights (or anyone's past the boundary)", () => {
  const statements = iamStatements(pipeline).filter(({ owner }) => owner === "CloudFormationRole");
  const allows = statements.filter(({ statement }) => statement.Effect === "Allow");
  const denies = statements.filter(({ statement }) => statement.Effect === "Deny");
  const actionsOf = (statement: JsonObject): string[] => asArray(statement.Action).map(String);
  const boundary = pipeline.Resources.StackRoleBoundary?.Properties ?? {};
  /** A `!Sub` string as written (`${Stage}` and all), or a plain string. */
  const subText = (value: Json | undefined): string =>
    isObject(value) ? text(value["Fn::Sub"]) : text(value);
  const boundaryName = subText(boundary.ManagedPolicyName);

  it("writes a role's policy or boundary only with the stack's boundary on that role", () => {
    const writes = new Set([
      "iam:CreateRole",
      "iam:PutRolePolicy",
      "iam:DeleteRolePolicy",
      "iam:AttachRolePolicy",
      "iam:DetachRolePolicy",
      "iam:PutRolePermissionsBoundary",
    ]);
    const writing = allows.filter(({ statement }) =>
      actionsOf(statement).some((action) => writes.has(action)),
    );
    expect(writing.length).toBeGreaterThan(0);
    for (const { at, statement } of writing) {
      expect(statement.Condition, at).toEqual({
        StringEquals: { "iam:PermissionsBoundary": { Ref: "StackRoleBoundary" } },
      });
    }
  });

  it("may not make policies, users or groups, attach managed policies, or take a boundary off", () => {
    const granted = allows.flatMap(({ statement }) => actionsOf(statement));
    for (const action of granted.filter((action) => action.startsWith("iam:"))) {
      expect(action).toMatch(
        /^iam:(CreateRole|DeleteRole|GetRole|UpdateAssumeRolePolicy|UpdateRoleDescription|PutRolePolicy|GetRolePolicy|ListRolePolicies|ListAttachedRolePolicies|DeleteRolePolicy|PutRolePermissionsBoundary|TagRole|UntagRole|PassRole)$/,
      );
    }
    const keepBoundaries = denies.find(({ statement }) =>
      actionsOf(statement).includes("iam:DeleteRolePermissionsBoundary"),
    );
    expect(keepBoundaries?.statement.Resource).toBe("*");
  });

  it("is denied every IAM action on the pipeline's own roles and on the boundary", () => {
    const denied = denies.find(({ statement }) => actionsOf(statement).includes("iam:*"));
    const resources = asArray(denied?.statement.Resource);
    const roleNames = Object.values(pipeline.Resources)
      .filter((resource) => resource.Type === "AWS::IAM::Role")
      .map((resource) => subText(resource.Properties?.RoleName));
    expect(roleNames).toHaveLength(2);
    for (const name of roleNames) {
      expect(resources).toContainEqual({
        "Fn::Sub": `arn:\${AWS::Partition}:iam::\${AWS::AccountId}:role/${name}`,
      });
      // The names are inside the pattern the stack may write: the deny is what keeps them out.
      expect(name).toMatch(/^petstore-\$\{Stage\}-/);
    }
    expect(resources).toContainEqual({ Ref: "StackRoleBoundary" });
  });

  it("the boundary grants no IAM, STS or wildcard action, only on the stage's resources", () => {
    expect(pipeline.Resources.StackRoleBoundary?.Type).toBe("AWS::IAM::ManagedPolicy");
    expect(boundaryName).toBe("petstore-${Stage}-boundary");
    const document = boundary.PolicyDocument as JsonObject;
    for (const statement of asArray(document.Statement).filter(isObject)) {
      expect(statement.Effect).toBe("Allow");
      for (const action of actionsOf(statement)) expect(action).toMatch(/^(?!iam:|sts:)[^*]+$/);
      expect(subText(statement.Resource)).toMatch(/petstore-\$\{Stage\}/);
    }
  });

  it("every role of infra/template.yaml carries the boundary, and needs nothing outside it", () => {
    const document = boundary.PolicyDocument as JsonObject;
    const ceiling = new Set(
      asArray(document.Statement)
        .filter(isObject)
        .flatMap((statement) => actionsOf(statement)),
    );
    const expected = {
      "Fn::Sub": `arn:\${AWS::Partition}:iam::\${AWS::AccountId}:policy/${boundaryName}`,
    };
    const roles = Object.entries(template.Resources).filter(
      ([, resource]) => resource.Type === "AWS::IAM::Role",
    );
    expect(roles.length).toBeGreaterThan(0);
    for (const [id, role] of roles)
      expect(role.Properties?.PermissionsBoundary, id).toEqual(expected);
    // Roles SAM would make for a function that names none of its own.
    expect(template.Globals.Function.PermissionsBoundary).toEqual(expected);
    const needed = iamStatements(template)
      .filter(({ statement }) => statement.Effect === "Allow")
      .flatMap(({ statement }) => actionsOf(statement));
    expect(needed.filter((action) => !ceiling.has(action))).toEqual([]);
  });

  it("needs no account-wide log resource policy: the access log's delivery is allowed here", () => {
    const granted = allows.flatMap(({ statement }) => actionsOf(statement));
    expect(granted).not.toContain("logs:PutResourcePolicy");
    const delivery = pipeline.Resources.AccessLogDelivery;
    expect(delivery?.Type).toBe("AWS::Logs::ResourcePolicy");
    const policy = text(
      (delivery?.Properties?.PolicyDocument as JsonObject | undefined)?.["Fn::Sub"] ?? null,
    );
    const parsed = JSON.parse(policy) as { Statement: { Resource: string; Principal: object }[] };
    expect(parsed.Statement.map((statement) => statement.Resource)).toEqual([
      "arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:/aws/apigateway/petstore-${Stage}:*",
    ]);
    expect(parsed.Statement[0]?.Principal).toEqual({ Service: "delivery.logs.amazonaws.com" });
  });

  it("changes only the HTTP API CloudFormation tagged as the stage's stack", () => {
    const apiStatements = allows.filter(({ statement }) =>
      actionsOf(statement).some((action) => action.startsWith("apigateway:")),
    );
    for (const { at, statement } of apiStatements) {
      const resources = asArray(statement.Resource).map(subText);
      const onExisting = resources.some((resource) => /::\/(apis|tags)\/\*$/.test(resource));
      const stackName = { "Fn::Sub": "petstore-${Stage}" };
      const tagsOnly = resources.every((resource) => /::\/tags\/\*$/.test(resource));
      if (onExisting && tagsOnly && actionsOf(statement).join() === "apigateway:POST") {
        // Tagging an API that has no tags yet (an import): only with this stack's own name.
        expect(statement.Condition, at).toEqual({
          StringEquals: { "aws:RequestTag/aws:cloudformation:stack-name": stackName },
        });
      } else if (onExisting) {
        expect(statement.Condition, at).toEqual({
          StringEquals: { "aws:ResourceTag/aws:cloudformation:stack-name": stackName },
        });
      } else {
        // Unconditioned: only the collection itself (creating an API, which touches no other).
        expect(resources, at).toEqual(["arn:${AWS::Partition}:apigateway:${AWS::Region}::/apis"]);
      }
    }
  });

  it("may create the HTTP API as CloudFormation does from SAM's OpenAPI Body: ImportApi, PUT /v2/apis", () => {
    const onCollection = allows.filter(({ statement }) =>
      asArray(statement.Resource)
        .map(subText)
        .some((resource) => resource.endsWith("::/apis")),
    );
    expect(onCollection.flatMap(({ statement }) => actionsOf(statement))).toContain(
      "apigateway:PUT",
    );
  });
});
