/**
 * infra/pipeline.yaml (the OIDC provider, the deploy roles and the artifact bucket): passes
 * cfn-lint, grants no wildcard action and only what a deploy of the stage needs, lets only this
 * repository's job in the stage's environment in, and creates what samconfig.toml names.
 */
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadTemplate, projectRoot } from "../../../local/template.ts";
import { stageConfig, stages } from "../../../scripts/stages.ts";
import type { JsonObject } from "../../support/cloudFormation.ts";
import { asArray, iamStatements, isObject, raw, text } from "../../support/cloudFormation.ts";
import { cfnLint, cfnLintMissing } from "../../support/cfnLint.ts";
import { skipWithout } from "../../support/missingTool.ts";

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
