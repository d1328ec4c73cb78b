/**
 * `npm run keys -- <create|list|revoke|update|rotate|history> [options]`: the operator's API key
 * command, for the local store and for a deployed stage alike. Keys are shown once, on create
 * and rotate; the table keeps only their SHA-256. Every change is written together with its
 * event in the stage's table, naming who made it and when (`history`; lib/repositories/keyEvents.ts
 * says how). When who you are cannot be read, every change but a revoke is refused. Every mistake ends in one line saying what to do, exit
 * 2 (usage) or 1.
 *
 *   npm run keys -- create --label "partner-a" [--scope categories:read] [--expires 2027-06-30] [--rate 50/s --burst 100] [--stage staging]
 *   npm run keys -- update key_0123abcd4567 --rate 600/min --burst 50 [--stage production]
 *   npm run keys -- list [--stage production]
 *   npm run keys -- update key_0123abcd4567 --scope categories:read,categories:write
 *   npm run keys -- rotate key_0123abcd4567 [--grace 24h]
 *   npm run keys -- revoke key_0123abcd4567 [--stage production]
 *   pass show leaked-key | npm run keys -- revoke - [--stage production]   (found by its hash)
 *   npm run keys -- history [key_0123abcd4567]
 *
 * --stage local (default) uses the store `npm start` would: DYNAMODB_ENDPOINT when set, else the
 * data folder's (DATA_DIR, default .data/dynamodb); every answer names the store it used;
 * staging and production use table petstore-<stage> with the operator's AWS credentials (the
 * usual chain: AWS_PROFILE, SSO, environment) in the stage's region from infra/samconfig.toml
 * (always that region, whatever AWS_REGION says).
 */
import type { ApiKeyRecord, KeyRefused } from "../lib/repositories/apiKeys.ts";
import { hashApiKey, maxGraceMs } from "../lib/repositories/apiKeys.ts";
import { keyPattern } from "../lib/keyFormat.ts";
import type { KeyEvent } from "../lib/repositories/keyEvents.ts";
import type { Scope } from "../lib/scopes.ts";
import { allScopes, isScope, scopeText } from "../lib/scopes.ts";
import { describeRateLimit, parseRateLimit } from "../lib/rateLimit/policy.ts";
import type { KeyRateLimit } from "../lib/repositories/apiKeys.ts";
import type { Target } from "./keyTargets.ts";
import {
  explainStageFailure,
  KeysTargetError,
  localTarget,
  stageBudgetMs,
  stageTarget,
} from "./keyTargets.ts";
import { apiKeyFromStdin } from "./lib/apiKey.ts";
import { answersOf, commandLine, parseCommandLine, UsageError } from "./lib/args.ts";
import { stages } from "./stages.ts";

const usage = `usage: npm run keys -- <command> [--stage local|${stages.join("|")}]
  create [--label NAME] [--scope SCOPE]… [--expires ISO-DATE] [--rate N/s|N/min --burst N]
                                  issue a key (printed once); both scopes unless --scope names
                                  fewer; the stage's default rate limit unless --rate is given
  list                            list keys (never the keys themselves)
  update <keyId> [--scope SCOPE…] [--rate N/s|N/min --burst N]
                                  change a key's scopes or rate limit in place (within 60 s)
  rotate <keyId> [--grace 24h]    a new key like the old one; the old one expires after the grace
                                  (s, m, h or d; default 24h, at most 7d)
  revoke <keyId>                  revoke a key (refused within 60 s)
  revoke -                        revoke the key given on standard input (a leaked key you hold)
  history [keyId]                 who created, rotated, updated or revoked keys, and when
  scopes: ${allScopes.join(", ")} (repeat --scope, or separate with commas)
  --stage local (default): the store npm start uses, DYNAMODB_ENDPOINT when set, else DATA_DIR
  (.data/dynamodb); a stage: table petstore-<stage> with your AWS credentials (AWS_PROFILE)`;
