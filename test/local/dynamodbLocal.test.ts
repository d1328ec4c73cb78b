/** DynamoDB Local as a child process: it answers, and it never outlives the process that owns it. */
import { spawn } from "node:child_process";
import { connect } from "node:net";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { findJava, startDynamodbLocal } from "../../local/dynamodbLocal.ts";
import { localClient } from "../../local/embeddedDynamo.ts";
import { projectRoot } from "../../local/template.ts";
import { soon } from "../support/dynamo.ts";

const javaMissing = findJava() === undefined;
if (javaMissing) {
  console.warn("SKIPPED: DynamoDB Local: no java (apt-get install -y openjdk-17-jre-headless)");
}

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

describe.skipIf(javaMissing)("DynamoDB Local runs as a child process owned by its starter", () => {
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
