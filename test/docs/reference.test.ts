/**
 * The API reference (`npm run docs`), as a reader sees it: opened from the local server's /docs
 * in headless Chromium, it shows both operations, the Error schema and every operation's
 * stability marking whole (a screenshot of each sidebar badge, its text inside it), a deprecated
 * operation's deprecation instead of a contradicting "Stable", server descriptions without
 * Markdown, and it requests nothing from any other host.
 */
import { existsSync, readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routesOf } from "../../local/template.ts";
import { buildDocs, docsFile } from "../../local/docsPage.ts";
import { useLocalServer } from "../support/localServer.ts";
import { toolsRequired } from "../support/missingTool.ts";
import { openApiOperations } from "../openapi/operations.ts";

/** Debian's chromium here; CHROMIUM_PATH elsewhere (the deploy workflow's runner). */
const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const haveChromium = existsSync(chromiumPath);
if (!haveChromium && toolsRequired) {
  throw new Error(`Chromium is not at ${chromiumPath} (PETSTORE_REQUIRE_TOOLS=1)`);
}
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
  return openApiOperations().map(([, operation]) => ({
    operationId: String(operation.operationId),
    summary: String(operation.summary),
    stability: String(operation["x-stability"]),
    tag: String((operation.tags as string[])[0]),
    deprecated: operation.deprecated === true,
    scope:
      typeof operation["x-required-scope"] === "string" ? operation["x-required-scope"] : undefined,
  }));
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

  /** The page's text, its inline scripts and styles left out. */
  async function pageText(view: Page): Promise<string> {
    return await view.evaluate<string>(`(() => {
      const copy = document.body.cloneNode(true);
      for (const code of copy.querySelectorAll("script, style")) code.remove();
      return copy.textContent;
    })()`);
  }

  /** Opens the reference at one of its deep links (`#/<tag>/<operationid>`, `#/schemas/<name>`). */
  async function show(link: string): Promise<Page> {
    const view = opened();
    await view.goto("about:blank");
    await view.goto(`${origin}/docs#/${link}`, { waitUntil: "load" });
    return view;
  }

  it.each(operations())(
    "shows $operationId with its stability marking ($stability) and scope ($scope), or only its deprecation",
    async ({ operationId, summary, stability, tag, deprecated, scope }) => {
      const view = await show(`${tag}/${operationId.toLowerCase()}`);
      const heading = view.locator("h2", { hasText: summary });
      await heading.waitFor();
      const badges = await heading.locator('[data-component-name="Tag/Tag"]').allTextContents();
      // A deprecated operation shows its deprecation instead of a "Stable" beside it; a served
      // operation also the scope its key needs.
      const expected = deprecated
        ? ["deprecated"]
        : [stability, ...(scope ? [`scope ${scope}`] : [])];
      expect(badges.map((badge) => badge.toLowerCase()).sort()).toEqual(expected.sort());
      if (deprecated) {
        expect(await pageText(view)).toContain(
          `Deprecated. Served as documented (stability: ${stability})`,
        );
      }
    },
  );

  it.each(operations().filter((operation) => !operation.deprecated))(
    "the sidebar shows $operationId's whole badge ($stability), in a screenshot",
    async ({ operationId, summary, stability, tag }) => {
      const view = await show(`${tag}/${operationId.toLowerCase()}`);
      // The sidebar's badge (the heading has its own, inside the h2).
      const badge = view
        .locator('[data-component-name="Tag/Tag"]:not(h2 *)', {
          hasText: new RegExp(`^${stability}$`, "i"),
        })
        .filter({ visible: true })
        .first();
      await badge.waitFor();
      const shot = await badge.screenshot();
      expect(shot.length).toBeGreaterThan(100);
      // The text as laid out against the box it is drawn in: wider means cut off ("Experimen…").
      interface Fits {
        readonly textWidth: number;
        readonly boxWidth: number;
        readonly drawn: string;
      }
      const fits = await view.evaluate<Fits | undefined>(`(() => {
        const badges = [...document.querySelectorAll('[data-component-name="Tag/Tag"]')];
        const badge = badges.find((element) => !element.closest("h2") &&
          element.offsetParent !== null &&
          element.textContent.toLowerCase() === ${JSON.stringify(stability)});
        if (!badge) return undefined;
        const inner = badge.firstElementChild ?? badge;
        const range = document.createRange();
        range.selectNodeContents(inner);
        return {
          textWidth: range.getBoundingClientRect().width,
          boxWidth: inner.getBoundingClientRect().width,
          drawn: inner.innerText,
        };
      })()`);
      if (fits === undefined) throw new Error(`no sidebar badge "${stability}"`);
      expect(fits.drawn.toLowerCase()).toBe(stability);
      expect(fits.textWidth).toBeLessThanOrEqual(fits.boxWidth);
      expect(summary).not.toBe("");
    },
  );

  it("server descriptions are plain text, and the Responses intro states the list's exception", async () => {
    const view = await show("");
    const text = await pageText(view);
    expect(text).toContain("its stack's BaseUrl output (npm run deploy");
    expect(text).not.toContain("`BaseUrl`");
    expect(text).toContain("except the list's 200 and 304");
  });

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