const commands = ["create", "list", "revoke", "update", "rotate", "history"];
const commandList = "create, list, update, rotate, revoke or history";
/** Commands that take a keyId; `history` may. */
const needsKeyId = new Set(["revoke", "update", "rotate"]);
const defaultGraceMs = 24 * 3600 * 1000;

interface Request {
  readonly command: string;
  readonly keyId: string | undefined;
  readonly stage: string;
  readonly label: string;
  readonly expiresAt: Date | undefined;
  readonly scopes: readonly Scope[] | undefined;
  readonly graceMs: number;
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
      scope: { type: "string", multiple: true },
      grace: { type: "string" },
      rate: { type: "string" },
      burst: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return "help";
  // An API key among the arguments is a secret in argv (and the shell's history): never repeated.
  if (positionals.some((arg) => keyPattern.test(arg)))
    throw new UsageError(
      "an argument is an API key, not a keyId (key_…): to revoke a key you hold, pipe it to " +
        "npm run keys -- revoke - (it reads the key on standard input); clear it from your shell history",
    );
  const [command, keyId, ...extra] = positionals;
  if (!command) throw new UsageError(`no command given: use ${commandList}`);
  if (!commands.includes(command))
    throw new UsageError(`unknown command "${command}": use ${commandList}`);
  if (
    extra.length > 0 ||
    (keyId !== undefined && !needsKeyId.has(command) && command !== "history")
  )
    throw new UsageError(`unexpected argument "${extra[0] ?? keyId ?? ""}"`);
  if (needsKeyId.has(command) && !keyId)
    throw new UsageError(`${command} needs a keyId (see: npm run keys -- list)`);
  if (keyId === "-" && command !== "revoke")
    throw new UsageError("- (the key on standard input) goes with revoke only");
  const scopes = values.scope && scopesOf(values.scope);
  if (scopes && command !== "create" && command !== "update")
    throw new UsageError("--scope goes with create or update");
  const rateLimit = rateLimitOf(values.rate, values.burst);
  if (command === "update" && !scopes && !rateLimit)
    throw new UsageError(
      "update needs what to change: --scope SCOPE (repeat for more), or --rate N/s|N/min and --burst N",
    );
  if (rateLimit && command !== "create" && command !== "update")
    throw new UsageError("--rate and --burst go with create or update");
  if (values.grace !== undefined && command !== "rotate")
    throw new UsageError("--grace goes with rotate");
  const stage = values.stage;
  if (stage !== "local" && !stages.includes(stage))
    throw new UsageError(`unknown stage "${stage}": use local, ${stages.join(" or ")}`);
  const { label } = values;
  if (!/^.{1,100}$/su.test(label) || unprintable.test(label) || label.trim() === "")
    throw new UsageError(
      "--label must be 1 to 100 characters, not only spaces, no control or format characters",
    );
  return {
    command,
    keyId,
    stage,
    label: values.label,
    expiresAt: expiry(values.expires),
    scopes,
    rateLimit,
    graceMs: values.grace === undefined ? defaultGraceMs : grace(values.grace),
  };
}

/** `--scope a --scope b` or `--scope a,b`: known scopes only, at least one. */
function scopesOf(given: readonly string[]): Scope[] {
  const names = given.flatMap((value) => value.split(",")).map((name) => name.trim());
  const scopes: Scope[] = [];
  for (const name of names) {
    if (!isScope(name))
      throw new UsageError(`unknown scope "${name}": use ${allScopes.join(" or ")}`);
    if (!scopes.includes(name)) scopes.push(name);
  }
  if (scopes.length === 0) throw new UsageError(`--scope needs ${allScopes.join(" or ")}`);
  return scopes;
}

