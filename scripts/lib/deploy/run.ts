/**
 * `npm run deploy`'s steps in order: read the plan and the release, refuse what must not run,
 * (dry run: say what would run), find the SAM CLI, ask before production, build, `sam deploy`,
 * then the smoke test against the stage's BaseUrl. Each failure says what to do in one message.
 */
import { shellQuote } from "../../process.ts";
import { readRelease, rollbackAdvice, stackTags } from "../../release.ts";
import { stackOutput } from "../../stages.ts";
import type { DeployIo } from "./io.ts";
import type { Plan } from "./plan.ts";
import { plan, preflight, samDeployArgs, smokeMode } from "./plan.ts";

const samInstall =
  "https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/install-sam-cli.html";

export async function deploy(argv: readonly string[], io: DeployIo): Promise<number> {
  const planned = plan(argv, io);
  if (typeof planned === "number") return planned;
  const { stage, config } = planned;
  const read = await readRelease(io.capture);
  if (!read.ok) {
    io.err(read.message);
    return 1;
  }
  const refused = preflight(planned, read.release, io);
  if (refused !== undefined) return refused;
  const args = samDeployArgs(stage, { yes: planned.yes, tags: stackTags(config, read.release) });
  const where = `stack ${config.stackName} in ${config.region}`;
  const asks = stage === "production" && !planned.yes;

  if (planned.dryRun) return dryRun(planned, { args, where, asks }, io);
  const sam = samCli(io);
  if (sam === undefined) return 1;
  if (asks) {
    const refusal = await confirmProduction(where, io);
    if (refusal !== undefined) return refusal;
  }

  if (planned.build) {
    io.out(`building dist/ …`);
    await io.build();
  }
  io.out(`deploying ${where}: sam ${args.map(shellQuote).join(" ")}`);
  const code = await io.run(sam, args);
  if (code !== 0) {
    io.err(
      `sam deploy failed (exit ${code}). CloudFormation rolls a failed update back by itself, ` +
        `and CodeDeploy keeps traffic on the old versions when the pre-traffic hook or an alarm ` +
        `fails; see the stack's events (the CloudFormation console) for the cause.`,
    );
    return code;
  }
  io.out("");
  io.out(`Deployed ${where} (commit ${read.release.commit}, version ${read.release.version}).`);
  return planned.smoke ? smokeAfterDeploy(planned, io) : 0;
}

/** --dry-run: what would run, in order; nothing runs. */
function dryRun(
  planned: Plan,
  deployment: { args: readonly string[]; where: string; asks: boolean },
  io: DeployIo,
): number {
  io.out(`dry run: would deploy ${deployment.where}`);
  if (deployment.asks) io.out("would ask for confirmation first (pass --yes to skip)");
  if (planned.build) io.out("would run: npm run build");
  io.out(`would run: ${["sam", ...deployment.args].map(shellQuote).join(" ")}`);
  if (planned.smoke)
    io.out(`would run the smoke test (${smokeMode(planned.stage)}) against BaseUrl`);
  return 0;
}

/** The SAM CLI's path; undefined, once said how to install it, when it is not on PATH. */
function samCli(io: DeployIo): string | undefined {
  const sam = io.which("sam");
  if (sam === undefined) {
    io.err(
      `the AWS SAM CLI (\`sam\`) is not on PATH. It is a prerequisite of deploying: ` +
        `install it (${samInstall}), check \`sam --version\`, then run this again.`,
    );
  }
  return sam;
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

async function smokeAfterDeploy(plan: Plan, io: DeployIo): Promise<number> {
  const found = await stackOutput(plan.config, "BaseUrl", io.capture);
  if (!found.ok) {
    io.err(`${found.message}\nThen: npm run smoke -- --stage ${plan.stage}`);
    return 1;
  }
  io.out(`smoke test of ${found.value} (${smokeMode(plan.stage)}):`);
  const apiKey = io.env.PETSTORE_API_KEY?.trim() ?? "";
  if (await io.smoke(found.value, apiKey, plan.stage !== "production")) return 0;
  io.err(`the smoke test failed against the new release of ${plan.stage}.`);
  for (const line of rollbackAdvice(plan.config)) io.err(line);
  return 1;
}
