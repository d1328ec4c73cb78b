/**
 * `npm run deploy`'s steps in order: read the plan and the release, the pre-flight (the plan,
 * the settings, the tools: preflight.ts), (dry run: say what would run and what the pre-flight
 * found), refuse on any finding, check the credentials' account, ask before production, read
 * and print what runs now (what a rollback goes back to), build, `sam deploy`, confirm that the
 * stack runs the release (a declined change set is no deploy), then the smoke test against the
 * stage's BaseUrl. Each failure says what to do in one line.
 */
import { BuildError } from "../../build.ts";
import { shellQuote } from "../../process.ts";
import type { LiveBefore } from "../../release.ts";
import {
  commitTag,
  describeLiveBefore,
  readLiveBefore,
  readRelease,
  readStackRelease,
  rollbackAdvice,
  stackTags,
  unreadLiveBefore,
} from "../../release.ts";
import type { StageConfig } from "../../stages.ts";
import { stackOutput } from "../../stages.ts";
import type { DeployIo } from "./io.ts";
import { describeRefusal, keyRefusal } from "./key.ts";
import type { Plan } from "./plan.ts";
import {
  configurationParameter,
  plan,
  planFindings,
  releaseSha256,
  samDeployArgs,
  smokeMode,
  smokeWrites,
} from "./plan.ts";
import {
  concurrencyFinding,
  configFindings,
  githubDeployRole,
  identityFinding,
  toolFindings,
} from "./preflight.ts";

export async function deploy(argv: readonly string[], io: DeployIo): Promise<number> {
  const planned = plan(argv, io);
  if (typeof planned === "number") return planned;
  const { stage, config } = planned;
  if (planned.printRole) return printRole(planned, io);
  const read = await readRelease(io.capture);
  if (!read.ok) {
    io.err(`deploy: ${read.message}`);
    return 1;
  }
  const findings = [
    ...planFindings(planned, read.release, io),
    ...configFindings(config, io.workflow),
    ...(await toolFindings(io.which, io.capture)),
  ];
  const argsFor = (release?: string): string[] =>
    samDeployArgs(stage, {
      yes: planned.yes,
      tags: stackTags(config, read.release),
      samconfig: io.samconfig,
      ...(release !== undefined && { release }),
    });
  const where = `stack ${config.stackName} in ${config.region}`;
  const asks = stage === "production" && !planned.yes;

  if (planned.dryRun) return dryRun(planned, { args: argsFor(), where, asks, findings }, io);
  if (findings.length > 0) return refuse(findings, io);
  const [sam = "sam", aws = "aws"] = ["sam", "aws"].map((name) => io.which(name));
  const identity = await identityFinding(config, aws, io.capture);
  if (identity !== undefined) return refuse([identity], io);
  const concurrency = await concurrencyFinding(config, aws, io.capture);
  if (concurrency && "refuse" in concurrency) return refuse([concurrency.refuse], io);
  if (concurrency) io.err(`deploy: ${concurrency.note}; deploying anyway`);
  // Before the question: a key the stage refuses now would fail the smoke test after it.
  const keyBefore = planned.smoke ? await keyAcceptedBefore(planned, io) : undefined;
  if (typeof keyBefore === "object") return refuse([keyBefore.refuse], io);
  if (asks) {
    const refusal = await confirmProduction(where, io);
    if (refusal !== undefined) return refusal;
  }
  // What runs now, before sam changes it: what a rollback goes back to (release.ts).
  const before = await readLiveBefore(config, aws, io.capture);
  const unread = unreadLiveBefore(before);
  if (unread !== undefined) {
    io.err(
      `deploy: could not read all that runs in ${config.stackName} now (${unread}); deploying ` +
        `anyway: should it go wrong, docs/operating.md "Rolling back" says how to find it.`,
    );
  }
  io.out(`live before this deploy: ${describeLiveBefore(before)}`);

  if (planned.build) {
    io.out(`building dist/ …`);
    try {
      await io.build();
    } catch (error) {
      if (!(error instanceof BuildError)) throw error;
      io.err(`deploy: ${error.message}; nothing was deployed`);
      return 1;
    }
  }
  // The release's hash needs the bundles as built: known only now.
  const release = releaseSha256(config.parameters, io.bundleHashes());
  const args = argsFor(release);
  io.out(`deploying ${where}: sam ${args.map(shellQuote).join(" ")}`);
  const code = await io.run(sam, args);
  if (code !== 0) {
    for (const line of samFailed(code, config, before)) io.err(line);
    return code;
  }
  io.out("");
  const commit = commitTag(read.release);
  const unconfirmed = await notDeployed(config, { commit, release }, aws, io);
  if (unconfirmed !== undefined) {
    io.err(unconfirmed);
    return 1;
  }
  // The line docs/operating.md "Rolling back" sends operators to: only once the stack says so.
  io.out(`Deployed ${where} (commit ${commit}, version ${read.release.version}).`);
  return planned.smoke ? smokeAfterDeploy(planned, { before, keyBefore }, io) : 0;
}

