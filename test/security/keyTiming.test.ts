/**
 * A key that is nearly right takes no longer to refuse than one that is wholly wrong.
 *
 * Why the design makes it so: ApiKeyVerifier never compares the presented key with anything. It
 * hashes it first (SHA-256 over the whole token, whose cost depends only on the token's length)
 * and then looks the digest up: as a Map key in the verifier's cache and as the sort key of a
 * GetItem. A key differing from the real one in its last character has a digest as unrelated to
 * the real digest as a random key's, so whatever comparison the Map, the network or DynamoDB make
 * on digests, they make it on pseudo-random input in both cases: how many leading characters a
 * guess shares with a key cannot change the time, and a guess cannot be improved one character
 * at a time.
 *
 * Keys of the contract's format end in a checksum (lib/keyFormat.ts) that the verifier checks
 * before all of this: a key whose checksum fails is refused at once, with no hash and no lookup.
 * That is faster, but it tells a guesser nothing: the checksum is a public function of the key
 * itself (CRC32 of the rest), the same for a stored key as for any other. So the guesses
 * measured here are well-formed, with a right checksum, and take the whole path.
 *
 * The measurements below take near misses (the valid key with the last character of its random
 * part changed, checksum recomputed) and far misses (the same change made to another key of the
 * format, unrelated to the stored one) in interleaved pairs, and check that the two
 * distributions cannot be told apart (sign test and median shift, see support/timing.ts). A
 * positive control, a verifier that compares characters before hashing, shows the same
 * statistics do see a leak.
 */
import { describe, expect, it } from "vitest";
import { checksumOf } from "../../lib/keyFormat.ts";
import { allScopes } from "../../lib/scopes.ts";
import type { ApiKeyRecord } from "../../lib/repositories/apiKeys.ts";
import { ApiKeyStore, hashApiKey } from "../../lib/repositories/apiKeys.ts";
import { generateKey } from "../../lib/keyFormat.ts";
import type { KeyLookup } from "../../lib/auth.ts";
import { ApiKeyVerifier, parseAuthorization } from "../../lib/auth.ts";
import { errors } from "../../lib/errors.ts";
import { nearMiss } from "../support/hostile/headers.ts";
import { soon, useEmbeddedDynamo } from "../support/dynamo.ts";
import type { TimingVerdict } from "../support/timing.ts";
import { compareTimings, timePairs } from "../support/timing.ts";

const store = useEmbeddedDynamo();
const key = generateKey("local");
const record: ApiKeyRecord = {
  keyId: "key_timing",
  label: "timing",
  createdAt: "2026-01-01T00:00:00.000Z",
  scopes: allScopes,
  bucket: "key_timing",
};

