/**
 * What only shows with two containers of one function, on the local runtime (local/functionPool.ts)
 * with the real bundles over the embedded store: each container has its own key cache, rate
 * limiter and list cache, and the service must behave as one all the same. Two invocations sent
 * at once to a pool of two idle containers run one in each (a pool never runs two in one).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DynamoDb } from "../../lib/dynamodb.ts";
import { ApiKeyStore } from "../../lib/repositories/apiKeys.ts";
import type { EmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import { ensureTable, localClient, startEmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import { localFunctionEnv } from "../../local/functionEnv.ts";
import { FunctionPool } from "../../local/functionPool.ts";
import type { Outcome } from "../../local/functionPool.ts";
import { functionsOf, templateFunctionEnv } from "../../local/template.ts";
import { loadEvent } from "../functions/harness.ts";

const tableName = "petstore-containers";
/** How long a container may keep a revoked key (API_KEY_CACHE_SECONDS, the promise). */
const keyCacheSeconds = 1;

let dynamo: EmbeddedDynamo;
let db: DynamoDb;
let keys: ApiKeyStore;
let list: FunctionPool;
let create: FunctionPool;

beforeAll(async () => {
  dynamo = await startEmbeddedDynamo();
  db = localClient(dynamo.endpoint);
  await ensureTable(db, tableName);
  keys = new ApiKeyStore(db, tableName);
  const poolOf = (name: string): FunctionPool => {
    const spec = functionsOf().find((candidate) => candidate.name === name);
    if (!spec) throw new Error(`no ${name} in infra/template.yaml`);
    const env = {
      ...templateFunctionEnv(spec.logicalId).defaults,
      ...localFunctionEnv(dynamo.endpoint, tableName),
      API_KEY_CACHE_SECONDS: String(keyCacheSeconds),
    };
    return new FunctionPool(spec, env, {
      output: { stdout: () => undefined, stderr: () => undefined },
    });
  };
  list = poolOf("listCategories");
  create = poolOf("createCategory");
});

afterAll(async () => {
  await Promise.all([list.close(), create.close()]);
  db.close();
  await dynamo.close();
});

interface Answer {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly container: number | undefined;
}

function eventWith(file: string, apiKey: string): unknown {
  const event = loadEvent(file);
  return { ...event, headers: { ...event.headers, authorization: `Bearer ${apiKey}` } };
}

function answerOf(outcome: Outcome): Answer {
  if (!outcome.ok) throw new Error(`${outcome.error.name}: ${outcome.error.message}`);
  const result = outcome.result as Omit<Answer, "container">;
  return { ...result, container: outcome.report?.containerId };
}

/** The same request in two containers at once: one answer from each. */
async function fromBoth(pool: FunctionPool, event: unknown): Promise<[Answer, Answer]> {
  const [a, b] = await Promise.all([pool.invoke(event), pool.invoke(event)]);
  const answers: [Answer, Answer] = [answerOf(a), answerOf(b)];
  expect(answers[0].container).not.toBe(answers[1].container);
  return answers;
}

async function newKey(rateLimit?: {
  rate: string;
  burst: number;
}): Promise<{ apiKey: string; keyId: string }> {
  const issued = await keys.issue("containers test", Date.now() + 5000, { rateLimit });
  return { apiKey: issued.apiKey, keyId: issued.record.keyId };
}

describe("two containers of one function", () => {
  it("run two invocations at once, one in each", async () => {
    const { apiKey } = await newKey();
    const [a, b] = await Promise.all([
      list.invoke(eventWith("list-ok.json", apiKey)),
      list.invoke(eventWith("list-ok.json", apiKey)),
    ]);
    expect(new Set([a.report?.containerId, b.report?.containerId]).size).toBe(2);
    expect(list.size).toBe(2);
    expect([a.ok, b.ok]).toEqual([true, true]);
  });
});

describe("read-your-writes across containers, and one ETag", () => {
  it("a category created in one function is listed by both list containers, with the same ETag", async () => {
    const { apiKey } = await newKey();
    const before = await fromBoth(list, eventWith("list-ok.json", apiKey));
    const created = answerOf(await create.invoke(eventWith("create-ok.json", apiKey)));
    expect(created.statusCode).toBe(201);
    const { id } = JSON.parse(created.body) as { id: number };
    const after = await fromBoth(list, eventWith("list-ok.json", apiKey));
    for (const answer of after) {
      expect(answer.statusCode).toBe(200);
      expect(
        (JSON.parse(answer.body) as { id: number }[]).map((category) => category.id),
      ).toContain(id);
    }
    expect(after[0].headers.etag).toBeDefined();
    expect(after[0].headers.etag).toBe(after[1].headers.etag);
    expect(after[0].headers.etag).not.toBe(before[0].headers.etag);
    expect(before[0].headers.etag).toBe(before[1].headers.etag);
  });
});

describe("a revoked key is refused by every container within API_KEY_CACHE_SECONDS", () => {
  it("both containers, having admitted the key, refuse it within the promised time", async () => {
    const { apiKey, keyId } = await newKey();
    const event = eventWith("list-ok.json", apiKey);
    expect((await fromBoth(list, event)).map((answer) => answer.statusCode)).toEqual([200, 200]);
    const revokedAt = Date.now();
    await keys.revoke(keyId, revokedAt + 5000);
    let answers = await fromBoth(list, event);
    while (answers.some((answer) => answer.statusCode !== 401) && Date.now() - revokedAt < 10_000) {
      await new Promise((done) => setTimeout(done, 100));
      answers = await fromBoth(list, event);
    }
    expect(answers.map((answer) => answer.statusCode)).toEqual([401, 401]);
    // The cache's promise, plus the time of the last round of requests it took to see it.
    expect(Date.now() - revokedAt).toBeLessThan(keyCacheSeconds * 1000 + 1500);
  });
});

describe("the rate limit is the key's, shared by every container", () => {
  it("admits the burst once across two containers, not once per container", async () => {
    const burst = 3;
    const { apiKey } = await newKey({ rate: "1/min", burst });
    const event = eventWith("list-ok.json", apiKey);
    const statuses: number[] = [];
    for (let round = 0; round < 4; round++) {
      statuses.push(...(await fromBoth(list, event)).map((answer) => answer.statusCode));
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(burst);
    expect(statuses.filter((status) => status === 429)).toHaveLength(8 - burst);
  });
});