const units: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--grace 24h`: a whole number and a unit (s, m, h, d), at most 7 days. */
function grace(text: string): number {
  const match = /^(\d+)([smhd])$/.exec(text.trim());
  const ms = match ? Number(match[1]) * (units[match[2] ?? ""] ?? 0) : Number.NaN;
  if (!Number.isSafeInteger(ms))
    throw new UsageError(`--grace must be a duration such as 90m, 24h or 7d, got "${text}"`);
  if (ms > maxGraceMs) throw new UsageError(`--grace ${text} is over the limit: at most 7d`);
  return ms;
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

/** A date, or a date and time with its zone (Z or ±hh:mm), in ISO 8601's extended form. */
const isoDate =
  /^(\d{4})-(\d{2})-(\d{2})(?:T([01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,3})?)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d))?$/;

function expiry(text: string | undefined): Date | undefined {
  if (text === undefined) return undefined;
  // Strict: Date parses "June 30 2027" and "3000" too, and rolls 2027-02-30 over to March 2.
  const [, year, month, day] = isoDate.exec(text) ?? [];
  const calendar = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  const date = new Date(text);
  if (
    year === undefined ||
    calendar.getUTCMonth() !== Number(month) - 1 ||
    calendar.getUTCDate() !== Number(day) ||
    Number.isNaN(date.getTime())
  )
    throw new UsageError(
      `--expires must be an ISO 8601 date (2027-06-30) or date and time (2027-06-30T12:00Z), got "${text}"`,
    );
  if (date.getTime() <= Date.now())
    throw new UsageError(`--expires ${text} is in the past: give a future date, e.g. 2027-06-30`);
  return date;
}

/** A change refused because the key can no longer be used: one line, exit 1. */
function refused(keyId: string, { refused, record }: KeyRefused, where: string): number {
  console.error(
    refused === "revoked"
      ? `keys: ${keyId} was revoked on ${record.revokedAt ?? ""} in ${where}: issue a new key with create`
      : `keys: ${keyId} expired on ${record.expiresAt ?? ""} in ${where}: issue a new key with create`,
  );
  return 1;
}

/**
 * What may not stand in a line of list or history: a line break could fake another line, and a
 * line or paragraph separator, a bidi control or a terminal escape would only look like one, or
 * rewrite what the operator reads. Refused in a label; shown escaped (`printable`) in whatever
 * the table holds, written by anything but this command (the deploy hook's role may put key
 * events and keys).
 */
const unprintable = /[\p{Cc}\p{Cf}\u2028\u2029]/u;

/** A line with each unprintable character shown as its \u escape. */
const printable = (line: string): string =>
  line.replace(
    new RegExp(unprintable.source, "gu"),
    (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`,
  );

function show(record: ApiKeyRecord): string {
  const state = record.revokedAt
    ? `revoked ${record.revokedAt}`
    : record.expiresAt && Date.parse(record.expiresAt) <= Date.now()
      ? `expired ${record.expiresAt}`
      : "active";
  return printable(
    [
      record.keyId,
      record.label,
      `created ${record.createdAt}`,
      `scopes ${scopeText(record.scopes) || "(none)"}`,
      record.expiresAt ? `expires ${record.expiresAt}` : "no expiry",
      limitOf(record),
      state,
    ].join("  "),
  );
}

function showEvent(event: KeyEvent): string {
  const unconfirmed = event.intended ? "(intended, not confirmed: the change may not be made)" : "";
  return printable(
    [event.at, event.event.padEnd(6), event.keyId, `by ${event.who}`, event.detail, unconfirmed]
      .filter((part) => part)
      .join("  "),
  );
}

/** Commands that change a key: each is written with its audit event, naming who made it. */
const changes = new Set(["create", "update", "rotate", "revoke"]);

