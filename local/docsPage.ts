/**
 * The API reference: one self-contained HTML page built from openapi.yaml by Redocly's
 * `build-docs` (Redoc, with its scripts inlined, so the page loads nothing from the network), at
 * dist/docs/index.html, built by `npm run docs` (scripts/docs.ts) and served at /docs by the
 * local server only (API Gateway has no such route: the template never serves it), rebuilt on
 * request when openapi.yaml is newer, so it always shows the document in the working tree.
 *
 * Each operation's `x-stability` is shown as a Redoc badge (`x-badges`), derived here so that
 * openapi.yaml keeps one marking per operation, in full (no cut-off text in the sidebar), and so
 * is the scope its key needs (`x-required-scope`); `deprecated: true` Redoc shows itself, instead
 * of the marking (see withStabilityBadges).
 */
import { execFile } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, resolve } from "node:path";
import { promisify } from "node:util";
import { parse } from "yaml";
import type { HttpAnswer } from "./apiGateway.ts";
import { projectRoot } from "./template.ts";

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

const scopeColour = "#1565c0";

/**
 * openapi.yaml with a badge naming each operation's stability marking, and one naming its scope. A deprecated operation
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
      const scope = operation["x-required-scope"];
      operation["x-badges"] = [
        { name: stability, color: badgeColours[stability], position: "after" },
        ...(typeof scope === "string"
          ? [{ name: `scope ${scope}`, color: scopeColour, position: "after" }]
          : []),
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

/**
 * The page runs only its own inline scripts and styles and may fetch nothing from elsewhere:
 * the browser enforces that it stays offline.
 */
const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  "style-src 'unsafe-inline'",
  "img-src data:",
  "font-src data:",
  "connect-src 'self'",
  "worker-src blob:",
].join("; ");

let building: Promise<void> | undefined;

/** True for the paths the reference answers: /docs and /docs/. */
export function isDocsPath(path: string): boolean {
  return path === "/docs" || path === "/docs/";
}

export async function docsAnswer(): Promise<HttpAnswer> {
  try {
    if (isStale()) {
      building ??= buildDocs().finally(() => {
        building = undefined;
      });
      await building;
    }
    return page(200, "text/html", readFileSync(docsFile));
  } catch (error) {
    process.stderr.write(`local server: /docs: ${String(error)}\n`);
    return page(
      500,
      "text/plain",
      Buffer.from("The API reference could not be built: run npm run docs\n"),
    );
  }
}

function isStale(): boolean {
  return !existsSync(docsFile) || statSync(docsFile).mtimeMs < statSync(openApiFile).mtimeMs;
}

function page(status: number, type: string, body: Buffer): HttpAnswer {
  return {
    status,
    headers: {
      "content-type": `${type}; charset=utf-8`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      "content-security-policy": contentSecurityPolicy,
    },
    body,
  };
}
