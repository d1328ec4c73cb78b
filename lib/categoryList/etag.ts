/**
 * The list's validator (contract "Responses", RFC 9110 §8.8.3 and §13.1.2).
 *
 * The tag names the store's list version (lib/categoryList/cache.ts) and the content coding the
 * answer is sent in, and nothing taken from the body: a container that has read only the counter
 * can answer 304. It is weak (`W/`): for a moment around a create (its put has landed, its commit
 * has not yet bumped the version) two containers may answer the same version with and without
 * that category, so the tag promises equivalent content, not identical bytes. Each content
 * coding gets its own tag, as RFC 9110 asks of differently encoded representations.
 */
import type { chooseEncoding } from "../http/response.ts";
import type { CounterState } from "./cache.ts";

/** A coding the service compresses with, as negotiated from Accept-Encoding. */
export type ContentCoding = NonNullable<ReturnType<typeof chooseEncoding>>;

/** What a tag names: the counter's epoch (a recreated table starts a new one) and version. */
export type TaggedVersion = Pick<CounterState, "epoch" | "version">;

export function listETag(version: TaggedVersion, coding: ContentCoding | undefined): string {
  return `W/"${version.epoch}.${version.version}${coding ? `-${coding}` : ""}"`;
}

/**
 * Whether `If-None-Match` names `tag`: `*`, or any listed entity tag equal to it under weak
 * comparison (opaque tags equal, `W/` ignored). A malformed header matches nothing, so the
 * client simply gets the full answer.
 */
export function ifNoneMatchHits(ifNoneMatch: string | undefined, tag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === "*") return true;
  const wanted = opaqueTag(tag);
  // etagc may contain commas, so tags are scanned as quoted strings rather than split on ",".
  for (const match of ifNoneMatch.matchAll(/(?:W\/)?"([\x21\x23-\x7e\x80-\xff]*)"/g)) {
    if (match[1] === wanted) return true;
  }
  return false;
}

function opaqueTag(tag: string): string {
  return tag.replace(/^W\//, "").slice(1, -1);
}
