import { execFile, spawnSync } from "node:child_process";
import { promisify } from "node:util";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ApiKeyStore, hashApiKey } from "../../lib/repositories/apiKeys.ts";
import { sampleApiKey } from "../../local/functionEnv.ts";
import { localTableName } from "../../local/localKeys.ts";
import { projectRoot } from "../../local/template.ts";
import { useEmbeddedDynamo } from "../support/dynamo.ts";
import { scratchDir } from "../support/scratchDir.ts";

const store = useEmbeddedDynamo();

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const invoke = (...args: string[]): Run => invokeWith({}, ...args);

/** `npm run invoke -- ...` as package.json runs it, on the Node that runs vitest (24). */
function invokeWith(extraEnv: Record<string, string>, ...args: string[]): Run {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.DYNAMODB_ENDPOINT;
  delete env.PETSTORE_API_KEY;
  const run = spawnSync(
    process.execPath,
    ["--enable-source-maps", resolve(projectRoot, "scripts/invoke.ts"), ...args],
    { cwd: projectRoot, env: { ...env, ...extraEnv }, encoding: "utf8", timeout: 60_000 },
  );
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The printed result: stdout holds it alone, as `sam local invoke` prints it. */
function printedResult(stdout: string): Record<string, unknown> {
  return JSON.parse(stdout) as Record<string, unknown>;
}

const scratch = scratchDir("invoke-test-");

/** The JSON lines on stderr: Lambda's platform lines and the function's own. */
function logLines(stderr: string): Record<string, unknown>[] {
  return stderr
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("npm run invoke runs a built function on a sample event like sam local invoke", () => {
  it("invokes createCategory on create-ok.json: INIT_START, START, the log line, END, REPORT on stderr, the 201 result alone on stdout; exit 0", () => {
    const run = invoke("createCategory", "events/create-ok.json");
    expect(run.status, run.stderr).toBe(0);
    const lines = logLines(run.stderr).filter((line) => !("_aws" in line));
    expect(lines.map((line) => line.type)).toEqual([
      "platform.initStart",
      "platform.start",
      undefined,
      "platform.runtimeDone",
      "platform.report",
    ]);
    expect(lines[2]).toMatchObject({ route: "POST /v1/categories", status: 201 });
    // One cold invocation: INIT_START before it, and its REPORT carries the Init Duration.
    const report = lines[4] as { record: { status: string; metrics: Record<string, number> } };
    expect(report.record.status).toBe("success");
    expect(report.record.metrics.memorySizeMB).toBe(1024);
    expect(report.record.metrics.initDurationMs).toBeGreaterThan(0);
    const result = printedResult(run.stdout);
    expect(result.statusCode).toBe(201);
    expect(JSON.parse(result.body as string)).toMatchObject({ id: 1, name: "Rabbits" });
    expect(run.stdout + run.stderr).not.toContain(sampleApiKey);
  });

  it("finds a function by its template logical id and seeds categories on request", () => {
    const run = invoke("ListCategoriesFunction", "events/list-gzip.json", "--seed", "30");
    expect(run.status, run.stderr).toBe(0);
    const result = printedResult(run.stdout);
    expect(result.statusCode).toBe(200);
    expect(result.isBase64Encoded).toBe(true);
    expect((result.headers as Record<string, string>)["content-encoding"]).toBe("br");
    // The decoded list goes to stderr as a note; the printed result stays as Lambda returned it.
    expect(run.stderr).toMatch(/br-compressed/);
    expect(run.stderr).toContain('{"id":1,"name":"Seeded category 1"');
  });

  it("exits 1 with Lambda's errorType and errorMessage when the function fails", () => {
    // A setting out of range fails the function's init, which Lambda reports like a throw.
    const run = invokeWith(
      { STORE_ATTEMPT_TIMEOUT_MS: "1" },
      "listCategories",
      "events/list-ok.json",
    );
    expect(run.status).toBe(1);
    const report = printedResult(run.stdout);
    expect(Object.keys(report)).toEqual(["errorType", "errorMessage", "trace"]);
    expect(report.errorType).toBe("ConfigError");
    expect(report.errorMessage).toMatch(/STORE_ATTEMPT_TIMEOUT_MS/);
    // The runtime's own ERROR line names the type too, in the minified bundle.
    const logged = logLines(run.stderr).find((line) => line.level === "ERROR");
    expect(logged?.message).toMatchObject({ errorType: "ConfigError" });
  });

  it("gives the function the local store's settings whatever the shell has set", () => {
    const run = invokeWith({ TABLE_NAME: "not-this-one" }, "listCategories", "events/list-ok.json");
    expect(run.status, run.stderr).toBe(0);
    expect(printedResult(run.stdout).statusCode).toBe(200);
  });

  it("--warm 2 starts two containers first, then invokes one of them warm (no Init Duration)", () => {
    const run = invoke("listCategories", "events/list-ok.json", "--warm", "2");
    expect(run.status, run.stderr).toBe(0);
    const lines = logLines(run.stderr);
    expect(lines.filter((line) => line.type === "platform.initReport")).toHaveLength(2);
    const reports = lines.filter((line) => line.type === "platform.report");
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ record: { status: "success" } });
    expect(reports[0]?.record).not.toHaveProperty("metrics.initDurationMs");
  });

  // --help and an unknown option: test/docs/readme.test.ts, for every command the README lists.
  it.each([
    ["null", /it is not a JSON object/],
    ['{"httpMethod":"GET","path":"/v1/categories"}', /it has no "version": "2.0"/],
    ['{"version":"2.0","routeKey":"GET /v1/categories"}', /it has no "rawPath"/],
  ])("refuses %s before invoking: not an API Gateway HTTP API event (exit 2)", (text, why) => {
    const file = join(scratch, "not-an-event.json");
    writeFileSync(file, text);
    const run = invoke("listCategories", file);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/is not an API Gateway HTTP API \(payload 2\.0\) event/);
    expect(run.stderr).toMatch(why);
    expect(run.stdout).toBe("");
  });

  it("warns when the event is for a route the function does not serve, then invokes", () => {
    const run = invoke("listCategories", "events/create-ok.json");
    expect(run.stderr).toMatch(
      /^warning: the event is for route "POST \/v1\/categories", which listCategories does not serve/m,
    );
    expect(run.status).toBe(0);
  });

  it.each([
    { why: "no arguments", args: [] },
    { why: "an unknown function", args: ["deleteCategory", "events/list-ok.json"] },
    {
      why: "the pre-traffic hook, behind no route",
      args: ["preTrafficHook", "events/list-ok.json"],
    },
    { why: "a missing event file", args: ["listCategories", "events/no-such-event.json"] },
    { why: "a bad --seed", args: ["listCategories", "events/list-ok.json", "--seed", "many"] },
    {
      why: "a --seed past its bound",
      args: ["listCategories", "events/list-ok.json", "--seed", "100001"],
    },
    { why: "a bad --warm", args: ["listCategories", "events/list-ok.json", "--warm", "-1"] },
  ])("exits 2 with one line naming itself and its --help on $why", ({ args }) => {
    const run = invoke(...args);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^invoke: [^\n]+\(npm run invoke -- --help\)\n$/);
    expect(run.stdout).toBe("");
  });

  it("exits 2 naming the limit when --warm is above the function's concurrency, as npm start does", () => {
    const run = invoke("listCategories", "events/list-ok.json", "--warm", "11");
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      "invoke: --warm 11 is more than the concurrency of listCategories (10): warm at most 10\n",
    );
    expect(run.stdout).toBe("");
  });
});

describe("on a store that outlives the run (DYNAMODB_ENDPOINT), the key it registers is said and attributed", () => {
  it("says so once on stderr, with how to revoke it; the key history names the OS user", async () => {
    // Not spawnSync: the store answers from this process.
    const run = () =>
      promisify(execFile)(
        process.execPath,
        [resolve(projectRoot, "scripts/invoke.ts"), "listCategories", "events/list-ok.json"],
        { cwd: projectRoot, env: { ...process.env, DYNAMODB_ENDPOINT: store.endpoint } },
      );
    const first = await run();
    expect(first.stderr).toMatch(
      /^invoke: registered the sample events' public key as (key_\w+) in the store at http:\/\/\S+; it stays valid there until revoked \(npm run keys -- revoke \1, with the same DYNAMODB_ENDPOINT\)$/m,
    );
    const record = await new ApiKeyStore(store.db, localTableName).find(
      hashApiKey(sampleApiKey),
      Date.now() + 5000,
    );
    expect(record?.createdBy).toMatch(/ \(npm run invoke\)$/);
    expect(record?.createdBy).not.toMatch(/^unattributed/);
    expect((await run()).stderr).not.toMatch(/registered/);
  });
});