async function run(request: Request, target: Target): Promise<number> {
  const deadline = Date.now() + (request.stage === "local" ? 30_000 : stageBudgetMs);
  const where = target.where;
  let keys = target.keys;
  if (changes.has(request.command)) {
    const who = await target.who();
    // Stopping a leaked key never waits for the operator's identity; any other change does.
    if (who === undefined && request.command !== "revoke") {
      console.error(
        `keys: ${request.command} refused: who you are could not be read (it is recorded with every change); check your credentials (aws sts get-caller-identity) and retry`,
      );
      return 1;
    }
    keys = keys.actingAs(who ?? target.unknownWho);
  }
  const missing = (keyId: string): number => {
    // Not repeated unless it reads as a keyId: it may be a key given by mistake.
    const named = /^key_[0-9a-f]+$/.test(keyId) ? `key ${keyId}` : "key with that keyId (key_…)";
    console.error(`keys: no ${named} in ${where} (see: npm run keys -- list)`);
    return 1;
  };
  switch (request.command) {
    case "create": {
      const { apiKey, record } = await keys.issue(request.label, deadline, {
        expiresAt: request.expiresAt,
        rateLimit: request.rateLimit,
        scopes: request.scopes,
        stage: target.keyStage,
      });
      console.log(show(record));
      console.log(`issued in ${where}`);
      console.log(`\nAPI key (shown once, store it now):\n${apiKey}`);
      return 0;
    }
    case "update": {
      const keyId = request.keyId ?? "";
      const changes = { scopes: request.scopes, rateLimit: request.rateLimit };
      const record = await keys.update(keyId, changes, deadline);
      if (!record) return missing(keyId);
      // A revoked or expired key stays refused whatever it is changed to: nothing was changed.
      if ("refused" in record) return refused(keyId, record, where);
      console.log(show(record));
      console.log(`updated ${keyId} in ${where}; in effect everywhere within 60 s`);
      return 0;
    }
    case "rotate": {
      const keyId = request.keyId ?? "";
      const rotation = await keys.rotate(keyId, request.graceMs, deadline, target.keyStage);
      if (!rotation) return missing(keyId);
      if ("refused" in rotation) return refused(keyId, rotation, where);
      const { issued, previous } = rotation;
      console.log(show(issued.record));
      console.log(
        `rotated in ${where}: ${keyId} keeps working until ${previous.expiresAt ?? ""}, then is refused`,
      );
      console.log(`\nAPI key (shown once, store it now):\n${issued.apiKey}`);
      return 0;
    }
    case "history": {
      const events = await target.events.list(request.keyId, deadline);
      const whose = request.keyId ? ` for ${request.keyId}` : "";
      console.log(
        events.length === 0
          ? `no key events${whose} in ${where}`
          : [`key events${whose} in ${where}:`, ...events.map(showEvent)].join("\n"),
      );
      return 0;
    }
    case "list": {
      const records = await keys.list(deadline);
      console.log(
        records.length === 0
          ? `no keys in ${where}`
          : [`keys in ${where}:`, ...records.map(show)].join("\n"),
      );
      return 0;
    }
    default: {
      let keyId = request.keyId ?? "";
      if (keyId === "-") {
        // The key itself, as a leak report gives it: found by its hash, as the service finds it.
        // From a pipe only: typed on a terminal, the key would be echoed.
        const apiKey = await apiKeyFromStdin();
        if (!apiKey) {
          console.error(
            process.stdin.isTTY
              ? "keys: revoke - reads the key from a pipe (pass show leaked-key | npm run keys -- revoke -), never from the terminal, which would show it"
              : "keys: revoke - got no key on standard input: pipe the key in, e.g. pass show leaked-key | npm run keys -- revoke -",
          );
          return 2;
        }
        const found = await keys.find(hashApiKey(apiKey), deadline);
        if (!found) {
          console.error(`keys: no key in ${where} is the one given on standard input`);
          return 1;
        }
        keyId = found.keyId;
      }
      const record = await keys.byId(keyId, deadline);
      if (!record) return missing(keyId);
      if (record.revokedAt || !(await keys.revoke(keyId, deadline))) {
        const again = await keys.byId(keyId, deadline);
        console.log(`${keyId} was already revoked on ${again?.revokedAt ?? ""} in ${where}`);
        return 0;
      }
      console.log(`revoked ${keyId} in ${where}; refused everywhere within 60 s`);
      return 0;
    }
  }
}

async function main(argv: string[]): Promise<number> {
  const request = commandLine(() => parse(argv), answersOf("keys", usage));
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
