/**
 * The smoke test's key (PETSTORE_API_KEY) told apart from the release: before the deploy, a key
 * the stage's running release refuses (401, 403, 429) refuses the deploy in one line; after it,
 * a smoke test that failed because the stage refuses the key says so, with no rollback advice,
 * unless the release before took that key (then the new release refuses it: roll back). The
 * stage's answers are the stand-in's (scripts/lib/deploy/key.ts asks them); nothing reaches AWS.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { deploy } from "../../../scripts/deploy.ts";
import type { KeyAnswers } from "../../../scripts/lib/deploy/key.ts";
import { askKey } from "../../../scripts/lib/deploy/key.ts";
import type { LiveNow } from "../../support/deployStandIns.ts";
import {
  fakeDeployIo,
  key,
  operatorAccounts,
  previousRelease,
} from "../../support/deployStandIns.ts";

const accepted: KeyAnswers = { keyless: 401, read: 200, write: 400 };
const unknownKey: KeyAnswers = { keyless: 401, read: 401, write: 401 };
const readOnly: KeyAnswers = { keyless: 401, read: 200, write: 403 };
const rateLimited: KeyAnswers = { keyless: 401, read: 429, write: 429 };

/** A stage that answers the key checks in turn with `answers` (before the deploy, then after). */
function stage(
  answers: KeyAnswers[],
  options: { live?: LiveNow; smoke?: "failed"; stage?: "production" } = {},
) {
  const asked: KeyAnswers[] = [...answers];
  const fake = fakeDeployIo(
    {
      keyAnswers: (baseUrl, apiKey, writes) => {
        expect(apiKey).toBe(key);
        fake.keyChecks.push(baseUrl);
        fake.log.push(writes ? "key" : "key, read only");
        const next = asked.shift();
        if (next === undefined) throw new Error("asked more often than the test says");
        // The stage answers only what it is asked: no write when none is asked.
        if (writes || "unreachable" in next) return Promise.resolve(next);
        return Promise.resolve({ keyless: next.keyless, read: next.read });
      },
      ...(options.smoke && { smoke: () => Promise.resolve("failed" as const) }),
    },
    false,
    options.stage ? operatorAccounts.production : operatorAccounts.staging,
    options.live ?? previousRelease,
  );
  return fake;
}
const errors = (log: readonly string[]): string[] =>
  log.filter((line) => line.startsWith("err: ")).map((line) => line.slice(5));

describe("before the deploy: a key the running release refuses refuses the deploy", () => {
  it.each([
    [unknownKey, "401 on GET /v1/categories", /does not know it, or it was revoked, expired/],
    [
      readOnly,
      "403 on POST /v1/categories",
      /lacks categories:write, .*--scope categories:read,categories:write --stage staging/,
    ],
    [rateLimited, "429 on GET /v1/categories", /over its rate limit/],
  ])(
    "%j: one line naming the status, nothing built or deployed, exit 2",
    async (answers, status, advice) => {
      const fake = stage([answers]);
      expect(await deploy(["staging"], fake)).toBe(2);
      const said = errors(fake.log);
      expect(said).toEqual([
        expect.stringMatching(
          new RegExp(
            `^deploy: refused: PETSTORE_API_KEY is not accepted by staging \\(${status}\\): `,
          ),
        ),
      ]);
      expect(said[0]).toMatch(advice);
      expect(fake.keyChecks).toEqual(["https://api.example/v1"]);
      expect(fake.log).not.toContain("build");
      expect(fake.runs).toEqual([]);
      expect(fake.log.join("\n")).not.toContain(key);
    },
  );

  it("production: refused before the question is asked", async () => {
    let asked = false;
    const fake = stage([unknownKey], { stage: "production" });
    const io = {
      ...fake,
      interactive: true,
      confirm: () => {
        asked = true;
        return Promise.resolve(true);
      },
    };
    expect(await deploy(["production"], io)).toBe(2);
    expect(asked).toBe(false);
    expect(fake.runs).toEqual([]);
  });

  it("production, whose smoke test only reads: a key without categories:write deploys, and no POST is asked", async () => {
    const fake = stage([readOnly], { stage: "production" });
    expect(await deploy(["production", "--yes"], fake)).toBe(0);
    expect(fake.log).toContain("key, read only");
    expect(fake.log).not.toContain("key");
    const unknown = stage([unknownKey], { stage: "production" });
    expect(await deploy(["production", "--yes"], unknown)).toBe(2);
    expect(errors(unknown.log)[0]).toMatch(
      /\(401 on GET \/v1\/categories\).*create --stage production --label smoke --scope categories:read\)/,
    );
  });

  it("a key the stage takes, or a stage where nothing answers, deploys", async () => {
    expect(await deploy(["staging"], stage([accepted]))).toBe(0);
    const down = stage([{ unreachable: "connect ECONNREFUSED" }]);
    expect(await deploy(["staging"], down)).toBe(0);
    expect(down.runs).toHaveLength(1);
  });

  it("a stage answering 5xx without a key is not the key's fault: deploys", async () => {
    const broken = stage([{ keyless: 502, read: 502, write: 502 }]);
    expect(await deploy(["staging"], broken)).toBe(0);
    expect(broken.runs).toHaveLength(1);
  });

  it("nothing to ask on a first deploy, with --no-smoke or in a dry run", async () => {
    const first = stage([], { live: "no stack" });
    expect(await deploy(["staging", "--no-smoke"], first)).toBe(0);
    const noSmoke = stage([]);
    expect(await deploy(["staging", "--no-smoke"], noSmoke)).toBe(0);
    const dry = stage([]);
    expect(await deploy(["staging", "--dry-run"], dry)).toBe(0);
    expect(dry.log.join("\n")).toMatch(
      /would check that the stack's BaseUrl, if it has one, accepts the key/,
    );
    for (const fake of [first, noSmoke, dry]) expect(fake.keyChecks).toEqual([]);
  });
});