/**
 * Whether the stage takes the smoke test's key now, from the release that runs before the
 * deploy: a refusal to refuse the deploy on (one line: the status and what to do), `accepted`,
 * or undefined when not known (no stack yet, its BaseUrl not read, nothing answered).
 */
async function keyAcceptedBefore(
  plan: Plan,
  io: DeployIo,
): Promise<{ readonly refuse: string } | "accepted" | undefined> {
  const found = await stackOutput(plan.config, "BaseUrl", io.capture);
  if (!found.ok) return undefined;
  const answers = await io.keyAnswers(found.value, smokeKey(io), smokeWrites(plan.stage));
  if ("unreachable" in answers) return undefined;
  const refused = keyRefusal(answers, plan.stage);
  if (refused === undefined) return "accepted";
  return {
    refuse: `PETSTORE_API_KEY is not accepted by ${plan.stage} (${describeRefusal(refused)}): ${refused.advice}`,
  };
}

function smokeKey(io: DeployIo): string {
  return io.env.PETSTORE_API_KEY?.trim() ?? "";
}

/**
 * Whether the stack now runs this release, as CloudFormation says it: undefined when its commit
 * tag and its release hash (configurationParameter) are this deploy's, else the line to print.
 * `sam deploy` exits 0 when the operator answers N to "Deploy this changeset?" (samcli's
 * deploy_context.py returns), with the stack untouched: its exit code alone cannot tell. The
 * hash too, as a dirty tree's commit tag stays the same from one deploy of it to the next.
 */
async function notDeployed(
  config: StageConfig,
  expected: { readonly commit: string; readonly release: string },
  aws: string,
  io: DeployIo,
): Promise<string | undefined> {
  const now = await readStackRelease(config, aws, io.capture);
  if ("failed" in now) {
    return (
      `sam deploy finished, but what ${config.stackName} runs now could not be read ` +
      `(${now.failed}): check its commit tag (aws cloudformation describe-stacks --stack-name ` +
      `${config.stackName} --region ${config.region} --query Stacks[0].Tags) before taking it ` +
      `as deployed, then npm run smoke -- --stage ${config.stage}`
    );
  }
  if ("absent" in now) return `not deployed: the change set was not executed (${now.absent}).`;
  const commit = "value" in now.commit ? now.commit.value : undefined;
  if (commit === expected.commit && now.parameters[configurationParameter] === expected.release) {
    return undefined;
  }
  const runs =
    commit === expected.commit
      ? `another build of commit ${commit}`
      : `commit ${commit ?? "unknown"}`;
  return `not deployed: the change set was not executed (${config.stackName} still runs ${runs}).`;
}

/** The pre-flight's refusal: every finding in one line of its own, exit 2. */
function refuse(findings: readonly string[], io: DeployIo, verb = "refused"): number {
  for (const finding of findings) io.err(`deploy: ${verb}: ${finding}`);
  return 2;
}

/**
 * --print-role: `role=<ARN>` and `region=<region>`, the GitHub deploy role of the stage's
 * account and its region from samconfig.toml, as the workflow's $GITHUB_OUTPUT takes them.
 * Refused (exit 2) while the stage's settings are placeholders.
 */
function printRole(planned: Plan, io: DeployIo): number {
  const findings = configFindings(planned.config, io.workflow);
  if (findings.length > 0) return refuse(findings, io);
  io.out(`role=${githubDeployRole(planned.config)}`);
  io.out(`region=${planned.config.region}`);
  return 0;
}

/**
 * --dry-run: what would run, in order, then what the pre-flight would refuse; nothing runs and
 * no key is needed. Exits as the real deploy's pre-flight would: 0, or 2 with its findings.
 */
function dryRun(
  planned: Plan,
  deployment: { args: readonly string[]; where: string; asks: boolean; findings: string[] },
  io: DeployIo,
): number {
  io.out(`dry run: would deploy ${deployment.where}`);
  io.out(
    `would check that your AWS credentials are for account ${planned.config.parameters.AccountId ?? ""} (aws sts get-caller-identity)`,
  );
  io.out(
    `would check that the account's Lambda concurrency quota is at least AlarmConcurrentExecutions (aws lambda get-account-settings)`,
  );
  if (planned.smoke) {
    const asks = smokeWrites(planned.stage)
      ? "a GET and a POST with an empty body, which writes nothing"
      : "a GET: the smoke test is read-only there";
    io.out(`would check that the stack's BaseUrl, if it has one, accepts the key (${asks})`);
  }
  if (deployment.asks) io.out("would ask for confirmation first (pass --yes to skip)");
  io.out(
    `would read and print what runs now, what a rollback would go back to (aws lambda get-alias ` +
      `of each function's live alias, aws cloudformation describe-stacks for the commit tag)`,
  );
  if (planned.build) io.out("would run: npm run build");
  io.out(`would run: ${["sam", ...deployment.args].map(shellQuote).join(" ")}`);
  io.out(
    `would then check that the stack runs this release: its commit tag and release hash ` +
      `(aws cloudformation describe-stacks)`,
  );
  if (planned.smoke) {
    const key = io.env.PETSTORE_API_KEY?.trim()
      ? "PETSTORE_API_KEY"
      : "PETSTORE_API_KEY, not set now: set it or pass --no-smoke";
    io.out(`would run the smoke test (${smokeMode(planned.stage)}) against BaseUrl (key: ${key})`);
  }
  if (deployment.findings.length === 0) {
    io.out("pre-flight: passed");
    return 0;
  }
  return refuse(deployment.findings, io, "would refuse");
}

