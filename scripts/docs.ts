/**
 * `npm run docs`: the API reference page (local/docsPage.ts builds it from openapi.yaml) at
 * dist/docs/index.html, which the local server serves at /docs.
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { buildDocs, docsFile } from "../local/docsPage.ts";
import { optionsOrExit } from "./lib/args.ts";

const usage = `usage: npm run docs
  the API reference, one offline HTML page from openapi.yaml: dist/docs/index.html
  (npm start serves it at /docs, rebuilt when openapi.yaml changes)`;

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  optionsOrExit("docs", usage, process.argv.slice(2), {});
  try {
    await buildDocs();
    const kib = (readFileSync(docsFile).length / 1024).toFixed(0);
    console.log(`dist/docs/index.html  ${kib} KiB (served by npm start at /docs)`);
  } catch (error) {
    const detail = (error as { stderr?: string }).stderr?.trim().split("\n").at(-1);
    console.error(`docs: the reference could not be built: ${detail ?? String(error)}`);
    process.exitCode = 1;
  }
}
