/**
 * Faults between taking an id and storing the category: the store applies a write and the answer
 * never arrives (the connection drops), during concurrent creates. A retried category write is
 * recognised, never stored twice; a retried counter update takes a fresh id, so ids may skip but
 * never repeat; and the list is exactly the set of 201s the client saw.
 *
 * `created` is the ledger of every 201 this file's tests saw, in whatever order they ran: the
 * store must list exactly those.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Answer, Category } from "../support/client.ts";
import { localTableName } from "../../local/localKeys.ts";
import { keys } from "../../lib/table/schema.ts";
import { Table } from "../../lib/table/table.ts";
import { soon } from "../support/dynamo.ts";
import { createCategory, inParallel, listCategories } from "../support/client.ts";
import type { FaultStack } from "../support/faultStack.ts";
import { expectConsistent, reportFigures, startFaultStack } from "../support/faultStack.ts";

let stack: FaultStack;
const created: Category[] = [];

beforeAll(async () => {
  stack = await startFaultStack();
});
afterAll(async () => {
  await reportFigures("lost responses", stack, created);
  await stack.stop();
});

const count = 40;
const concurrency = 8;
const lostEach = 10;
const indices = Array.from({ length: count }, (_, i) => i);

function lost(): number {
  return stack.proxy.injected.get("lost_response") ?? 0;
}

/** The counter, read around the proxy: the last id issued, and the list version (lib/categoryList/cache.ts). */
async function counter(): Promise<{ lastId: number; version: number }> {
  const item = await new Table(stack.db, localTableName).get(keys.counter("category"), soon());
  return { lastId: Number(item?.value?.N ?? "0"), version: Number(item?.version?.N ?? "0") };
}

async function createMany(prefix: string, headers?: (i: number) => Record<string, string>) {
  const answers = await inParallel(indices, concurrency, (i) =>
    createCategory(stack.baseUrl, stack.apiKey, { name: `${prefix} ${i}` }, headers?.(i)),
  );
  expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 201));
  const categories = answers.map((answer) => answer.json<Category>());
  created.push(...categories);
  return { answers, categories };
}

describe("a category write whose answer is lost is retried and recognised: every 201 listed exactly once", () => {
  it(`${count} creates at concurrency ${concurrency}, ${lostEach} PutItem answers lost`, async () => {
    const before = lost();
    stack.proxy.inject({ fault: "lost_response", operation: "PutItem", times: lostEach });
    const { categories } = await createMany("lost put");
    stack.proxy.clear();
    expect(lost() - before).toBe(lostEach);
    expect(new Set(categories.map((c) => c.id)).size).toBe(count);
    expectConsistent(created, await listCategories(stack.baseUrl, stack.apiKey));
  });
});

describe("an id whose counter answer is lost is skipped, never reused: gaps allowed, no repeats", () => {
  it(`${count} creates at concurrency ${concurrency}, ${lostEach} UpdateItem answers lost`, async () => {
    const before = lost();
    const { lastId: lastIdBefore, version: versionBefore } = await counter();
    const updatesBefore = stack.proxy.seen.get("UpdateItem") ?? 0;
    stack.proxy.inject({ fault: "lost_response", operation: "UpdateItem", times: lostEach });
    const { categories } = await createMany("lost counter");
    stack.proxy.clear();
    expect(lost() - before).toBe(lostEach);
    const ids = categories.map((c) => c.id).sort((a, b) => a - b);
    expect(new Set(ids).size).toBe(count);
    // Every counter update the store applied bumped the list version once: each id take (the
    // creates' ids, one burnt by each lost answer, one by any attempt that ran out of time on a
    // loaded machine) and each create's commit after its put (lib/categoryList/cache.ts).
    const updates = (stack.proxy.seen.get("UpdateItem") ?? 0) - updatesBefore;
    const { lastId, version } = await counter();
    expect(version - versionBefore).toBe(updates);
    expect(updates).toBeGreaterThanOrEqual(2 * count + lostEach);
    const issued = lastId - lastIdBefore;
    expect(issued).toBeGreaterThanOrEqual(count);
    expect(ids[0]).toBeGreaterThan(lastIdBefore);
    expect(ids.at(-1)).toBeLessThanOrEqual(lastIdBefore + issued);
    expectConsistent(created, await listCategories(stack.baseUrl, stack.apiKey));
  });
});

describe("lost answers on every write of an idempotent create: one category per key, replays answer the same id", () => {
  it(`${count} creates with Idempotency-Key, answers lost on PutItem, UpdateItem and GetItem, then repeated`, async () => {
    const before = lost();
    for (const operation of ["PutItem", "UpdateItem", "GetItem"]) {
      stack.proxy.inject({ fault: "lost_response", operation, times: lostEach });
    }
    const idempotencyKeys = indices.map(() => randomUUID());
    const keyed = (i: number) => ({ "idempotency-key": idempotencyKeys[i] ?? "" });
    const first = await createMany("lost idempotent", keyed);
    stack.proxy.clear();
    expect(lost() - before).toBe(3 * lostEach);
    const repeats: Answer[] = await inParallel(indices, concurrency, (i) =>
      createCategory(stack.baseUrl, stack.apiKey, { name: `lost idempotent ${i}` }, keyed(i)),
    );
    expect(repeats.map((answer) => answer.status)).toEqual(repeats.map(() => 201));
    expect(repeats.map((answer) => answer.headers["idempotent-replayed"])).toEqual(
      repeats.map(() => "true"),
    );
    expect(repeats.map((answer) => answer.json<Category>())).toEqual(first.categories);
    expect(new Set(first.categories.map((c) => c.id)).size).toBe(count);
    expectConsistent(created, await listCategories(stack.baseUrl, stack.apiKey));
  });
});
