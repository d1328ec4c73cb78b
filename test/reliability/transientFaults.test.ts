/**
 * Transient store faults, injected by the fault proxy between the functions and the store, on
 * every operation the create and list paths use: the key lookup (GetItem), the id counter
 * (UpdateItem), the category write (PutItem) and the list (Query, made when the store changed
 * since the last list). Each fault is retried with
 * backoff inside the request's budget, and the client sees an ordinary 201 or 200, logged once.
 *
 * `created` is the ledger of every 201 this file's tests saw, in whatever order they ran: the
 * store must list exactly those.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CategoryStore } from "../../lib/repositories/categories.ts";
import { localTableName } from "../../local/localKeys.ts";
import type { Category } from "../support/client.ts";
import { createCategory, listCategories, send } from "../support/client.ts";
import { soon } from "../support/dynamo.ts";
import type { Fault } from "../support/faultProxy.ts";
import type { FaultStack } from "../support/faultStack.ts";
import {
  expectConsistent,
  logEntries,
  rejectingFaults,
  reportFigures,
  sleep,
  startFaultStack,
  waitForLogLines,
} from "../support/faultStack.ts";

let stack: FaultStack;
const created: Category[] = [];
const timesEach = 3;

beforeAll(async () => {
  stack = await startFaultStack();
});
afterAll(async () => {
  await reportFigures("transient faults", stack, created);
  await stack.stop();
});

const faults: readonly Fault[] = [...rejectingFaults, "slow"];
const createOperations = [
  ["GetItem", "the key lookup"],
  ["UpdateItem", "the id counter"],
  ["PutItem", "the category write"],
] as const;
const listOperations = [
  ["GetItem", "the key lookup"],
  ["Query", "the list query"],
] as const;

/** What a create that failed after taking its id leaves: a new id and a new list version. */
const takeAnId = () => new CategoryStore(stack.db, localTableName).nextId(soon());

function casesFor(operations: readonly (readonly [string, string])[]): [Fault, string, string][] {
  return faults.flatMap((fault) =>
    operations.map(([operation, role]): [Fault, string, string] => [fault, operation, role]),
  );
}

/**
 * Injects `timesEach` faults on one operation, runs `request`, and checks all were injected and
 * that the retried request was still one request: one log line, a 2xx status, no error code.
 */
async function withFaults<T>(
  fault: Fault,
  operation: string,
  request: () => Promise<T>,
): Promise<T> {
  const injectedBefore = stack.proxy.injected.get(fault) ?? 0;
  const seenBefore = stack.proxy.seen.get(operation) ?? 0;
  const linesBefore = stack.server.logLines.length;
  stack.proxy.inject({
    fault,
    operation,
    times: timesEach,
    ...(fault === "slow" && { delayMs: stack.slowDelayMs }),
  });
  try {
    return await request();
  } finally {
    stack.proxy.clear();
    expect((stack.proxy.injected.get(fault) ?? 0) - injectedBefore).toBe(timesEach);
    // The faulted attempts, then at least one that went through.
    expect((stack.proxy.seen.get(operation) ?? 0) - seenBefore).toBeGreaterThan(timesEach);
    await expectLoggedOnce(linesBefore);
  }
}

/** The one request since `linesBefore` wrote one line, 2xx, without an error code. */
async function expectLoggedOnce(linesBefore: number): Promise<void> {
  await waitForLogLines(stack.server, linesBefore + 1);
  await sleep(100);
  const entries = logEntries(stack.server).slice(linesBefore);
  expect(entries).toHaveLength(1);
  expect(entries.filter((entry) => entry.status >= 300 || entry.code !== undefined)).toEqual([]);
}

describe("a transient fault on any create operation is retried: the create answers 201, stored once, logged once", () => {
  it.each(casesFor(createOperations))(
    `%s on %s (%s), ${timesEach} times in a row`,
    async (fault, operation) => {
      const name = `${fault} on ${operation}`;
      const answer = await withFaults(fault, operation, () =>
        createCategory(stack.baseUrl, stack.apiKey, { name, description: "retried" }),
      );
      expect(answer.status).toBe(201);
      const category = answer.json<Category>();
      expect(category).toEqual({ id: category.id, name, description: "retried" });
      created.push(category);
      expectConsistent(created, await listCategories(stack.baseUrl, stack.apiKey));
    },
  );
});

describe("a transient fault on any list operation is retried: the list answers 200, whole, logged once", () => {
  it.each(casesFor(listOperations))(
    `%s on %s (%s), ${timesEach} times in a row`,
    async (fault, operation) => {
      // A list Queries only when the store changed since the last one (lib/categoryList/).
      if (operation === "Query") await takeAnId();
      const answer = await withFaults(fault, operation, () =>
        send(stack.baseUrl, { path: "/v1/categories", key: stack.apiKey }),
      );
      expect(answer.status).toBe(200);
      expectConsistent(created, answer.json<Category[]>());
    },
  );
});