/** Production asks first on a terminal: undefined when confirmed, else the exit code. */
async function confirmProduction(where: string, io: DeployIo): Promise<number | undefined> {
  if (!io.interactive) {
    io.err(
      `refusing to deploy production without confirmation: no terminal to ask on. ` +
        `Run it in a terminal, or pass --yes.`,
    );
    return 2;
  }
  const confirmed = await io.confirm(`Deploy ${where} with your current AWS credentials? [y/N] `);
  if (confirmed) return undefined;
  io.err("not deployed.");
  return 1;
}

/**
 * What a failed `sam deploy` leaves. An update CloudFormation rolls back by itself; a failed
 * create leaves a stack that must be deleted first and, in production, the table and the log
 * groups it retains (infra/template.yaml: Retain).
 */
function samFailed(code: number, config: StageConfig, before: LiveBefore): string[] {
  const region = `--region ${config.region}`;
  const runbook = `docs/operating.md "A failed first deploy"`;
  if (!("absent" in before.commit)) {
    return [
      `sam deploy failed (exit ${code}). CloudFormation rolls a failed update back by itself, ` +
        `and CodeDeploy keeps traffic on the old versions when the pre-traffic hook or an alarm ` +
        `fails (an alarm already firing stops any deploy: docs/operating.md "Rolling back"); ` +
        `see the stack's events (the CloudFormation console) for the cause.`,
      ...("failed" in before.commit
        ? [
            `If ${config.stackName} did not exist before (not read: see above), a create failed: ${runbook}.`,
          ]
        : []),
    ];
  }
  return [
    `sam deploy failed (exit ${code}) on the first create of ${config.stackName} ` +
      `(${before.commit.absent}): read its events for the cause (aws cloudformation ` +
      `describe-stack-events --stack-name ${config.stackName} ${region}), then delete what the ` +
      `failed create left before the next try: aws cloudformation delete-stack --stack-name ` +
      `${config.stackName} ${region}`,
    ...(config.stage === "production"
      ? [
          `A failed create keeps production's table (deletion-protected) and log groups (Retain): ` +
            `the next try fails with AlreadyExists naming one until they are deleted (${runbook} ` +
            `has the commands).`,
        ]
      : []),
  ];
}

async function smokeAfterDeploy(
  plan: Plan,
  known: { readonly before: LiveBefore; readonly keyBefore: "accepted" | undefined },
  io: DeployIo,
): Promise<number> {
  const found = await stackOutput(plan.config, "BaseUrl", io.capture);
  if (!found.ok) {
    io.err(`${found.message}\nThen: npm run smoke -- --stage ${plan.stage}`);
    return 1;
  }
  io.out(`smoke test of ${found.value} (${smokeMode(plan.stage)}):`);
  const writes = smokeWrites(plan.stage);
  const outcome = await io.smoke(found.value, smokeKey(io), writes);
  if (outcome === "passed") return 0;
  if (outcome !== "failed") {
    // No answer at all says more about the network here than about the release.
    io.err(
      `nothing answers at ${found.value} (${outcome.unreachable}) right after the deploy: check ` +
        `your network (VPN, proxy), then npm run smoke -- --stage ${plan.stage} before deciding on a rollback.`,
    );
    return 1;
  }
  const refused = keyRefusal(await io.keyAnswers(found.value, smokeKey(io), writes), plan.stage);
  // A key the release before took and this one refuses (not for its rate limit, which the smoke
  // test itself may have used up) is the release's doing: a rollback is the answer then.
  const releaseRefuses = known.keyBefore === "accepted" && refused?.status !== 429;
  if (refused !== undefined && !releaseRefuses) {
    io.err(
      `the smoke test failed on its key, not on the release: ${plan.stage} does not accept ` +
        `PETSTORE_API_KEY (${describeRefusal(refused)}): ${refused.advice}; then npm run smoke -- --stage ${plan.stage}`,
    );
    return 1;
  }
  io.err(`the smoke test failed against the new release of ${plan.stage}.`);
  if (refused !== undefined) {
    io.err(
      `The new release refuses PETSTORE_API_KEY (${describeRefusal(refused)}), which the release before accepted.`,
    );
  }
  for (const line of rollbackAdvice(plan.config, known.before)) io.err(line);
  return 1;
}
