import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sampleApiKey } from "../../local/functionEnv.ts";
import { projectRoot } from "../../local/template.ts";

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `npm run invoke -- ...` as package.json runs it, on the Node that runs vitest (24). */
function invoke(...args: string[]): Run {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.DYNAMODB_ENDPOINT;
  delete env.PETSTORE_API_KEY;
  const run = spawnSync(
    process.execPath,
    ["--enable-source-maps", resolve(projectRoot, "scripts/invoke.ts"), ...args],
    { cwd: projectRoot, env, encoding: "utf8", timeout: 60_000 },
  );
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The pretty-printed result: everything from the first line that is just "{". */
function printedResult(stdout: string): Record<string, unknown> {
  const start = stdout.indexOf("\n{\n");
  return JSON.parse(start === -1 ? stdout : stdout.slice(start + 1)) as Record<string, unknown>;
}

const scratch = mkdtempSync(join(tmpdir(), "invoke-test-"));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

describe("npm run invoke runs a built function on a sample event like sam local invoke", () => {
  it("invokes createCategory on create-ok.json: the log line, then the 201 result; exit 0", () => {
    const run = invoke("createCategory", "events/create-ok.json");
    expect(run.status, run.stderr).toBe(0);
    const [logLine = ""] = run.stdout.split("\n");
    expect(JSON.parse(logLine)).toMatchObject({ route: "POST /v1/categories", status: 201 });
    const result = printedResult(run.stdout);
    expect(result.statusCode).toBe(201);
    expect(JSON.parse(result.body as string)).toMatchObject({ id: 1, name: "Rabbits" });
    expect(run.stdout).not.toContain(sampleApiKey);
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

  it("exits 1 with Lambda's errorType and errorMessage when the handler throws", () => {
    const file = join(scratch, "not-an-api-gateway-event.json");
    // null is no event at all: even the request log cannot read it, so the invocation fails.
    writeFileSync(file, "null");
    const run = invoke("listCategories", file);
    expect(run.status).toBe(1);
    const report = printedResult(run.stdout);
    expect(Object.keys(report)).toEqual(["errorType", "errorMessage", "trace"]);
    expect(report.errorType).toBe("TypeError");
    expect(typeof report.errorMessage).toBe("string");
  });

  it.each([
    { why: "no arguments", args: [] },
    { why: "an unknown function", args: ["deleteCategory", "events/list-ok.json"] },
    { why: "a missing event file", args: ["listCategories", "events/no-such-event.json"] },
    { why: "a bad --seed", args: ["listCategories", "events/list-ok.json", "--seed", "many"] },
  ])("exits 2 with the usage on $why", ({ args }) => {
    const run = invoke(...args);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^usage: npm run invoke/m);
    expect(run.stdout).toBe("");
  });
});
