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
 * The measurements below take near misses (the valid key with its last character changed) and
 * far misses (random strings of the same length) in interleaved pairs, and check that the two
 * distributions cannot be told apart (sign test and median shift, see support/timing.ts). A
 * positive control, a verifier that compares characters before hashing, shows the same
 * statistics do see a leak.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { allScopes } from "../../lib/scopes.ts";
import type { ApiKeyRecord } from "../../lib/repositories/apiKeys.ts";
import { ApiKeyStore, generateApiKey, hashApiKey } from "../../lib/repositories/apiKeys.ts";
import type { KeyLookup } from "../../lib/auth.ts";
import { ApiKeyVerifier, parseAuthorization } from "../../lib/auth.ts";
import { errors } from "../../lib/errors.ts";
import { nearMiss } from "../support/hostile/characters.ts";
import { soon, useEmbeddedDynamo } from "../support/dynamo.ts";
import type { TimingVerdict } from "../support/timing.ts";
import { compareTimings, timePairs } from "../support/timing.ts";

const store = useEmbeddedDynamo();
const key = generateApiKey();
const record: ApiKeyRecord = {
  keyId: "key_timing",
  label: "timing",
  createdAt: "2026-01-01T00:00:00.000Z",
  scopes: allScopes,
};

class MapLookup implements KeyLookup {
  readonly #records = new Map([[hashApiKey(key), record]]);
  find(keyHash: string): Promise<ApiKeyRecord | undefined> {
    return Promise.resolve(this.#records.get(keyHash));
  }
}

const base64url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** The valid key with its last character changed, a different character each time. */
const nearMissHeader = (index: number): string =>
  `Bearer ${nearMiss(key, key.length - 1, base64url[index % base64url.length] ?? "A")}`;

/** A random b64token of the key's length that does not even share its first character. */
const farMissHeader = (): string => {
  let guess = randomBytes(48).toString("base64url").slice(0, key.length);
  if (guess.startsWith(key.slice(0, 1))) guess = `Q${guess.slice(1)}`;
  return `Bearer ${guess}`;
};

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
    second: () => ({
      header: farMissHeader(),
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
    await keys.issue("timing", undefined, soon(), key);
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
