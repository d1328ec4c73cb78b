/**
 * A randomized fault campaign: hundreds of creates at concurrency 10, with lists running
 * alongside, while the proxy keeps injecting a random mix of faults (throttling of both kinds,
 * 500, 503, resets, lost answers, slow answers) on random operations, and, a third of the way in,
 * an outage of the id counter and the list query that outlasts the request budget, so some
 * creates and lists get 503.
 *
 * A third of the creates carry an Idempotency-Key, and for those the client acts as a retrying
 * client should: a 503 or 409 is retried after Retry-After with the same key. The others take
 * their 503 as final.
 *
 * Afterwards the list is exactly the set of categories the client saw a 201 for: none lost, none
 * listed without a 201, no id twice. Every list answered during the campaign held every category
 * whose 201 had arrived before it was asked for, and nothing that never got a 201.
 *
 * The outage is on UpdateItem and Query, where a request that runs out of budget has stored
 * nothing visible. An outage that starts right after a category write landed with its answer
 * lost is the known gap tested in ambiguousWrites.test.ts.
 *
 * The seed is printed; RELIABILITY_SEED=<n> replays the same fault choices (timing still varies).
 */
import { randomUUID } from "node:crypto";
import { randomSource } from "../../scripts/lib/random.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Answer, Category } from "../support/client.ts";
import { createCategory, inParallel, listCategories, send } from "../support/client.ts";
import type { FaultStack, ListSnapshot } from "../support/faultStack.ts";
import {
  applyingFaults,
  expectConsistent,
  expectListsHeldTheirPast,
  lambdaTimeoutMs,
  loggedStatuses,
  outlastingOutage,
  rejectingFaults,
  sleep,
  startChaos,
  startFaultStack,
  waitForLogLines,
} from "../support/faultStack.ts";

const creates = 300;
const concurrency = 10;
const outageAfter = 100;
const outageMs = lambdaTimeoutMs + 1_500;
const seed = Number(process.env.RELIABILITY_SEED ?? Math.floor(Math.random() * 2 ** 31));
/**
 * How often a keyed create may hear 503 or 409 (Retry-After: 1) before an answer: through the
 * outage, then while the first attempt's in-progress lock (up to a Lambda timeout) runs out,
 * twice over for a loaded machine.
 */
const maxRetries = 2 * Math.ceil((outageMs + lambdaTimeoutMs) / 1000);

let stack: FaultStack;

beforeAll(async () => {
  stack = await startFaultStack();
});
afterAll(async () => {
  await stack.stop();
});

describe("under random faults and an outage longer than the budget, the list is exactly the set of 201s the client saw", () => {
  it(
    `${creates} creates at concurrency ${concurrency} with lists alongside (seed printed)`,
    { timeout: 180_000 },
    async () => {
      const random = randomSource(seed);
      const seen201 = new Map<string, Category>();
      const statuses = new Map<string, number>();
      /** Statuses the client received, to compare with the request log's. */
      const answered = new Map<number, number>();
      const count = (label: string, status: number): void => {
        statuses.set(`${label} ${status}`, (statuses.get(`${label} ${status}`) ?? 0) + 1);
        answered.set(status, (answered.get(status) ?? 0) + 1);
      };
      const final503: string[] = [];
      const snapshots: ListSnapshot[] = [];
      let done = 0;
      let outage: Promise<number> | undefined;
      const started = Date.now();

      const chaos = startChaos(stack, {
        faults: [...rejectingFaults, ...applyingFaults],
        operations: ["GetItem", "UpdateItem", "PutItem", "Query"],
        probability: 0.15,
        tickMs: 10,
        maxPending: 10,
        random,
      });

      const runOutage = (): Promise<number> =>
        outlastingOutage(stack, chaos, outageMs, ["UpdateItem", "Query"], random);

      /** One category: created once, or (with a key) retried after Retry-After until answered. */
      const createOne = async (i: number): Promise<void> => {
        const name = `campaign ${i}`;
        const key = random() < 1 / 3 ? randomUUID() : undefined;
        const headers = key === undefined ? {} : { "idempotency-key": key };
        let answer: Answer = await createCategory(stack.baseUrl, stack.apiKey, { name }, headers);
        count(key ? "keyed" : "plain", answer.status);
        for (let retries = 0; key && (answer.status === 503 || answer.status === 409); retries++) {
          expect(retries, `seed ${String(seed)}`).toBeLessThan(maxRetries);
          await sleep(Number(answer.headers["retry-after"] ?? "1") * 1000);
          answer = await createCategory(stack.baseUrl, stack.apiKey, { name }, headers);
          count("keyed retry", answer.status);
        }
        if (answer.status === 201) {
          const category = answer.json<Category>();
          expect(category).toEqual({ id: category.id, name });
          expect(seen201.has(name)).toBe(false);
          seen201.set(name, category);
        } else {
          expect(answer).toBeApiError(503, "service_unavailable");
          expect(answer.headers["retry-after"]).toBe("1");
          final503.push(name);
        }
        done += 1;
        if (done === outageAfter) outage = runOutage();
      };

      const listLoop = async (): Promise<void> => {
        while (done < creates) {
          const seenBefore = [...seen201.values()];
          const answer = await send(stack.baseUrl, { path: "/v1/categories", key: stack.apiKey });
          count("list", answer.status);
          if (answer.status === 200) {
            snapshots.push({ seenBefore, listed: answer.json<Category[]>() });
          } else {
            expect(answer.status).toBe(503);
            expect(answer.headers["retry-after"]).toBe("1");
          }
        }
      };

      await Promise.all([
        inParallel([...Array(creates).keys()], concurrency, createOne),
        listLoop(),
      ]);
      chaos.stop();
      const outageFaults = await (outage ?? Promise.resolve(0));
      stack.proxy.clear();
      const elapsedMs = Date.now() - started;

      const created = [...seen201.values()];
      const linesBefore = stack.server.logLines.length;
      const finalList = await listCategories(stack.baseUrl, stack.apiKey);
      count("final list", 200);
      const figures = {
        seed,
        creates,
        answered201: created.length,
        final503: final503.length,
        statuses: Object.fromEntries([...statuses].sort()),
        lists: snapshots.length,
        requests: stack.server.logLines.length,
        faultsInjected: stack.injectedTotal(),
        byKind: Object.fromEntries(stack.proxy.injected),
        randomRulesAdded: chaos.added(),
        // Counted over the outage window: its own faults, plus random ones pending when it began.
        outageFaults,
        elapsedMs,
      };
      console.info(`[reliability] fault campaign: ${JSON.stringify(figures)}`);

      // Every create ended in a 201 or, without a key to retry with, a final 503.
      expect(created.length + final503.length).toBe(creates);
      // The outage did make some creates run out of budget, and the campaign injected plenty.
      expect(final503.length + (statuses.get("keyed 503") ?? 0)).toBeGreaterThan(0);
      expect(stack.injectedTotal()).toBeGreaterThan(100);
      // Nothing lost, nothing listed without a 201, no id twice.
      expectConsistent(created, finalList);
      expect(finalList.filter((c) => final503.includes(c.name))).toEqual([]);

      // One log line per request, retried ones included, with the status the client got.
      await waitForLogLines(stack.server, linesBefore + 1);
      expect(loggedStatuses(stack.server)).toEqual(Object.fromEntries(answered));

      // Every list during the campaign held every 201 seen before it, and nothing that never
      // got a 201 (a category in flight may show up before its 201 arrives).
      expectListsHeldTheirPast(snapshots, created);
    },
  );
});
