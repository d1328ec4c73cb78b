/**
 * The load's two kinds of worker and what they count. Create workers share one counter of names
 * to send; list workers loop until every create is answered, each list checked against the 201s
 * that had arrived before it was asked for.
 */
import { performance } from "node:perf_hooks";
import type { Answer, Category } from "../httpClient.ts";

/** What the workers record, shared by all of them (one event loop: no two write at once). */
export interface Tally {
  /** Non-2xx answers and transport failures, by status ("network" for the latter). */
  readonly errors: Record<string, number>;
  readonly createMs: number[];
  readonly listMs: number[];
  /** The 201s of this run, by name, in the order they arrived. */
  readonly created: Map<string, Category>;
  /** Names whose create was answered anything but 201. */
  readonly failedNames: Set<string>;
  /** How many 201s named each id. */
  readonly createdIds: Map<number, number>;
  staleLists: number;
  malformedLists: number;
  /** The index of the next create to send. */
  next: number;
  /** Creates answered (or failed) so far. */
  finished: number;
}

export interface Workload {
  readonly creates: number;
  readonly listPauseMs: number;
  /** Prefix of every name this run creates. */
  readonly runId: string;
  readonly create: (name: string) => Promise<Answer>;
  readonly list: () => Promise<Answer>;
  readonly log: (line: string) => void;
  readonly tally: Tally;
}

export function newTally(): Tally {
  return {
    errors: {},
    createMs: [],
    listMs: [],
    created: new Map(),
    failedNames: new Set(),
    createdIds: new Map(),
    staleLists: 0,
    malformedLists: 0,
    next: 0,
    finished: 0,
  };
}

export function fail(tally: Tally, what: string): void {
  tally.errors[what] = (tally.errors[what] ?? 0) + 1;
}

export function parseList(body: string): Category[] {
  const parsed: unknown = JSON.parse(body);
  if (!Array.isArray(parsed)) throw new Error("the list answer is not a JSON array");
  return parsed as Category[];
}

export async function createWorker(work: Workload): Promise<void> {
  const { tally } = work;
  while (tally.next < work.creates) {
    const name = `${work.runId} #${tally.next++}`;
    const started = performance.now();
    try {
      const reply = await work.create(name);
      tally.createMs.push(performance.now() - started);
      if (reply.status !== 201) {
        fail(tally, String(reply.status));
        tally.failedNames.add(name);
        continue;
      }
      const category = JSON.parse(reply.text) as Category;
      if (category.name !== name || !Number.isSafeInteger(category.id)) fail(tally, "bad 201 body");
      tally.created.set(name, category);
      tally.createdIds.set(category.id, (tally.createdIds.get(category.id) ?? 0) + 1);
    } catch {
      fail(tally, "network");
      tally.failedNames.add(name);
    } finally {
      tally.finished += 1;
      if (tally.finished % 1000 === 0) work.log(`  ${tally.finished} creates answered`);
    }
  }
}

export async function listWorker(work: Workload): Promise<void> {
  const { tally } = work;
  while (tally.finished < work.creates) {
    const seenBefore = [...tally.created.values()];
    const started = performance.now();
    try {
      const reply = await work.list();
      tally.listMs.push(performance.now() - started);
      if (reply.status !== 200) {
        // Counted, and asked again at once: the pause is for the creates' sake, not the server's.
        fail(tally, String(reply.status));
        continue;
      }
      checkList(tally, parseList(reply.text), seenBefore);
    } catch {
      fail(tally, "network");
    }
    if (work.listPauseMs > 0) {
      await new Promise((done) => setTimeout(done, work.listPauseMs));
    }
  }
}

/** A list during the run: distinct ids in ascending order, holding every earlier 201. */
function checkList(
  tally: Tally,
  listed: readonly Category[],
  seenBefore: readonly Category[],
): void {
  const ids = listed.map((c) => c.id);
  if (new Set(ids).size !== ids.length || ids.some((id, i) => i > 0 && id <= (ids[i - 1] ?? 0)))
    tally.malformedLists += 1;
  const listedIds = new Set(ids);
  if (seenBefore.some((c) => !listedIds.has(c.id))) tally.staleLists += 1;
}
