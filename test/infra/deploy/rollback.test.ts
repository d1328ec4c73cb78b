/**
 * What a rollback goes back to: before `sam deploy` runs, deploy() reads what runs in the stage
 * (each function's `live` alias, the stack's commit tag) and prints it; a failed smoke test's
 * advice names exactly those versions and that commit. A first deploy has nothing to go back to,
 * and its failure is a failed create's (a stack to delete, production's retained table). A read that fails otherwise never stops the deploy: the advice then says how to find
 * the versions. The stand-in `aws` answers as the AWS CLI v2 does; nothing reaches AWS.
 */
import { describe, expect, it } from "vitest";
import { deploy } from "../../../scripts/deploy.ts";
import type { LiveNow } from "../../support/deployStandIns.ts";
import {
  fakeDeployIo,
  operatorAccounts,
  previousRelease,
  servedNames,
} from "../../support/deployStandIns.ts";

const failedSmoke = { smoke: () => Promise.resolve("failed" as const) };
const production = (live: LiveNow, overrides: Parameters<typeof fakeDeployIo>[0] = failedSmoke) =>
  fakeDeployIo(overrides, false, operatorAccounts.production, live);
const errors = (log: readonly string[]): string[] =>
  log.filter((line) => line.startsWith("err: ")).map((line) => line.slice(5));
const region = "--region eu-west-1";
const previous = previousRelease.commit;
const alias = (name: string, version: string): string =>
  `    aws lambda update-alias ${region} --function-name petstore-production-${name} --name live --function-version ${version}`;
const { versions } = previousRelease;
const versionOf = (name: string): string => versions[name] ?? "none";
/** What the deploy prints of what runs: each function behind a route and its version. */
const liveLine = (version: (name: string) => string = versionOf): string =>
  servedNames.map((name) => `${name} ${version(name)}`).join(", ");
const accessDenied =
  "An error occurred (AccessDeniedException) when calling the GetAlias operation: User: arn:aws:sts::470004445556:assumed-role/deployer/ops is not authorized to perform: lambda:GetAlias";

describe("what runs before a deploy is read before sam runs, and printed", () => {
  it("reads each function's live alias and the stack's commit tag, before sam deploy", async () => {
    const fake = production(previousRelease, {});
    expect(await deploy(["production", "--yes"], fake)).toBe(0);
    const reads = fake.captures.filter(
      ({ args }) =>
        /^(cloudformation|lambda)$/.test(args[1] ?? "") && args[2] !== "get-account-settings",
    );
    const query = (args: string[]) => args.slice(1, 5).join(" ");
    const before = reads.filter(({ runsBefore }) => runsBefore === 0);
    expect(before.map(({ args }) => query(args))).toEqual([
      "cloudformation describe-stacks --stack-name petstore-production",
      ...servedNames.map((name) => `lambda get-alias --function-name petstore-production-${name}`),
    ]);
    // After sam: the stack only, to confirm it runs the release (inProcess.test.ts).
    expect(reads.slice(before.length).map(({ args }) => query(args))).toEqual([
      "cloudformation describe-stacks --stack-name petstore-production",
    ]);
    expect(fake.runs).toHaveLength(1);
    const printed = `out: live before this deploy: ${liveLine()}; commit ${previous}`;
    expect(fake.log).toContain(printed);
    expect(fake.log.indexOf(printed)).toBeLessThan(fake.log.indexOf("run"));
  });

  it("a dry run says it would read them, and reads nothing", async () => {
    const fake = production(previousRelease, { env: {} });
    expect(await deploy(["production", "--dry-run", "--yes"], fake)).toBe(0);
    expect(fake.log.join("\n")).toMatch(/would read and print what runs now, .*get-alias/);
    expect(fake.captures.filter(({ args }) => args[2] === "get-alias")).toEqual([]);
    expect(fake.captures.filter(({ args }) => args[1] === "cloudformation")).toEqual([]);
  });
});

describe("a failed smoke test's advice goes back to exactly what ran before", () => {
  it("names each function's version before and the commit before", async () => {
    const fake = production(previousRelease);
    expect(await deploy(["production", "--yes"], fake)).toBe(1);
    expect(errors(fake.log)).toEqual([
      "the smoke test failed against the new release of production.",
      `To roll back petstore-production to what ran before this deploy (docs/operating.md "Rolling back"):`,
      "  quickest, the code only: point each alias back at the version it had,",
      ...servedNames.map((name) => alias(name, versionOf(name))),
      "  complete, code and template: deploy that release again,",
      `    git checkout ${previous} && npm ci && npm run deploy -- production`,
    ]);
  });

  it("a release deployed from a dirty tree: its commit without -dirty, and a note saying so", async () => {
    const fake = production({ ...previousRelease, commit: `${previous}-dirty` });
    expect(await deploy(["production", "--yes"], fake)).toBe(1);
    expect(fake.log).toContain(
      `out: live before this deploy: ${liveLine()}; commit ${previous}-dirty`,
    );
    const advice = errors(fake.log);
    expect(advice).toContain(
      `    git checkout ${previous} && npm ci && npm run deploy -- production`,
    );
    expect(advice.at(-1)).toMatch(/uncommitted changes: fedcba9\w+ is its commit without them/);
  });

  it("a function that had no alias before is named as new, the others go back", async () => {
    const newcomer = servedNames.at(-1) ?? "";
    const before = Object.fromEntries(
      servedNames.filter((name) => name !== newcomer).map((name) => [name, versionOf(name)]),
    );
    const fake = production({ ...previousRelease, versions: before });
    expect(await deploy(["production", "--yes"], fake)).toBe(1);
    const version = (name: string): string => before[name] ?? "none";
    expect(fake.log).toContain(
      `out: live before this deploy: ${liveLine(version)}; commit ${previous}`,
    );
    const advice = errors(fake.log);
    expect(advice.slice(3, 3 + servedNames.length)).toEqual(
      servedNames.map((name) =>
        name === newcomer
          ? `    (petstore-production-${name} had no live alias before: it is new, only the complete rollback removes it)`
          : alias(name, version(name)),
      ),
    );
  });
});

