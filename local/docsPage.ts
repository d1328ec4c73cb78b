/**
 * The API reference at /docs, on the local server only (API Gateway has no such route: the
 * template never serves it). The page is dist/docs/index.html (`npm run docs`), rebuilt on
 * request when openapi.yaml is newer, so it always shows the document in the working tree.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { buildDocs, docsFile } from "../scripts/docs.ts";
import type { HttpAnswer } from "./apiGateway.ts";
import { projectRoot } from "./template.ts";

const openApiFile = resolve(projectRoot, "openapi.yaml");

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
