/**
 * `npm start`: the local server on PORT (default 3000) over the embedded store persisted in
 * DATA_DIR (default .data/dynamodb), or over an existing DynamoDB-compatible endpoint given as
 * DYNAMODB_ENDPOINT. `--memory` keeps the embedded store in memory. Prints the base URL and a
 * working API key (PETSTORE_API_KEY when set). `--dynamodb-local` (or PETSTORE_STORE=dynamodb-local)
 * runs AWS's DynamoDB Local instead of dynalite, persisted in DATA_DIR (default .data/dynamodb-local).
 */
import { resolve } from "node:path";
import { parseAuthorization } from "../lib/auth.ts";
import { projectRoot } from "../local/template.ts";
import { startLocalServer } from "../local/server.ts";
import { SetupError } from "../local/setupError.ts";

const port = Number(process.env.PORT ?? 3000);
const fixedKey = process.env.PETSTORE_API_KEY || undefined;
// A key that is no RFC 6750 token could never be sent in a Bearer header: refuse it at once.
const fixedKeyParsed = fixedKey && parseAuthorization(`Bearer ${fixedKey}`);
if (fixedKeyParsed && !(fixedKeyParsed.kind === "bearer" && fixedKeyParsed.token === fixedKey)) {
  process.stderr.write("PETSTORE_API_KEY must be a token of letters, digits and -._~+/ (then =)\n");
  process.exit(2);
}
const inMemory = process.argv.includes("--memory");
if (process.argv.includes("--dynamodb-local")) process.env.PETSTORE_STORE = "dynamodb-local";
const dataFolder =
  process.env.PETSTORE_STORE === "dynamodb-local" ? ".data/dynamodb-local" : ".data/dynamodb";
const server = await startLocalServer({
  port,
  host: process.env.HOST ?? "127.0.0.1",
  dynamoEndpoint: process.env.DYNAMODB_ENDPOINT,
  dataDir:
    inMemory || process.env.DYNAMODB_ENDPOINT
      ? undefined
      : resolve(projectRoot, process.env.DATA_DIR ?? dataFolder),
  apiKey: fixedKey,
  env: {},
}).catch((error: unknown) => {
  if (!(error instanceof SetupError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(2);
});

process.stderr.write(
  [
    `Pet Store categories API (local) at ${server.baseUrl}`,
    `API key: ${server.apiKey}`,
    `Try: curl -H "Authorization: Bearer ${server.apiKey}" ${server.baseUrl}/categories`,
    "",
  ].join("\n"),
);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void server.close().then(() => process.exit(0));
  });
}