describe("after the deploy: a smoke test failed by the key is not a bad release", () => {
  it("a first deploy whose key the stage refuses: says so, no rollback advice, exit 1", async () => {
    const fake = stage([unknownKey], { live: "no stack", smoke: "failed" });
    expect(await deploy(["staging"], fake)).toBe(1);
    expect(errors(fake.log)).toEqual([
      expect.stringMatching(
        /^the smoke test failed on its key, not on the release: staging does not accept PETSTORE_API_KEY \(401 on GET \/v1\/categories\): .*; then npm run smoke -- --stage staging$/,
      ),
    ]);
    expect(fake.log.join("\n")).not.toMatch(/roll back|rollback|update-alias|new release/i);
    expect(fake.log.indexOf("key")).toBeGreaterThan(fake.log.indexOf("smoke"));
  });

  it("a key over its rate limit after the smoke test: the key, even if taken before", async () => {
    const fake = stage([accepted, rateLimited], { smoke: "failed" });
    expect(await deploy(["staging"], fake)).toBe(1);
    expect(errors(fake.log)).toEqual([
      expect.stringMatching(
        /^the smoke test failed on its key, not on the release: .*\(429 on GET \/v1\/categories\): .*rate limit/,
      ),
    ]);
  });

  it("a key the release before took and the new one refuses: the release, roll back", async () => {
    const fake = stage([accepted, unknownKey], { smoke: "failed" });
    expect(await deploy(["staging"], fake)).toBe(1);
    const said = errors(fake.log);
    expect(said.slice(0, 3)).toEqual([
      "the smoke test failed against the new release of staging.",
      "The new release refuses PETSTORE_API_KEY (401 on GET /v1/categories), which the release before accepted.",
      `To roll back petstore-staging to what ran before this deploy (docs/operating.md "Rolling back"):`,
    ]);
    expect(said.join("\n")).toContain("aws lambda update-alias");
  });

  it("a key the stage takes: the release failed, roll back", async () => {
    const fake = stage([accepted, accepted], { smoke: "failed" });
    expect(await deploy(["staging"], fake)).toBe(1);
    const said = errors(fake.log);
    expect(said[0]).toBe("the smoke test failed against the new release of staging.");
    expect(said.join("\n")).not.toContain("PETSTORE_API_KEY");
    expect(said.join("\n")).toContain("aws lambda update-alias");
  });

  it("keyed 401s from a stage that answers no 401 without a key: the release", async () => {
    const fake = stage([{ keyless: 500, read: 401, write: 401 }], {
      live: "no stack",
      smoke: "failed",
    });
    expect(await deploy(["staging"], fake)).toBe(1);
    expect(errors(fake.log)[0]).toBe("the smoke test failed against the new release of staging.");
  });
});

describe("the requests that ask the stage about the key", () => {
  it("GET without a key, GET and (where the smoke test writes) POST with an empty body with it, at the stage's /v1", async () => {
    const seen: string[] = [];
    const server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => {
        const auth = request.headers.authorization ?? "none";
        const type = request.headers["content-type"] ?? request.headers["accept-encoding"] ?? "";
        seen.push(`${request.method ?? ""} ${request.url ?? ""} ${auth} ${type} ${body}`.trim());
        const status = auth === "none" ? 401 : request.method === "GET" ? 200 : 403;
        response.writeHead(status, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const { port } = server.address() as AddressInfo;
    try {
      const answers = await askKey(`http://127.0.0.1:${port}/v1`, key, true);
      expect(answers).toEqual({ keyless: 401, read: 200, write: 403 });
      const reads = ["GET /v1/categories none", `GET /v1/categories Bearer ${key} br, gzip`];
      expect(seen).toEqual([...reads, `POST /v1/categories Bearer ${key} application/json {}`]);
      // Where the smoke test only reads (production), no POST is sent.
      seen.length = 0;
      expect(await askKey(`http://127.0.0.1:${port}/v1`, key, false)).toEqual({
        keyless: 401,
        read: 200,
      });
      expect(seen).toEqual(reads);
    } finally {
      await new Promise((done) => server.close(done));
    }
    // The port is free now: nothing answers there.
    expect(await askKey(`http://127.0.0.1:${port}/v1`, key, true)).toEqual({
      unreachable: expect.stringMatching(/ECONNREFUSED/) as unknown,
    });
  });
});
