/**
 * `npm run deploy -- <staging|production> [--yes] [--dry-run]`: builds dist/ (the bundles the
 * template's CodeUri names) and deploys that stage's stack with the AWS SAM CLI, using the
 * operator's AWS credentials and the stage's settings from infra/samconfig.toml.
 *
 *   --yes      production only: skip both confirmations (this one and SAM's change set review)
 *   --dry-run  print what would run, run nothing (no build, no AWS call, no SAM CLI needed)
 *
 * Production asks first, on a terminal; without a terminal it needs --yes.
 */
import { spawn } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import { templatePath } from "../local/template.ts";
import { buildFunctions } from "./build.ts";
import { samconfigPath, stageConfig, stages } from "./stages.ts";

const usage = `usage: npm run deploy -- <${stages.join("|")}> [--yes] [--dry-run]`;
const samInstall =
  "https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/install-sam-cli.html";

export interface DeployIo {
  /** Builds dist/ (scripts/build.ts). */
  readonly build: () => Promise<unknown>;
  /** Runs a command with the terminal attached; resolves to its exit code. */
  readonly run: (command: string, args: readonly string[]) => Promise<number>;
  /** The absolute path of an executable on PATH, or undefined. */
  readonly which: (name: string) => string | undefined;
  /** Asks a yes/no question on the terminal. */
  readonly confirm: (question: string) => Promise<boolean>;
  readonly interactive: boolean;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

/** The `sam deploy` arguments for a stage. Paths are absolute: see infra/samconfig.toml. */
export function samDeployArgs(stage: string, options: { yes: boolean }): string[] {
  return [
    "deploy",
    "--config-file",
    samconfigPath,
    "--config-env",
    stage,
    "--template-file",
    templatePath,
    ...(options.yes ? ["--no-confirm-changeset"] : []),
  ];
}

/** The commands that print a deployed stage's BaseUrl output. */
export function baseUrlCommands(stackName: string, region: string): string[] {
  return [
    `sam list stack-outputs --stack-name ${stackName} --region ${region}`,
    `aws cloudformation describe-stacks --stack-name ${stackName} --region ${region} ` +
      `--query "Stacks[0].Outputs[?OutputKey=='BaseUrl'].OutputValue" --output text`,
  ];
}

export async function deploy(argv: readonly string[], io: DeployIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        yes: { type: "boolean", short: "y", default: false },
        "dry-run": { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(usage);
    return 0;
  }
  const [stage, ...extra] = positionals;
  if (stage === undefined || extra.length > 0) {
    io.err(usage);
    return 2;
  }
  if (!stages.includes(stage)) {
    io.err(`unknown stage "${stage}": the stages are ${stages.join(" and ")}.\n${usage}`);
    return 2;
  }
  const config = stageConfig(stage);
  const args = samDeployArgs(stage, { yes: values.yes });
  const where = `stack ${config.stackName} in ${config.region}`;
  const asks = stage === "production" && !values.yes;

  if (values["dry-run"]) {
    io.out(`dry run: would deploy ${where}`);
    if (asks) io.out("would ask for confirmation first (pass --yes to skip)");
    io.out("would run: npm run build");
    io.out(`would run: ${["sam", ...args].map(shellQuote).join(" ")}`);
    return 0;
  }

  const sam = io.which("sam");
  if (sam === undefined) {
    io.err(
      `the AWS SAM CLI (\`sam\`) is not on PATH. It is a prerequisite of deploying: ` +
        `install it (${samInstall}), check \`sam --version\`, then run this again.`,
    );
    return 1;
  }

  if (asks) {
    if (!io.interactive) {
      io.err(
        `refusing to deploy production without confirmation: no terminal to ask on. ` +
          `Run it in a terminal, or pass --yes.`,
      );
      return 2;
    }
    const confirmed = await io.confirm(`Deploy ${where} with your current AWS credentials? [y/N] `);
    if (!confirmed) {
      io.err("not deployed.");
      return 1;
    }
  }

  io.out(`building dist/ …`);
  await io.build();
  io.out(`deploying ${where}: sam ${args.map(shellQuote).join(" ")}`);
  const code = await io.run(sam, args);
  if (code !== 0) {
    io.err(
      `sam deploy failed (exit ${code}). CloudFormation rolls a failed update back by itself; ` +
        `see the stack's events (sam logs / the CloudFormation console) for the cause.`,
    );
    return code;
  }
  io.out("");
  io.out(`Deployed ${where}. Its base address is the stack output BaseUrl:`);
  for (const command of baseUrlCommands(config.stackName, config.region)) io.out(`  ${command}`);
  io.out(`Then check it: npm run smoke -- <BaseUrl> <apiKey>`);
  io.out(`(a key for this stage: npm run keys -- create --stage ${stage} --label <who>)`);
  return 0;
}

export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Like `command -v`: the first executable `name` on PATH (PATHEXT on Windows). */
export function which(
  name: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string | undefined {
  const extensions =
    process.platform === "win32" ? (env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";") : [""];
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    for (const extension of extensions) {
      const candidate = join(dir, name + extension);
      try {
        accessSync(candidate, constants.X_OK);
        if (statSync(candidate).isFile()) return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

const terminalIo: DeployIo = {
  build: buildFunctions,
  run: (command, args) =>
    new Promise((resolveCode, reject) => {
      const child = spawn(command, args, {
        stdio: "inherit",
        // sam.cmd on Windows is a batch file, which only a shell can start.
        shell: process.platform === "win32",
      });
      child.once("error", reject);
      child.once("exit", (code, signal) => {
        resolveCode(code ?? (signal ? 128 : 1));
      });
    }),
  which: (name) => which(name),
  confirm: async (question) => {
    const readline = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return /^y(es)?$/i.test((await readline.question(question)).trim());
    } finally {
      readline.close();
    }
  },
  interactive: process.stdin.isTTY,
  out: (line) => {
    process.stdout.write(`${line}\n`);
  },
  err: (line) => {
    process.stderr.write(`${line}\n`);
  },
};

if (import.meta.main) {
  process.exitCode = await deploy(process.argv.slice(2), terminalIo);
}
