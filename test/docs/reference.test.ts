/**
 * The API reference (`npm run docs`), as a reader sees it: opened from the local server's /docs
 * in headless Chromium, it shows both operations, the Error schema and every operation's
 * stability marking, and it requests nothing from any other host.
 */
import { existsSync, readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routesOf } from "../../local/template.ts";
import { buildDocs, docsFile } from "../../scripts/docs.ts";
import { useLocalServer } from "../support/localServer.ts";
import { loadOpenApi, operationMethods } from "../support/openapiDocument.ts";

const chromiumPath = "/usr/bin/chromium";
const haveChromium = existsSync(chromiumPath);
if (!haveChromium) {
  console.warn(
    `[docs] SKIPPED: Chromium is not at ${chromiumPath}; install it with ` +
      "`apt-get install -y chromium` (Debian) to run the API reference tests.",
  );
}

interface Operation {
  readonly operationId: string;
  readonly summary: string;
  readonly stability: string;
  readonly tag: string;
  readonly deprecated: boolean;
  /** The scope its key needs (x-required-scope), shown as a badge. */
  readonly scope: string | undefined;
}

function operations(): Operation[] {
  const paths = loadOpenApi().paths as Record<string, Record<string, Record<string, unknown>>>;
  return Object.values(paths).flatMap((item) =>
    operationMethods.flatMap((method) => {
      const operation = item[method];
      if (!operation) return [];
      return [
        {
          operationId: String(operation.operationId),
          summary: String(operation.summary),
          stability: String(operation["x-stability"]),
          tag: String((operation.tags as string[])[0]),
          deprecated: operation.deprecated === true,
          scope:
            typeof operation["x-required-scope"] === "string"
              ? operation["x-required-scope"]
              : undefined,
        },
      ];
    }),
  );
}

describe.skipIf(!haveChromium)("the API reference at the local server's /docs", () => {
  const server = useLocalServer();
  const elsewhere: string[] = [];
  let browser: Browser | undefined;
  let page: Page | undefined;
  let origin = "";
  const opened = (): Page => {
    if (!page) throw new Error("the page is not open (beforeAll)");
    return page;
  };

  beforeAll(async () => {
    await buildDocs();
    origin = new URL(server.baseUrl).origin;
    // Playwright gives each launch a fresh, temporary profile (--user-data-dir).
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-quic",
        "--no-first-run",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    page = await browser.newPage();
    page.on("request", (request) => {
      const url = request.url();
      if (!url.startsWith(origin) && !/^(data|blob|about):/.test(url)) elsewhere.push(url);
    });
    const answer = await page.goto(`${origin}/docs`, { waitUntil: "load" });
    expect(answer?.status()).toBe(200);
  });

  afterAll(async () => {
    await browser?.close();
  });

  /** Opens the reference at one of its deep links (`#/<tag>/<operationid>`, `#/schemas/<name>`). */
  async function show(link: string): Promise<Page> {
    const view = opened();
    await view.goto("about:blank");
    await view.goto(`${origin}/docs#/${link}`, { waitUntil: "load" });
    return view;
  }

  it.each(operations())(
    "shows $operationId with its stability marking ($stability) and scope ($scope)",
    async ({ operationId, summary, stability, tag, deprecated, scope }) => {
      const view = await show(`${tag}/${operationId.toLowerCase()}`);
      const heading = view.locator("h2", { hasText: summary });
      await heading.waitFor();
      const badges = await heading.locator('[data-component-name="Tag/Tag"]').allTextContents();
      const expected = [
        stability,
        ...(deprecated ? ["deprecated"] : []),
        ...(scope ? [`scope ${scope}`] : []),
      ];
      expect(badges.map((badge) => badge.toLowerCase()).sort()).toEqual(expected.sort());
    },
  );

  it("shows the Error schema with its three fields", async () => {
    const view = await show("schemas/error");
    const heading = view.locator("h2", { hasText: /^Error$/ });
    await heading.waitFor();
    const description = "Every error response has exactly these three fields.";
    const section = view.locator("div").filter({ has: heading }).filter({ hasText: description });
    const text = (await section.last().textContent()) ?? "";
    for (const field of ["code", "message", "status", "invalid_body", "required"]) {
      expect(text).toContain(field);
    }
  });

  it("requests nothing from any other host (scripts, fonts and images are inline)", () => {
    expect(elsewhere).toEqual([]);
    const html = readFileSync(docsFile, "utf8");
    expect(html).not.toMatch(/<script[^>]+src=["']?https?:/i);
    expect(html).not.toMatch(/<link[^>]+href=["']?https?:/i);
  });
});

describe("the API reference is served locally only", () => {
  it("is no route of infra/template.yaml", () => {
    expect([...routesOf().keys()].filter((key) => key.includes("/docs"))).toEqual([]);
  });
});
