/**
 * `npm run keys -- --stage <stage>`: the stage's table through the operator's AWS credentials
 * (the SDK's provider chain), and the audit's "who" from STS GetCallerIdentity. Here the stage's
 * DynamoDB is the embedded store and STS a local stand-in, both reached through the SDK's own
 * endpoint variables, as a VPC endpoint would be.
 */
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { keyPattern } from "../../lib/keyFormat.ts";
import { ensureTable } from "../../local/embeddedDynamo.ts";
import { stageBudgetMs, stageTarget } from "../../scripts/keyTargets.ts";
import { soon, useEmbeddedDynamo } from "../support/dynamo.ts";
import { keysCommandAsync } from "../support/keysCli.ts";
import { closedPort, listening } from "../local/processes.ts";

const store = useEmbeddedDynamo();
/** The command's data folder: unused by a stage, which has its own table. */
const home = tmpdir();
const operatorArn = "arn:aws:sts::123456789012:assumed-role/operators/alice";
const accessKeyId = "AKIDOPERATOR";
const secretAccessKey = "operator-secret-never-sent";

/** What the STS stand-in saw of each call. */
let stsCalls: { authorization: string; body: string }[] = [];
let stsUrl: string;
let closeSts: () => Promise<void>;

beforeAll(async () => {
  await ensureTable(store.db, "petstore-staging");
  const sts = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      stsCalls.push({ authorization: request.headers.authorization ?? "", body });
      response.writeHead(200, { "content-type": "text/xml" });
      response.end(
        `<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">` +
          `<GetCallerIdentityResult><Arn>${operatorArn}</Arn><UserId>AROAOPERATOR:alice</UserId>` +
          `<Account>123456789012</Account></GetCallerIdentityResult>` +
          `<ResponseMetadata><RequestId>sts-1</RequestId></ResponseMetadata>` +
          `</GetCallerIdentityResponse>`,
      );
    });
  });
  const { port, close } = await listening(sts);
  stsUrl = `http://127.0.0.1:${port}`;
  closeSts = close;
});

afterAll(() => closeSts());

beforeEach(() => {
  stsCalls = [];
  // The SDK's provider chain reads the process environment, as it does on an operator's machine.
  vi.stubEnv("AWS_ACCESS_KEY_ID", accessKeyId);
  vi.stubEnv("AWS_SECRET_ACCESS_KEY", secretAccessKey);
  vi.stubEnv("AWS_PROFILE", "");
});

afterEach(() => {
  vi.unstubAllEnvs();
});

const closedPortUrl = async (): Promise<string> => `http://127.0.0.1:${await closedPort()}`;

const envWith = (sts: string): NodeJS.ProcessEnv => ({
  AWS_ENDPOINT_URL_DYNAMODB: store.endpoint,
  AWS_ENDPOINT_URL_STS: sts,
});

describe("a stage's keys are managed in its own table, signed with the operator's credentials", () => {
  it("issues a key of the stage's format into petstore-<stage>", async () => {
    const target = await stageTarget("staging", envWith(stsUrl));
    try {
      expect(target.where).toMatch(/^table petstore-staging in [a-z0-9-]+ \(staging\)$/);
      const { apiKey, record } = await target.keys.issue("partner", soon(), {
        stage: target.keyStage,
      });
      expect(keyPattern.exec(apiKey)?.[1]).toBe("staging");
      expect(await target.keys.byId(record.keyId, soon())).toEqual(record);
    } finally {
      await target.close();
    }
  });
});

describe("the audit names who made a change: the operator's AWS identity", () => {
  it("is the ARN STS answers, asked once with a SigV4 signature of the operator's key", async () => {
    const target = await stageTarget("staging", envWith(stsUrl));
    try {
      expect(await target.who()).toBe(operatorArn);
    } finally {
      await target.close();
    }
    expect(stsCalls).toHaveLength(1);
    const [call] = stsCalls;
    expect(call?.body).toContain("Action=GetCallerIdentity");
    expect(call?.authorization).toMatch(
      new RegExp(`^AWS4-HMAC-SHA256 Credential=${accessKeyId}/\\d{8}/[a-z0-9-]+/sts/aws4_request`),
    );
    expect(JSON.stringify(stsCalls)).not.toContain(secretAccessKey);
  });

  it("is unknown when STS refuses the connection", async () => {
    const target = await stageTarget("staging", envWith(await closedPortUrl()));
    try {
      expect(await target.who()).toBeUndefined();
      expect(target.unknownWho).toBe("aws:unknown");
    } finally {
      await target.close();
    }
  });

  it("is unknown within the stage budget when STS takes the call and never answers", async () => {
    const silent = createServer(() => undefined);
    const { port, close } = await listening(silent);
    const url = `http://127.0.0.1:${port}`;
    const target = await stageTarget("staging", envWith(url));
    try {
      const started = Date.now();
      expect(await target.who()).toBeUndefined();
      const waited = Date.now() - started;
      expect(waited).toBeGreaterThanOrEqual(stageBudgetMs / 2 - 50);
      expect(waited).toBeLessThan(stageBudgetMs);
    } finally {
      await target.close();
      silent.closeAllConnections();
      await close();
    }
  });
});

describe("who cannot be read: a revoke still proceeds, every other change is refused", () => {
  it("create, update and rotate end in one line and change nothing; revoke is recorded as aws:unknown", async () => {
    const noSts = await closedPortUrl();
    const target = await stageTarget("staging", envWith(stsUrl));
    const { record } = await target.keys.issue("partner", soon(), { stage: target.keyStage });
    const env = {
      ...envWith(noSts),
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: secretAccessKey,
      AWS_PROFILE: "",
    } as Record<string, string>;
    const run = (...args: string[]) => keysCommandAsync(home, env, ...args, "--stage", "staging");
    try {
      const before = await target.keys.list(soon());
      for (const args of [
        ["create", "--label", "x"],
        ["update", record.keyId, "--scope", "categories:read"],
        ["rotate", record.keyId],
      ]) {
        const refused = await run(...args);
        expect(refused.status, args.join(" ")).toBe(1);
        expect(refused.stdout, args.join(" ")).toBe("");
        expect(refused.stderr.trim().split("\n"), args.join(" ")).toHaveLength(1);
        expect(refused.stderr).toMatch(/^keys: \w+ refused: who you are could not be read/);
      }
      expect(await target.keys.list(soon())).toEqual(before);
      const revoked = await run("revoke", record.keyId);
      expect(revoked.status).toBe(0);
      expect((await target.keys.byId(record.keyId, soon()))?.revokedAt).toBeDefined();
      const trail = await target.events.list(record.keyId, soon());
      expect(trail.map((event) => [event.event, event.who])).toEqual([
        ["create", "unattributed"],
        ["revoke", "aws:unknown"],
      ]);
    } finally {
      await target.close();
    }
  });
});
