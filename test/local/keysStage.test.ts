/**
 * `npm run keys -- … --stage <stage>` when AWS is out of reach: no credentials, credentials AWS
 * refuses, no network, no table. Each ends in one line saying what to check, exit 1, within
 * seconds. AWS itself is replaced by the SDK's own endpoint variable (AWS_ENDPOINT_URL_DYNAMODB)
 * pointing at a closed port, a silent socket, a fake refusing the signature, or the embedded
 * store (which has no petstore-staging table).
 */
import { writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startEmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import { scratchDir } from "../support/scratchDir.ts";
import { scaled } from "../support/speed.ts";
import type { Exit } from "./processes.ts";
import { closedPort, listening, runScript } from "./processes.ts";

const home = scratchDir("petstore-keys-stage-");

/** An environment with no AWS settings at all but those given (no profile, no files, no IMDS). */
function awsEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("AWS_")),
  );
  return {
    ...env,
    HOME: home,
    AWS_CONFIG_FILE: join(home, "no-config"),
    AWS_SHARED_CREDENTIALS_FILE: join(home, "no-credentials"),
    AWS_EC2_METADATA_DISABLED: "true",
    ...extra,
  };
}

const fakeCredentials = { AWS_ACCESS_KEY_ID: "AKIAFAKEFAKEFAKE", AWS_SECRET_ACCESS_KEY: "fake" };

/** `npm run keys -- list --stage staging` with `awsEnv(extra)`. */
const listStaging = (extra: Record<string, string>): Promise<Exit> =>
  runScript("scripts/keys.ts", ["list", "--stage", "staging"], awsEnv(extra), scaled(30_000));

function expectOneLine(exit: Exit, message: RegExp): void {
  expect(exit.status).toBe(1);
  expect(exit.stdout).toBe("");
  expect(exit.stderr).toMatch(message);
  expect(exit.stderr.trim().split("\n")).toHaveLength(1);
  // Within "a few seconds": the command's own budget is 5 s; the rest is Node starting up, which
  // takes longer on a busy machine (test/support/speed.ts).
  expect(exit.ms).toBeLessThan(5_000 + scaled(7_000));
}

// Side by side: each case is a child process, most of them waiting out the command's 5 s budget.
describe.concurrent("keys against a stage out of reach: one line, exit 1, within seconds", () => {
  it.each([
    ["list", "--stage", "staging"],
    ["create", "--label", "x", "--stage", "staging"],
    ["revoke", "key_0123abcd4567", "--stage", "staging"],
  ])("no credentials: names AWS_PROFILE and aws sso login (%s)", async (...args) => {
    const exit = await runScript("scripts/keys.ts", args, awsEnv({}), scaled(30_000));
    expectOneLine(exit, /^keys: no AWS credentials for staging .*AWS_PROFILE.*aws sso login/);
  });

  it("a profile that does not exist: says that profile is missing, and where it looked", async () => {
    writeFileSync(join(home, "config"), "[profile petstore-staging]\nregion = eu-west-1\n");
    const exit = await listStaging({
      AWS_PROFILE: "petstore-nope",
      AWS_CONFIG_FILE: join(home, "config"),
    });
    expectOneLine(
      exit,
      new RegExp(
        `^keys: AWS_PROFILE is "petstore-nope", a profile in neither ${join(home, "config")} nor ${join(home, "no-credentials")}: check the name \\(aws configure list-profiles\\) or create it \\(aws configure sso --profile petstore-nope\\)$`,
        "m",
      ),
    );
  });

  it("a profile that exists is used (no missing-profile message)", async () => {
    writeFileSync(
      join(home, "credentials"),
      "[petstore-ci]\naws_access_key_id = AKIAFAKEFAKEFAKE\naws_secret_access_key = fake\n",
    );
    const endpoint = `http://127.0.0.1:${await closedPort()}`;
    const exit = await listStaging({
      AWS_PROFILE: "petstore-ci",
      AWS_SHARED_CREDENTIALS_FILE: join(home, "credentials"),
      AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    });
    expectOneLine(exit, /^keys: DynamoDB in eu-west-1 did not answer within 5 s/);
  });

  it("no network (a closed port): check the network and the region", async () => {
    const endpoint = `http://127.0.0.1:${await closedPort()}`;
    const exit = await listStaging({ ...fakeCredentials, AWS_ENDPOINT_URL_DYNAMODB: endpoint });
    expectOneLine(
      exit,
      /^keys: DynamoDB in eu-west-1 did not answer within 5 s: check your network/,
    );
  });

  it("an endpoint that accepts and never answers: the same, no longer", async () => {
    const { port, close } = await listening(createServer(() => undefined));
    try {
      const exit = await listStaging({
        ...fakeCredentials,
        AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${port}`,
      });
      expectOneLine(exit, /^keys: DynamoDB in eu-west-1 did not answer within 5 s/);
    } finally {
      void close();
    }
  });

  it("credentials AWS refuses: aws sso login", async () => {
    const refusing = createHttpServer((_, response) => {
      response.writeHead(400, { "content-type": "application/x-amz-json-1.0" });
      response.end(
        JSON.stringify({
          __type: "com.amazon.coral.service#UnrecognizedClientException",
          message: "The security token included in the request is invalid.",
        }),
      );
    });
    const { port, close } = await listening(refusing);
    try {
      const exit = await listStaging({
        ...fakeCredentials,
        AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${port}`,
      });
      expectOneLine(
        exit,
        /^keys: AWS refused the credentials \(UnrecognizedClientException\): run aws sso login/,
      );
    } finally {
      void close();
    }
  });

  it("no table for the stage in that account: deploy first, or check AWS_PROFILE", async () => {
    const store = await startEmbeddedDynamo();
    try {
      const exit = await listStaging({
        ...fakeCredentials,
        AWS_ENDPOINT_URL_DYNAMODB: store.endpoint,
      });
      expectOneLine(
        exit,
        /^keys: no table petstore-staging in eu-west-1 .*npm run deploy -- staging/,
      );
    } finally {
      await store.close();
    }
  });
});
