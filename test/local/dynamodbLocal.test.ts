/**
 * DynamoDB Local as a child process: it answers, it never outlives the process that owns it, and
 * `npm start -- --dynamodb-local` serves the API from it.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { connect } from "node:net";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { startDynamodbLocal } from "../../local/dynamodbLocal.ts";
import { localClient } from "../../local/embeddedDynamo.ts";
import { endpointFile, localTableName } from "../../local/localKeys.ts";
import { projectRoot } from "../../local/template.ts";
import { send } from "../support/client.ts";
import { javaMissing, soon } from "../support/dynamo.ts";
import { skipWithout } from "../support/missingTool.ts";
import { scratchDir } from "../support/scratchDir.ts";
import { runScript, serverScripts, until } from "./processes.ts";

const root = scratchDir("petstore-dynamodb-local-");
const serve = serverScripts();

/** True once nothing listens on the endpoint's port any more (polls up to `ms`). */
function goesAway(endpoint: string, ms: number): Promise<boolean> {
  const port = Number(new URL(endpoint).port);
  const refused = (): Promise<boolean> =>
    new Promise((done) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.destroy();
        done(false);
      });
      socket.on("error", () => {
        done(true);
      });
    });
  return until(refused, ms);
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

/** `npm start` (scripts/start.ts) with these arguments, expected to refuse. */
const refusal = (env: Record<string, string>, ...args: string[]) =>
  runScript("scripts/start.ts", args, { ...process.env, PORT: "0", ...env }, 60_000);

describe("npm start -- --dynamodb-local serves the API from DynamoDB Local", () => {
  skipWithout(javaMissing);
  it("persisted in DATA_DIR", async () => {
    const dataDir = join(root, "persisted");
    const server = await serve("scripts/start.ts", {
      args: ["--dynamodb-local"],
      env: { DATA_DIR: dataDir },
    });
    try {
      const created = await send(server.baseUrl, {
        method: "POST",
        path: "/v1/categories",
        key: server.apiKey,
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
    const exit = await refusal({ PETSTORE_STORE: "dynamo" }, "--memory");
    expect(exit.status).toBe(2);
    expect(exit.stderr.trim()).toBe(
      'npm start: PETSTORE_STORE must be dynalite or dynamodb-local, not "dynamo"',
    );
  });

  it("says in one line how to install Java when there is none", async () => {
    const exit = await refusal(
      { PATH: join(root, "no-java"), JAVA_HOME: "" },
      "--memory",
      "--dynamodb-local",
    );
    expect(exit.status).toBe(2);
    expect(exit.stderr.trim().split("\n")).toHaveLength(1);
    expect(exit.stderr).toMatch(/Java 17.*apt-get install -y openjdk-17-jre-headless/);
  });
});
