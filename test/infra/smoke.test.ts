/**
 * `npm run smoke` against the local server, as an operator runs it against a stage: the key
 * comes from PETSTORE_API_KEY or standard input and never from the command line or into the
 * output; every check passes on a healthy deployment, one whose list is over Lambda's 6 MB limit
 * and whose pets sunset has passed included, and the pets check holds its answer to its date; read-only (the default) leaves nothing
 * behind, `--write` exactly one category named `smoke-test <ISO time>`; failures are reported
 * per check with a non-zero exit.
 */
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedTable } from "../../bench/data.ts";
import { maxResponseBytes } from "../../lib/http/response.ts";
import type { EmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import { localClient, startEmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import { localTableName } from "../../local/localKeys.ts";
import { projectRoot } from "../../local/template.ts";
import type { CheckResult } from "../../scripts/lib/smoke/checks.ts";
import { runChecks } from "../../scripts/lib/smoke/checks.ts";
import { listCategories } from "../support/client.ts";
import type { Finished } from "../support/command.ts";
import { runCommand } from "../support/command.ts";
import type { RunningServer } from "../support/localServer.ts";
import { localServer, startServer, useLocalServer } from "../support/localServer.ts";
import { scratchDir } from "../support/scratchDir.ts";
import { closedPort } from "../local/processes.ts";

const script = resolve(projectRoot, "scripts/smoke.ts");

function runSmoke(
  args: string[],
  key: { env?: string; stdin?: string; path?: string } = {},
): Promise<Finished> {
  return runCommand(process.execPath, [script, ...args], {
    env: {
      ...process.env,
      PETSTORE_API_KEY: key.env ?? "",
      ...(key.path !== undefined && { PATH: key.path }),
    },
    ...(key.stdin !== undefined && { stdin: key.stdin }),
  });
}

const server = await localServer();

const categories = () => listCategories(server.baseUrl, server.apiKey);

const readOnlyChecks = [
  "GET /categories answers 200",
  "without a key answers 401 with WWW-Authenticate",
  "a key the stage does not know answers 401",
  "invalid body answers 400 invalid_body",
  "unknown route answers 404",
  "DELETE /categories answers 405 with Allow",
  "GET /pets/{petId} answers 501, or 410 gone once its Sunset has passed",
];

function checksOf(out: string): string[] {
  return out.split("\n").filter((line) => /^(PASS|FAIL) /.test(line));
}

describe("read-only, the default", () => {
  it("passes every check against a healthy deployment and creates nothing", async () => {
    const before = await categories();
    const { code, out } = await runSmoke([server.baseUrl], { env: server.apiKey });
    expect(code, out).toBe(0);
    const checks = checksOf(out);
    expect(checks.filter((line) => line.startsWith("FAIL"))).toEqual([]);
    for (const what of readOnlyChecks)
      expect(
        checks.some((line) => line.includes(what)),
        what,
      ).toBe(true);
    // Each PASS line's detail says something its name does not ("404 not_found: not_found").
    for (const line of checks) {
      const text = line.replace(/^PASS {2}/, "");
      const [name, detail] = [
        text.slice(0, text.indexOf(": ")),
        text.slice(text.indexOf(": ") + 2),
      ];
      expect(name.includes(detail), line).toBe(false);
    }
    expect(checks).toContainEqual(
      'PASS  an unknown route answers 404 not_found: "no such route; the API serves /v1/categories"',
    );
    expect(out).toContain("read-only");
    expect(out).toContain(`smoke: ${checks.length} passed, 0 failed`);
    expect(await categories()).toEqual(before);
  });
});

/** The pets check's result of a run of the checks in this process, at the clock `now`. */
async function petsCheck(server: RunningServer, now?: () => number): Promise<CheckResult> {
  const results = await runChecks(server.baseUrl, server.apiKey, now && { now });
  const pets = results.find((result) => result.name.startsWith("GET /pets/{petId}"));
  if (!pets) throw new Error("the checks have no pets check");
  return pets;
}

const day = 24 * 60 * 60 * 1000;

describe("a stage grown past Lambda's 6 MB list limit and past its pets sunset", () => {
  // As the review found it: a list over the limit (answered 406 to a request accepting no
  // encoding) and `--parameter-overrides PetsSunsetAt=2026-06-01T00:00:00Z`. Descriptions of the
  // most characters a category may have: the fewest categories (a second's seed) over the limit.
  const sunset = "2026-06-01T00:00:00Z";
  const descriptionChars = 1000;
  const count = Math.ceil(maxResponseBytes / descriptionChars) + 1;
  let store: EmbeddedDynamo | undefined;
  let grown: RunningServer | undefined;
  const server = (): RunningServer => {
    if (!grown) throw new Error("the server is not started (beforeAll)");
    return grown;
  };

  beforeAll(async () => {
    store = await startEmbeddedDynamo();
    const db = localClient(store.endpoint);
    try {
      await seedTable(db, localTableName, count, descriptionChars);
    } finally {
      db.close();
    }
    grown = await startServer({
      env: { DYNAMODB_ENDPOINT: store.endpoint },
      args: ["--parameter-overrides", `PetsSunsetAt=${sunset}`],
    });
  }, 60_000);

  afterAll(async () => {
    await grown?.stop();
    await store?.close();
  });

  it("passes every check: the list asked for compressed, the pets route's 410 gone expected", async () => {
    const { code, out } = await runSmoke([server().baseUrl], { env: server().apiKey });
    expect(checksOf(out).filter((line) => line.startsWith("FAIL"))).toEqual([]);
    expect(code, out).toBe(0);
    expect(out).toContain(
      `PASS  GET /categories answers 200 with a JSON array: ${count} categories`,
    );
    expect(out).toMatch(/^PASS {2}GET \/pets\/\{petId\} answers .*: 410 gone; .*has passed$/m);
  });

  it("still fails a 410 answered while the Sunset date is ahead", async () => {
    const pets = await petsCheck(server(), () => Date.parse(sunset) - day);
    expect(pets.ok).toBe(false);
    expect(pets.detail).toMatch(/is ahead: expected 501 not_implemented, got 410 .*"gone"/);
  });
});

describe("a stage whose pets sunset is ahead", () => {
  const sunsetAt = Math.floor((Date.now() + 365 * day) / 1000) * 1000;
  const ahead = useLocalServer({
    args: ["--parameter-overrides", `PetsSunsetAt=${new Date(sunsetAt).toISOString()}`],
  });

  it("passes the 501 with its Sunset date, and fails a 501 once that date has passed", async () => {
    const before = await petsCheck(ahead);
    expect(before.ok, before.detail).toBe(true);
    expect(before.detail).toMatch(/^501 not_implemented; .* is ahead$/);
    const after = await petsCheck(ahead, () => sunsetAt);
    expect(after.ok).toBe(false);
    expect(after.detail).toMatch(/has passed: expected 410 gone, got 501 /);
  });
});

describe("--write, only where asked", () => {
  it("adds one create and finds it in the list, leaving one named category", async () => {
    const before = await categories();
    const { code, out } = await runSmoke([server.baseUrl, "--write"], { env: server.apiKey });
    expect(code, out).toBe(0);
    expect(checksOf(out).some((line) => line.includes("creates a category (201)"))).toBe(true);
    expect(checksOf(out).some((line) => line.includes("lists the new category"))).toBe(true);
    const added = (await categories()).filter((c) => !before.some((b) => b.id === c.id));
    expect(added).toHaveLength(1);
    expect(added[0]?.name).toMatch(/^smoke-test \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});

describe("the key: from the environment or standard input, never argv, never printed", () => {
  it("reads the first line of standard input when PETSTORE_API_KEY is unset", async () => {
    const { code, out, err } = await runSmoke([server.baseUrl], { stdin: `${server.apiKey}\n` });
    expect(code, out + err).toBe(0);
    expect(out + err).not.toContain(server.apiKey);
  });

  it("refuses a key given as an argument, without echoing it", async () => {
    const { code, out, err } = await runSmoke([server.baseUrl, server.apiKey]);
    expect(code).toBe(2);
    expect(err).toContain("PETSTORE_API_KEY");
    expect(out + err).not.toContain(server.apiKey);
  });

  it("refuses a key given as its only argument, without echoing it", async () => {
    const { code, out, err } = await runSmoke([server.apiKey]);
    expect(code).toBe(2);
    expect(err).toMatch(/not an http\(s\) address. The API key is never an argument/);
    expect(out + err).not.toContain(server.apiKey);
  });

  it("says where the key comes from when there is none", async () => {
    const { code, err } = await runSmoke([server.baseUrl]);
    expect(code).toBe(2);
    expect(err).toMatch(/no API key: set PETSTORE_API_KEY, or pipe the key on standard input/);
  });
});

describe("npm run smoke", () => {
  it("fails, check by check, with a key the deployment does not accept", async () => {
    const before = await categories();
    const { code, out } = await runSmoke([server.baseUrl, "--write"], {
      env: "petstore_not-a-key-of-this-stage",
    });
    expect(code).toBe(1);
    expect(out).toMatch(/^FAIL {2}GET \/categories answers 200 .*401/m);
    expect(out).toMatch(/^FAIL {2}POST \/categories creates a category/m);
    // Route checks come first in the contract, so they still pass without a valid key.
    expect(out).toMatch(/^PASS {2}an unknown route answers 404/m);
    expect(out).toMatch(/^smoke: \d+ passed, [1-9]\d* failed$/m);
    expect(await categories()).toEqual(before);
  });
});

/** The one line on stderr a stop before the checks ends in, with its exit code. */
describe("what stops it before the checks: one line each, an exit code of its own", () => {
  const scratch = scratchDir("petstore-smoke-");
  const oneLine = (err: string): string[] => err.split("\n").filter((line) => line !== "");

  it("nothing answers at the address (connection refused): exit 4", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const { code, out, err } = await runSmoke([url], { env: "petstore_x" });
    expect(code).toBe(4);
    expect(oneLine(err)).toEqual([
      `smoke: nothing answers at ${url} (connection refused): is the server running (npm start), or the stage deployed?`,
    ]);
    expect(out).not.toMatch(/^(PASS|FAIL)/m);
  });

  it("an address without /v1: exit 3, before any check, and before asking for a key", async () => {
    const origin = new URL(server.baseUrl).origin;
    const { code, out, err } = await runSmoke([`${origin}/`]);
    expect(code).toBe(3);
    expect(oneLine(err)).toEqual([
      `smoke: ${origin}/ does not end in /v1: give the API's base address, e.g. ${origin}/v1 (the stack output BaseUrl ends so)`,
    ]);
    expect(out).toBe("");
  });

  it("no target: exit 2, saying what to give", async () => {
    const { code, err } = await runSmoke([], { env: "petstore_x" });
    expect(code).toBe(2);
    expect(oneLine(err)).toEqual([
      "smoke: no target: give the base address (e.g. http://127.0.0.1:3000/v1) or --stage staging|production (npm run smoke -- --help)",
    ]);
  });

  it("--stage without the SAM CLI: exit 5, naming it", async () => {
    const empty = mkdtempSync(join(scratch, "bin-"));
    const { code, err } = await runSmoke(["--stage", "staging"], {
      env: "petstore_x",
      path: empty,
    });
    expect(code).toBe(5);
    expect(oneLine(err)).toEqual([
      expect.stringMatching(
        /^smoke: --stage reads the stage's BaseUrl with the AWS SAM CLI \(`sam`\), which is not on PATH: install it \(https:.*\), or give the base address instead$/,
      ),
    ]);
  });

  it("--stage when the stack cannot be read: exit 6, with SAM's reason", async () => {
    const bin = mkdtempSync(join(scratch, "bin-"));
    const said = "Error: Stack with id petstore-staging does not exist";
    writeFileSync(join(bin, "sam"), `#!/bin/sh\necho '${said}' >&2\nexit 1\n`);
    chmodSync(join(bin, "sam"), 0o755);
    const { code, err } = await runSmoke(["--stage", "staging"], { env: "petstore_x", path: bin });
    expect(code).toBe(6);
    expect(oneLine(err)).toEqual([
      `smoke: could not read the BaseUrl output of petstore-staging (sam list stack-outputs --stack-name petstore-staging --region eu-west-1): ${said}. Is it deployed (npm run deploy -- staging), and is AWS_PROFILE your staging profile?`,
    ]);
  });

  it.each([
    [["not a url"]],
    [["ftp://x/v1"]],
    [["http://127.0.0.1:1/v1", "--stage", "staging"]],
    [["--stage", "dev"]],
    [["http://127.0.0.1:1/v1", "--write", "--read-only"]],
  ])("refuses usage %j in one line: exit 2", async (args) => {
    const { code, err } = await runSmoke(args, { env: "petstore_x" });
    expect(code).toBe(2);
    expect(oneLine(err)).toEqual([expect.stringMatching(/^smoke: .*\(npm run smoke -- --help\)$/)]);
  });
});
