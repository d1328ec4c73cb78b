/**
 * `npm run docs`: the API reference, one self-contained HTML page built from openapi.yaml by
 * Redocly's `build-docs` (Redoc, with its scripts inlined, so the page loads nothing from the
 * network), at dist/docs/index.html. The local server serves it at /docs (local/docsPage.ts).
 *
 * Each operation's `x-stability` is shown as a Redoc badge (`x-badges`), derived here so that
 * openapi.yaml keeps one marking per operation, in full (no cut-off text in the sidebar);
 * `deprecated: true` Redoc shows itself, instead of the marking (see withStabilityBadges).
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { parse } from "yaml";
import { projectRoot } from "../local/template.ts";
import { optionsOrExit } from "./lib/args.ts";

export const docsFile = resolve(projectRoot, "dist/docs/index.html");
const openApiFile = resolve(projectRoot, "openapi.yaml");
const redoclyCli = resolve(projectRoot, "node_modules/@redocly/cli/bin/cli.js");
const operationKeys = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
/**
 * Redoc's "API docs by Redocly" credit loads its logo from Redocly's CDN; an inline image keeps
 * the credit and the page offline (test/docs/reference.test.ts checks that the page, opened in
 * a browser, requests nothing from elsewhere).
 */
const remoteLogo = /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(?:-full)?\.svg/g;
const inlineLogo =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='64' height='16'%3E" +
  "%3Ctext x='0' y='12' font-family='sans-serif' font-size='12'%3ERedocly%3C/text%3E%3C/svg%3E";
const badgeColours: Readonly<Record<string, string>> = {
  stable: "#2e7d32",
  beta: "#ef6c00",
  experimental: "#c62828",
};

type Mapping = Record<string, unknown>;

function isMapping(value: unknown): value is Mapping {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * openapi.yaml with a badge naming each operation's stability marking. A deprecated operation
 * gets none: Redoc shows its own "Deprecated" badge, and "Stable" beside it would read as a
 * contradiction; its description says instead what the marking means while it is deprecated.
 */
export function withStabilityBadges(document: Mapping): Mapping {
  const paths = isMapping(document.paths) ? document.paths : {};
  for (const item of Object.values(paths).filter(isMapping)) {
    for (const operation of operationKeys.map((key) => item[key]).filter(isMapping)) {
      const stability = operation["x-stability"];
      if (typeof stability !== "string") continue;
      if (operation.deprecated === true) {
        const description = typeof operation.description === "string" ? operation.description : "";
        operation.description =
          `**Deprecated.** Served as documented (stability: ${stability}) until its sunset ` +
          `date (announced in the \`Sunset\` header once set); move off it before then.\n\n` +
          description;
        continue;
      }
      operation["x-badges"] = [
        { name: stability, color: badgeColours[stability], position: "after" },
      ];
    }
  }
  return document;
}

/**
 * Redoc caps a sidebar badge at 90 px and cuts the rest ("Experimen…"): the whole marking is
 * shown instead (the sidebar item has room for it on its own line).
 */
const badgeStyle =
  '<style>[data-component-name="Tag/Tag"]{max-width:none!important}' +
  '[data-component-name="Tag/Tag"]>div{overflow:visible!important;text-overflow:clip!important}</style>';

function titleOf(document: Mapping): string {
  const title = isMapping(document.info) ? document.info.title : undefined;
  return typeof title === "string" ? title : "API reference";
}

/** Builds the page into `output` (written whole, then moved into place). */
export async function buildDocs(output: string = docsFile): Promise<void> {
  const document = withStabilityBadges(parse(readFileSync(openApiFile, "utf8")) as Mapping);
  // Beside the output, so that the finished page is renamed into place on the same file system.
  mkdirSync(dirname(output), { recursive: true });
  const work = mkdtempSync(resolve(dirname(output), ".build-"));
  try {
    const input = resolve(work, "openapi.json");
    const page = resolve(work, "index.html");
    writeFileSync(input, JSON.stringify(document));
    await promisify(execFile)(
      process.execPath,
      [
        redoclyCli,
        "build-docs",
        input,
        "--inlineBundle",
        "--lint-config=off",
        "--openapi.schemaDefinitionsTagName=Schemas",
        `--title=${titleOf(document)}`,
        `--output=${page}`,
      ],
      {
        cwd: work,
        // No usage report and no update check: the build works offline and sends nothing.
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      },
    );
    const html = readFileSync(page, "utf8").replace(remoteLogo, inlineLogo);
    writeFileSync(page, html.replace("</head>", `${badgeStyle}</head>`));
    renameSync(page, output);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

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
