/**
 * `npm run client:generate`: clients/typescript/schema.ts, the types of openapi.yaml as
 * openapi-typescript writes them. test/clients/typescript.test.ts regenerates them in memory and
 * fails when the committed file differs, so a change to openapi.yaml must be regenerated.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";
import { projectRoot } from "../../local/template.ts";
import { optionsOrExit } from "../../scripts/lib/args.ts";

export const schemaFile = resolve(projectRoot, "clients/typescript/schema.ts");
const openApiFile = resolve(projectRoot, "openapi.yaml");

const header = [
  "// Generated from openapi.yaml by `npm run client:generate` (openapi-typescript). Do not edit:",
  "// change openapi.yaml and regenerate.",
  "",
].join("\n");

/** The schema module's text, from openapi.yaml as it is now. */
export async function generateSchema(): Promise<string> {
  const ast = await openapiTS(pathToFileURL(openApiFile), { silent: true });
  return header + astToString(ast);
}

const usage = `usage: npm run client:generate
  clients/typescript/schema.ts: the types of openapi.yaml (openapi-typescript), for the client`;

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  optionsOrExit("client:generate", usage, process.argv.slice(2), {});
  const text = await generateSchema();
  const changed = text !== readFileSync(schemaFile, { encoding: "utf8", flag: "a+" });
  writeFileSync(schemaFile, text);
  console.log(`clients/typescript/schema.ts ${changed ? "regenerated" : "unchanged"}`);
}