describe("a first deploy: nothing ran before", () => {
  it("prints nothing live, reads no alias, and the advice says there is nothing to roll back to", async () => {
    const fake = production("no stack");
    expect(await deploy(["production", "--yes"], fake)).toBe(1);
    expect(fake.log).toContain(
      "out: live before this deploy: nothing (no stack petstore-production yet)",
    );
    expect(fake.captures.filter(({ args }) => args[2] === "get-alias")).toEqual([]);
    const advice = errors(fake.log);
    expect(advice.slice(1)).toEqual([
      `Nothing ran in petstore-production before this deploy (no stack petstore-production yet): there is nothing to roll back to. Fix the release and deploy again (docs/operating.md "Rolling back").`,
    ]);
  });

  it("sam's failure is a failed create's: delete the stack, and production's retained table and log groups", async () => {
    const fake = production("no stack", { run: () => Promise.resolve(1) });
    expect(await deploy(["production", "--yes"], fake)).toBe(1);
    const said = errors(fake.log);
    expect(said).toHaveLength(2);
    expect(said[0]).toMatch(
      /^sam deploy failed \(exit 1\) on the first create of petstore-production \(no stack petstore-production yet\)/,
    );
    expect(said[0]).toContain(
      `aws cloudformation describe-stack-events --stack-name petstore-production ${region}`,
    );
    expect(said[0]).toMatch(
      /before the next try: aws cloudformation delete-stack --stack-name petstore-production --region eu-west-1$/,
    );
    expect(said[1]).toMatch(
      /production's table \(deletion-protected\) and log groups \(Retain\).*AlreadyExists .*docs\/operating\.md "A failed first deploy"/,
    );
    expect(said.join("\n")).not.toContain("rolls a failed update back");
  });

  it("staging's failed create deletes everything with the stack: one line", async () => {
    const fake = fakeDeployIo(
      { run: () => Promise.resolve(1) },
      false,
      operatorAccounts.staging,
      "no stack",
    );
    expect(await deploy(["staging"], fake)).toBe(1);
    expect(errors(fake.log)).toEqual([
      expect.stringMatching(
        /^sam deploy failed \(exit 1\) on the first create of petstore-staging .*delete-stack --stack-name petstore-staging --region eu-west-1$/,
      ),
    ]);
  });

  it("a stack whose create failed before (ROLLBACK_COMPLETE) counts as nothing live", async () => {
    const failedCreate = { ...previousRelease, status: "ROLLBACK_COMPLETE" };
    const fake = production(failedCreate, { run: () => Promise.resolve(1) });
    expect(await deploy(["production", "--yes"], fake)).toBe(1);
    expect(fake.log).toContain(
      "out: live before this deploy: nothing (petstore-production is in ROLLBACK_COMPLETE)",
    );
    expect(errors(fake.log)[0]).toMatch(/first create of petstore-production .*delete-stack/);
  });
});

describe("a read that fails otherwise never stops the deploy", () => {
  it("deploys anyway, says so in one line, and the advice says how to find the versions", async () => {
    const fake = production({ error: accessDenied });
    expect(await deploy(["production", "--yes"], fake)).toBe(1);
    expect(fake.runs).toHaveLength(1);
    expect(fake.log).toContain(
      `out: live before this deploy: ${liveLine(() => "unknown")}; commit unknown`,
    );
    const said = errors(fake.log);
    expect(said[0]).toMatch(
      /^deploy: could not read all that runs in petstore-production now \(An error occurred \(AccessDeniedException\).*lambda:GetAlias\); deploying anyway/,
    );
    expect(said).toContain(alias("listCategories", "<its version before>"));
    expect(said.join("\n")).toMatch(
      /Lambda keeps no alias history: .*CurrentVersion in the AppSpec of the CodeDeploy deployment/,
    );
    expect(said).toContain(
      "    git checkout <the commit of the release before> && npm ci && npm run deploy -- production",
    );
    expect(said.join("\n")).not.toMatch(/git checkout \w{40}/);
  });

  it("sam's failure then says what a failed update does, and where a failed create is", async () => {
    const fake = production({ error: accessDenied }, { run: () => Promise.resolve(3) });
    expect(await deploy(["production", "--yes"], fake)).toBe(3);
    expect(errors(fake.log).slice(1)).toEqual([
      expect.stringMatching(
        /^sam deploy failed \(exit 3\)\. CloudFormation rolls a failed update back/,
      ),
      `If petstore-production did not exist before (not read: see above), a create failed: docs/operating.md "A failed first deploy".`,
    ]);
  });
});
