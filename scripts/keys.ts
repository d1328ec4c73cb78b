/**
 * `npm run keys -- <create|list|revoke> [options]`: the operator's API key command, for the
 * local store and for a deployed stage alike. Keys are shown once, on create; the table keeps
 * only their SHA-256. Every mistake ends in one line saying what to do, exit 2 (usage) or 1.
 *
 *   npm run keys -- create --label "partner-a" [--expires 2027-06-30] [--rate 50/s --burst 100] [--stage staging]
 *   npm run keys -- update key_0123abcd4567 --rate 600/min --burst 50 [--stage production]
 *   npm run keys -- list [--stage production]
 *   npm run keys -- revoke key_0123abcd4567 [--stage production]
 *
 * --stage local (default) uses the store `npm start` would: DYNAMODB_ENDPOINT when set, else the
 * data folder's (DATA_DIR, default .data/dynamodb); every answer names the store it used;
 * staging and production use table petstore-<stage> with the operator's AWS credentials (the
 * usual chain: AWS_PROFILE, SSO, environment) in the stage's region from infra/samconfig.toml
 * (always that region, whatever AWS_REGION says).
 */
import { describeRateLimit, parseRateLimit } from "../lib/rateLimit/policy.ts";
import type { ApiKeyRecord, KeyRateLimit } from "../lib/repositories/apiKeys.ts";
import type { Target } from "./keyTargets.ts";
import {
  explainStageFailure,
  KeysTargetError,
  localTarget,
  stageBudgetMs,
  stageTarget,
} from "./keyTargets.ts";
import { commandLine, parseCommandLine, UsageError } from "./lib/args.ts";
import { stages } from "./stages.ts";

const usage = `usage: npm run keys -- <create|list|update|revoke> [--stage local|${stages.join("|")}]
  create [--label NAME] [--expires ISO-DATE] [--rate N/s|N/min --burst N]
                                               issue a key (printed once); without --rate it
                                               gets the stage's default rate limit
  list                                         list keys (never the keys themselves)
  update <keyId> --rate N/s|N/min --burst N    set a key's rate limit (everywhere within 60 s)
  revoke <keyId>                               revoke a key (refused within 60 s)
  --stage local (default): the store npm start uses, DYNAMODB_ENDPOINT when set, else DATA_DIR
  (.data/dynamodb); a stage: table petstore-<stage> with your AWS credentials (AWS_PROFILE)`;
const commands = ["create", "list", "update", "revoke"];
const takesKeyId = new Set(["update", "revoke"]);

interface Request {
  readonly command: string;
  readonly keyId: string | undefined;
  readonly stage: string;
  readonly label: string;
  readonly expiresAt: Date | undefined;
  readonly rateLimit: KeyRateLimit | undefined;
}

