/**
 * DynamoDB Local as a child process: it answers, it never outlives the process that owns it, and
 * `npm start -- --dynamodb-local` serves the API from it.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startDynamodbLocal } from "../../local/dynamodbLocal.ts";
import { localClient } from "../../local/embeddedDynamo.ts";
import { endpointFile, localTableName } from "../../local/localKeys.ts";
import { projectRoot } from "../../local/template.ts";
import { send } from "../support/client.ts";
import { javaMissing, soon } from "../support/dynamo.ts";
import { skipWithout } from "../support/missingTool.ts";

const root = mkdtempSync(join(tmpdir(), "petstore-dynamodb-local-"));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

/** True once nothing listens on the endpoint's port any more (polls up to `ms`). */
async function goesAway(endpoint: string, ms: number): Promise<boolean> {
  const port = Number(new URL(endpoint).port);
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const listening = await new Promise<boolean>((done) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.destroy();
        done(true);
      });
      socket.on("error", () => {
        done(false);
      });
    });
    if (!listening) return true;
    await new Promise((wait) => setTimeout(wait, 100));
  }
  return false;
}

describe("DynamoDB Local runs as a child process owned by its starter", () => {
  skipWithout(javaMissing);
  it("answers the DynamoDB API on the endpoint it reports, and is gone after close", async () => {
    const dynamo = await startDynamodbLocal();
    const db = localClient(dynamo.endpoint);
    try {
      expect(await db.call("ListTables", {}, soon())).toEqual({ TableNames: [] });
    } finally {
      db.close();
      await dynamo.close();
    }
    expect(await goesAway(dynamo.endpoint, 1000)).toBe(true);
  });

  it("stops when its owner is killed outright (SIGKILL), leaving no JVM behind", async () => {
    const owner = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const { startDynamodbLocal } = await import(${JSON.stringify(resolve(projectRoot, "local/dynamodbLocal.ts"))});
         console.log((await startDynamodbLocal()).endpoint);`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const endpoint = await new Promise<string>((done, fail) => {
      owner.stdout.setEncoding("utf8").once("data", (line: string) => {
        done(line.trim());
      });
      owner.once("exit", (code) => {
        fail(new Error(`the owner exited (${String(code)}) before DynamoDB Local was ready`));
      });
    });
    expect(await goesAway(endpoint, 0)).toBe(false);
    owner.kill("SIGKILL");
    expect(await goesAway(endpoint, 15_000)).toBe(true);
  });
});

/** `npm start` (scripts/start.ts) with these arguments: its banner, or how it ended. */
function start(env: Record<string, string>, ...args: string[]) {
  const child = spawn(process.execPath, [resolve(projectRoot, "scripts/start.ts"), ...args], {
    cwd: projectRoot,
    env: { ...process.env, PORT: "0", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const outcome = new Promise<{ baseUrl?: string; apiKey?: string; status?: number | null }>(
    (done) => {
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
        const baseUrl = /at (http:\/\/\S+\/v1)/.exec(stderr)?.[1];
        const apiKey = /API key: (\S+)/.exec(stderr)?.[1];
        if (baseUrl && apiKey) done({ baseUrl, apiKey });
      });
      child.once("exit", (status) => {
        done({ status });
      });
    },
  );
  const stop = (): Promise<void> =>
    child.exitCode === null
      ? new Promise((done) => {
          child.once("exit", () => {
            done();
          });
          child.kill("SIGTERM");
        })
      : Promise.resolve();
  return { outcome, stop, stderr: () => stderr };
}

describe("npm start -- --dynamodb-local serves the API from DynamoDB Local", () => {
  skipWithout(javaMissing);
  it("persisted in DATA_DIR", async () => {
    const dataDir = join(root, "persisted");
    const server = start({ DATA_DIR: dataDir }, "--dynamodb-local");
    try {
      const { baseUrl, apiKey } = await server.outcome;
      expect(baseUrl, server.stderr()).toBeDefined();
      const created = await send(baseUrl ?? "", {
        method: "POST",
        path: "/v1/categories",
        key: apiKey ?? "",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "Dogs" }),
      });
      expect(created.status).toBe(201);
      // DynamoDB Local names its region "ddblocal" in table ARNs; dynalite would say us-east-1.
      const db = localClient(readFileSync(endpointFile(dataDir), "utf8").trim());
      const described = await db
        .call<{ Table?: { TableArn?: string } }>(
          "DescribeTable",
          { TableName: localTableName },
          soon(),
        )
        .finally(() => {
          db.close();
        });
      expect(described.Table?.TableArn).toMatch(/:ddblocal:/);
    } finally {
      await server.stop();
    }
    expect(readdirSync(dataDir).some((name) => name.endsWith(".db"))).toBe(true);
    expect(existsSync(join(dataDir, "CURRENT"))).toBe(false); // no LevelDB (dynalite) there
  });
});

describe("npm start refuses a store it cannot run, in one line", () => {
  it("refuses an unknown PETSTORE_STORE in one line", async () => {
    const server = start({ PETSTORE_STORE: "dynamo" }, "--memory");
    expect((await server.outcome).status).toBe(2);
    expect(server.stderr().trim()).toBe(
      'npm start: PETSTORE_STORE must be dynalite or dynamodb-local, not "dynamo"',
    );
  });

  it("says in one line how to install Java when there is none", async () => {
    const server = start(
      { PATH: join(root, "no-java"), JAVA_HOME: "" },
      "--memory",
      "--dynamodb-local",
    );
    expect((await server.outcome).status).toBe(2);
    expect(server.stderr().trim().split("\n")).toHaveLength(1);
    expect(server.stderr()).toMatch(/Java 17.*apt-get install -y openjdk-17-jre-headless/);
  });
});
