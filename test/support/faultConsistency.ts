/**
 * What the reliability tests check after a workload under faults: the categories the client saw
 * a 201 for are exactly the listed ones (none lost, no phantom, no id twice, none altered).
 */
import { expect } from "vitest";
import type { Category } from "./client.ts";
import { listCategories } from "./client.ts";
import type { FaultStack } from "./faultStack.ts";

export interface Consistency {
  /** Answered 201 but not listed. */
  readonly lost: Category[];
  /** Listed although no 201 named it. */
  readonly phantom: Category[];
  /** Listed more than once, or one id answered to two creates. */
  readonly duplicateIds: number[];
  /** Listed under a 201's id with other content than the 201 answered. */
  readonly altered: Category[];
}

/** Compares the categories the client saw a 201 for with the list: they must be the same set. */
export function consistency(
  created: readonly Category[],
  listed: readonly Category[],
): Consistency {
  const duplicateIds = new Set<number>();
  const byId = new Map<number, Category>();
  for (const category of created) {
    if (byId.has(category.id)) duplicateIds.add(category.id);
    byId.set(category.id, category);
  }
  const listedIds = new Set<number>();
  const phantom: Category[] = [];
  const altered: Category[] = [];
  for (const category of listed) {
    if (listedIds.has(category.id)) duplicateIds.add(category.id);
    listedIds.add(category.id);
    const seen = byId.get(category.id);
    if (!seen) phantom.push(category);
    else if (JSON.stringify(seen) !== JSON.stringify(category)) altered.push(category);
  }
  return {
    lost: created.filter((category) => !listedIds.has(category.id)),
    phantom,
    duplicateIds: [...duplicateIds],
    altered,
  };
}

/** One line of figures for the run's output: requests, faults, and what was lost (nothing). */
export async function reportFigures(
  label: string,
  stack: FaultStack,
  created: readonly Category[],
  extra: Readonly<Record<string, number>> = {},
): Promise<void> {
  const check = consistency(created, await listCategories(stack.baseUrl, stack.apiKey));
  const figures = {
    requests: stack.server.logLines.length,
    faultsInjected: stack.injectedTotal(),
    created201: created.length,
    ...extra,
    lost: check.lost.length,
    phantom: check.phantom.length,
    duplicateIds: check.duplicateIds.length,
  };
  console.info(`[reliability] ${label}: ${JSON.stringify(figures)}`);
}

export function expectConsistent(created: readonly Category[], listed: readonly Category[]): void {
  expect(consistency(created, listed)).toEqual({
    lost: [],
    phantom: [],
    duplicateIds: [],
    altered: [],
  });
  const ids = listed.map((category) => category.id);
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
}

/** A list answered during a workload, and the 201s the client had when it asked for it. */
export interface ListSnapshot {
  readonly seenBefore: readonly Category[];
  readonly listed: readonly Category[];
}

/**
 * Each list, in id order with no id twice, held every 201 seen before it was asked for, and
 * nothing under an id that no 201 answered with that content (a category in flight may show up
 * before its 201 arrives).
 */
export function expectListsHeldTheirPast(
  snapshots: readonly ListSnapshot[],
  created: readonly Category[],
): void {
  const everCreated = new Map(created.map((c) => [c.id, c]));
  for (const { seenBefore, listed } of snapshots) {
    const ids = listed.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const listedIds = new Set(ids);
    expect(seenBefore.filter((c) => !listedIds.has(c.id))).toEqual([]);
    expect(listed.filter((c) => everCreated.get(c.id)?.name !== c.name)).toEqual([]);
  }
}