function parse(argv: string[]): Request | "help" {
  const { values, positionals } = parseCommandLine({
    args: argv,
    allowPositionals: true,
    options: {
      stage: { type: "string", default: "local" },
      label: { type: "string", default: "operator-issued" },
      expires: { type: "string" },
      rate: { type: "string" },
      burst: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return "help";
  const [command, keyId, ...extra] = positionals;
  if (!command) throw new UsageError("no command given: use create, list, update or revoke");
  if (!commands.includes(command))
    throw new UsageError(`unknown command "${command}": use create, list, update or revoke`);
  if (extra.length > 0 || (keyId !== undefined && !takesKeyId.has(command)))
    throw new UsageError(`unexpected argument "${extra[0] ?? keyId ?? ""}"`);
  if (takesKeyId.has(command) && !keyId)
    throw new UsageError(`${command} needs a keyId (see: npm run keys -- list)`);
  const rateLimit = rateLimitOf(values.rate, values.burst);
  if (command === "update" && !rateLimit)
    throw new UsageError("update needs --rate N/s|N/min and --burst N");
  if (rateLimit && command !== "create" && command !== "update")
    throw new UsageError("--rate and --burst go with create or update");
  const stage = values.stage;
  if (stage !== "local" && !stages.includes(stage))
    throw new UsageError(`unknown stage "${stage}": use local, ${stages.join(" or ")}`);
  return {
    ...{ command, keyId, stage, label: values.label },
    ...{ expiresAt: expiry(values.expires), rateLimit },
  };
}

/** Both or neither: a rate without a burst (or the reverse) is a mistake, not a half limit. */
function rateLimitOf(
  rate: string | undefined,
  burst: string | undefined,
): KeyRateLimit | undefined {
  if (rate === undefined && burst === undefined) return undefined;
  if (rate === undefined || burst === undefined)
    throw new UsageError("--rate and --burst go together, e.g. --rate 50/s --burst 100");
  const limit = parseRateLimit(rate, burst);
  if (typeof limit === "string") throw new UsageError(limit);
  return { rate: limit.rate, burst: limit.burst };
}

function limitOf(record: ApiKeyRecord): string {
  const limit =
    record.rate !== undefined && record.burst !== undefined
      ? parseRateLimit(record.rate, record.burst)
      : undefined;
  return limit === undefined || typeof limit === "string"
    ? "rate limit: stage default"
    : `rate limit: ${describeRateLimit(limit)}`;
}

function expiry(text: string | undefined): Date | undefined {
  if (text === undefined) return undefined;
  const date = new Date(text);
  if (Number.isNaN(date.getTime()))
    throw new UsageError(`--expires must be an ISO 8601 date, got "${text}"`);
  if (date.getTime() <= Date.now())
    throw new UsageError(`--expires ${text} is in the past: give a future date, e.g. 2027-06-30`);
  return date;
}

function show(record: ApiKeyRecord): string {
  const state = record.revokedAt
    ? `revoked ${record.revokedAt}`
    : record.expiresAt && Date.parse(record.expiresAt) <= Date.now()
      ? `expired ${record.expiresAt}`
      : "active";
  return [
    record.keyId,
    record.label,
    `created ${record.createdAt}`,
    record.expiresAt ? `expires ${record.expiresAt}` : "no expiry",
    limitOf(record),
    state,
  ].join("  ");
}

async function run(request: Request, target: Target): Promise<number> {
  const deadline = Date.now() + (request.stage === "local" ? 30_000 : stageBudgetMs);
  const { keys } = target;
  switch (request.command) {
    case "create": {
      const { apiKey, record } = await keys.issue(
        request.label,
        request.expiresAt,
        deadline,
        undefined,
        request.rateLimit,
      );
      console.log(show(record));
      console.log(`issued in ${target.where}`);
      console.log(`\nAPI key (shown once, store it now):\n${apiKey}`);
      return 0;
    }
    case "list": {
      const records = await keys.list(deadline);
      console.log(
        records.length === 0
          ? `no keys in ${target.where}`
          : [`keys in ${target.where}:`, ...records.map(show)].join("\n"),
      );
      return 0;
    }
    case "update": {
      const keyId = request.keyId ?? "";
      const limit = request.rateLimit;
      if (!limit || !(await keys.setRateLimit(keyId, limit, deadline))) {
        console.log(`no key ${keyId} in ${request.stage} (see: npm run keys -- list)`);
        return 1;
      }
      console.log(
        `${keyId}: rate limit ${limit.rate}, burst ${limit.burst}; everywhere within 60 s`,
      );
      return 0;
    }
    default: {
      const keyId = request.keyId ?? "";
      const record = (await keys.list(deadline)).find((r) => r.keyId === keyId);
      if (!record) {
        console.log(`no key ${keyId} in ${target.where} (see: npm run keys -- list)`);
        return 1;
      }
      if (record.revokedAt) {
        console.log(`${keyId} was already revoked on ${record.revokedAt}`);
        return 0;
      }
      await keys.revoke(keyId, deadline);
      console.log(`revoked ${keyId} in ${target.where}; refused everywhere within 60 s`);
      return 0;
    }
  }
}

async function main(argv: string[]): Promise<number> {
  const request = commandLine(() => parse(argv), {
    help: () => {
      console.log(usage);
    },
    mistake: (message) => {
      console.error(`keys: ${message} (npm run keys -- --help)`);
    },
  });
  if (typeof request === "number") return request;
  const { stage } = request;
  try {
    const target =
      stage === "local" ? await localTarget(process.env) : await stageTarget(stage, process.env);
    try {
      return await run(request, target);
    } finally {
      await target.close();
    }
  } catch (error) {
    const explained =
      error instanceof KeysTargetError
        ? error.message
        : stage === "local"
          ? undefined
          : explainStageFailure(error, stage);
    const why = error instanceof Error ? error.message.split("\n", 1)[0] : String(error);
    console.error(`keys: ${explained ?? `the ${stage} store failed: ${why}`}`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
