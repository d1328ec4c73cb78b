/**
 * `npm run keys -- <create|list|revoke> [options]`: the operator's API key command, for the
 * local store and for a deployed stage alike. Keys are shown once, on create; the table keeps
 * only their SHA-256.
 *
 *   npm run keys -- create --label "partner-a" [--expires 2027-06-30] [--stage staging]
 *   npm run keys -- list [--stage production]
 *   npm run keys -- revoke key_0123abcd4567 [--stage production]
 *
 * --stage local (default) uses the store of `npm start` (DATA_DIR, default .data/dynamodb);
 * staging and production use table petstore-<stage> with the operator's AWS credentials (the
 * usual chain: AWS_PROFILE, SSO, environment) in the stage's region from infra/samconfig.toml
 * (always that region, whatever AWS_REGION says).
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { ApiKeyStore } from "../lib/repositories/apiKeys.ts";
import type { ApiKeyRecord } from "../lib/repositories/apiKeys.ts";
import { DynamoDb } from "../lib/dynamodb.ts";
import { ensureTable, localClient, startEmbeddedDynamo } from "../local/embeddedDynamo.ts";
import { endpointFile, localTableName } from "../local/server.ts";
import { projectRoot } from "../local/template.ts";
import { stageRegion, stages } from "./stages.ts";

const usage = `usage: npm run keys -- <create|list|revoke> [--stage local|${stages.join("|")}]
  create [--label NAME] [--expires ISO-DATE]   issue a key (printed once)
  list                                         list keys (never the keys themselves)
  revoke <keyId>                               revoke a key (refused within 60 s)`;

interface Target {
  readonly keys: ApiKeyStore;
  close(): Promise<void>;
}

async function localTarget(): Promise<Target> {
  const dataDir = resolve(projectRoot, process.env.DATA_DIR ?? ".data/dynamodb");
  const running = existsSync(endpointFile(dataDir))
    ? readFileSync(endpointFile(dataDir), "utf8").trim()
    : undefined;
  if (running) {
    const db = localClient(running);
    try {
      await ensureTable(db, localTableName);
      return { keys: new ApiKeyStore(db, localTableName), close: () => closeClient(db) };
    } catch {
      db.close(); // a stale file from a server that did not stop cleanly: open the folder ourselves
    }
  }
  const dynamo = await startEmbeddedDynamo({ dataDir });
  const db = localClient(dynamo.endpoint);
  await ensureTable(db, localTableName);
  return {
    keys: new ApiKeyStore(db, localTableName),
    close: async () => {
      db.close();
      await dynamo.close();
    },
  };
}

async function stageTarget(stage: string): Promise<Target> {
  // Only the operator's command needs the SDK's credential chain (profiles, SSO, ...); the
  // functions read the Lambda environment directly and never load it.
  const { fromNodeProviderChain } = await import("@aws-sdk/credential-providers");
  const provider = fromNodeProviderChain();
  // The stage's region from samconfig.toml, where `npm run deploy` put its table: an AWS_REGION
  // left in the operator's shell must not send the command to another region.
  const db = new DynamoDb({
    region: stageRegion(stage),
    credentials: async () => {
      const { accessKeyId, secretAccessKey, sessionToken } = await provider();
      return { accessKeyId, secretAccessKey, ...(sessionToken && { sessionToken }) };
    },
  });
  return { keys: new ApiKeyStore(db, `petstore-${stage}`), close: () => closeClient(db) };
}

function closeClient(db: DynamoDb): Promise<void> {
  db.close();
  return Promise.resolve();
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
    state,
  ].join("  ");
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      stage: { type: "string", default: "local" },
      label: { type: "string", default: "operator-issued" },
      expires: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [command, argument] = positionals;
  if (values.help || !command) {
    console.log(usage);
    return values.help ? 0 : 2;
  }
  const stage = values.stage;
  if (stage !== "local" && !stages.includes(stage)) {
    console.error(`unknown stage "${stage}": use local, ${stages.join(" or ")}`);
    return 2;
  }
  const expiresAt = values.expires === undefined ? undefined : new Date(values.expires);
  if (expiresAt && Number.isNaN(expiresAt.getTime())) {
    console.error(`--expires must be an ISO 8601 date, got "${values.expires}"`);
    return 2;
  }
  const target = stage === "local" ? await localTarget() : await stageTarget(stage);
  const deadline = () => Date.now() + 30_000;
  try {
    switch (command) {
      case "create": {
        const { apiKey, record } = await target.keys.issue(values.label, expiresAt, deadline());
        console.log(show(record));
        console.log(`\nAPI key (shown once, store it now):\n${apiKey}`);
        return 0;
      }
      case "list": {
        const records = await target.keys.list(deadline());
        console.log(records.length === 0 ? `no keys in ${stage}` : records.map(show).join("\n"));
        return 0;
      }
      case "revoke": {
        if (!argument) {
          console.error("revoke needs a keyId (see: npm run keys -- list)");
          return 2;
        }
        const revoked = await target.keys.revoke(argument, deadline());
        console.log(
          revoked
            ? `revoked ${argument}; refused everywhere within 60 s`
            : `no key ${argument} in ${stage}`,
        );
        return revoked ? 0 : 1;
      }
      default:
        console.error(usage);
        return 2;
    }
  } finally {
    await target.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