class MapLookup implements KeyLookup {
  readonly #records = new Map([[hashApiKey(key), record]]);
  find(keyHash: string): Promise<ApiKeyRecord | undefined> {
    return Promise.resolve(this.#records.get(keyHash));
  }
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** `petstore_local_<random>`: the key without its checksum. */
const keyBody = key.slice(0, -7);

/**
 * `body` with the last character of its random part changed (a different character each time)
 * and the checksum made right again: well-formed, one character from `body`.
 */
const missOf =
  (body: string) =>
  (index: number): string => {
    const last = body.length - 1;
    const wanted = base62[index % base62.length] ?? "A";
    const other = wanted === body[last] ? (base62[(index + 1) % base62.length] ?? "B") : wanted;
    const guess = nearMiss(body, last, other);
    return `Bearer ${guess}_${checksumOf(guess)}`;
  };

/** One character from the stored key. */
const nearMissHeader = missOf(keyBody);

/**
 * One character from another key of the format: as far from the stored key as a random key, and
 * as alike to the other guesses as the near misses are to theirs. Fresh random keys were the far
 * misses before; they differ from one another on every draw, which costs the CPU's predictors
 * and caches ~0.15-0.2 µs per refusal whatever the stored key is: near misses of this unrelated
 * key were refused as much faster than random keys (in 60 % of pairs) as near misses of the
 * stored key, and as fast as those. That measured the guesses' likeness to one another, not to
 * the key, and failed the test on every run.
 */
const farMissHeader = missOf(generateKey("local").slice(0, -7));

/**
 * A fresh verifier per sample: its cache is empty, so every sample takes the full path (parse,
 * hash, lookup, refusal). The verifier is built before the clock starts.
 */
function freshVerifierPath(lookup: KeyLookup) {
  return {
    first: (index: number) => ({
      header: nearMissHeader(index),
      verifier: new ApiKeyVerifier(lookup, Date.now, 30_000),
    }),
    second: (index: number) => ({
      header: farMissHeader(index),
      verifier: new ApiKeyVerifier(lookup, Date.now, 30_000),
    }),
    measure: ({ header, verifier }: { header: string; verifier: ApiKeyVerifier }) =>
      verifier.authenticate(header, soon()),
  };
}

function report(name: string, verdict: TimingVerdict): void {
  const us = (ns: number) => (ns / 1000).toFixed(2);
  console.info(
    `${name}: ${verdict.pairs} pairs, near slower in ${(verdict.firstSlower * 100).toFixed(1)}%, ` +
      `median near ${us(verdict.medianFirst)} µs / far ${us(verdict.medianSecond)} µs, ` +
      `shift ${verdict.medianShift.toFixed(3)} IQR (IQR ${us(verdict.pooledIqr)} µs)`,
  );
}

describe("near-miss and far-miss keys take the same time to refuse (the key is hashed before any comparison)", () => {
  it("through the verifier and an in-memory lookup: 4,000 interleaved pairs", async () => {
    const path = freshVerifierPath(new MapLookup());
    // Every sample is refused: a near miss is not the key.
    await expect(path.measure(path.first(0))).rejects.toMatchObject({ status: 401 });
    const timing = await timePairs({ pairs: 4_000, warmup: 500, ...path });
    const verdict = compareTimings(timing);
    report("in-memory", verdict);
    expect(verdict.distinguishable, JSON.stringify(verdict)).toBe(false);
  });

  it("through the verifier and the real key store on the embedded DynamoDB: 600 interleaved pairs", async () => {
    const table = await store.newTable();
    const keys = new ApiKeyStore(store.db, table);
    await keys.issue("timing", soon(), { apiKey: key });
    const path = freshVerifierPath(keys);
    await expect(path.measure(path.first(0))).rejects.toMatchObject({ status: 401 });
    await expect(
      new ApiKeyVerifier(keys, Date.now, 30_000).authenticate(`Bearer ${key}`, soon()),
    ).resolves.toMatchObject({ keyId: expect.stringMatching(/^key_/) as unknown });
    const timing = await timePairs({ pairs: 600, warmup: 50, ...path });
    // Fewer pairs and a network hop: a wider margin for the medians (still ~5 standard errors).
    const verdict = compareTimings(timing, { shiftTolerance: 0.35 });
    report("embedded DynamoDB", verdict);
    expect(verdict.distinguishable, JSON.stringify(verdict)).toBe(false);
  });

  it("positive control: the same statistics see a comparison that stops at the first wrong character", async () => {
    // What the design avoids: comparing the presented key with the stored one, character by
    // character, with some work per matching character: about 80 ns each, some 4 µs over the 51
    // characters a near miss shares with the key, less than half the path's own median time.
    const lookup = new MapLookup();
    let sink = 0;
    const leaky = async (header: string): Promise<void> => {
      const credentials = parseAuthorization(header);
      const token = credentials.kind === "bearer" ? credentials.token : "";
      for (let i = 0; i < token.length && token[i] === key[i]; i++) {
        for (let work = 0; work < 20; work++) sink += Math.sqrt(work + i);
      }
      if (token !== key || !(await lookup.find(hashApiKey(token)))) throw errors.keyNotAccepted();
    };
    const timing = await timePairs({
      pairs: 1_000,
      warmup: 200,
      first: nearMissHeader,
      second: farMissHeader,
      measure: leaky,
    });
    const verdict = compareTimings(timing);
    report("leaky control", verdict);
    expect(sink).toBeGreaterThan(0);
    expect(verdict.distinguishable, JSON.stringify(verdict)).toBe(true);
  });
});
