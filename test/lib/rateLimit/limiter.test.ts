/**
 * The per-key rate limit (lib/rateLimit/limiter.ts) on its real bucket in the embedded store,
 * through a recording proxy (every store call counted), with a clock the test moves.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { DynamoDb } from "../../../lib/dynamodb.ts";
import type { Admission } from "../../../lib/rateLimit/limiter.ts";
import { graceMs, RateLimiter } from "../../../lib/rateLimit/limiter.ts";
import type { RateLimit } from "../../../lib/rateLimit/policy.ts";
import type { RateLimitBucketRepository } from "../../../lib/repositories/rateLimitBuckets.ts";
import { RateLimitBucketStore } from "../../../lib/repositories/rateLimitBuckets.ts";
import { soon, useEmbeddedDynamo } from "../../support/dynamo.ts";
import type { RecordingProxy } from "../../support/recordingDynamoProxy.ts";
import { startRecordingProxy } from "../../support/recordingDynamoProxy.ts";
import { limitOf } from "../helpers.ts";

const store = useEmbeddedDynamo();
let proxy: RecordingProxy | undefined;
let client: DynamoDb | undefined;

beforeAll(async () => {
  proxy = await startRecordingProxy(store.endpoint);
  client = new DynamoDb({
    region: "local",
    endpoint: proxy.endpoint,
    credentials: () => Promise.resolve({ accessKeyId: "local", secretAccessKey: "local" }),
    baseDelayMs: 5,
    attemptTimeoutMs: 200,
  });
});
afterAll(async () => {
  client?.close();
  await proxy?.close();
});

/** The i-th container's limiter of a rig. */
function nth(limiters: readonly RateLimiter[], i: number): RateLimiter {
  const limiter = limiters[i];
  if (!limiter) throw new Error(`no container ${String(i)}`);
  return limiter;
}

/** A fresh table, a clock at a fixed moment and `containers` limiters sharing the bucket. */
async function rig(containers = 1, random: () => number = Math.random) {
  const tableName = await store.newTable();
  const clock = { t: 1_800_000_000_000 };
  const recorder = proxy;
  const db = client;
  if (!recorder || !db) throw new Error("beforeAll did not run");
  const limiters = Array.from(
    { length: containers },
    () =>
      new RateLimiter({
        buckets: new RateLimitBucketStore(db, tableName),
        now: () => clock.t,
        random,
      }),
  );
  const label = `rig-${tableName}`;
  recorder.label = label;
  const writes = () =>
    recorder.calls.filter((call) => call.label === label && call.operation === "UpdateItem").length;
  return { clock, limiters, writes, deadline: () => clock.t + 10_000 };
}

/** The rule tests' moment: the clock the limiter is given starts here. */
const t0 = 1_800_000_000_000;

interface BucketCall {
  readonly operation: "read" | "take";
  readonly deadline: number;
}

/**
 * One container's limiter on a fresh table, its bucket calls recorded (with the deadline each was
 * given), and the bucket as stored; `another` takes tokens as another container would.
 */
async function containerRig(options: { random?: () => number; budgetMs?: number } = {}) {
  const tableName = await store.newTable();
  const clock = { t: t0 };
  const inner = new RateLimitBucketStore(store.db, tableName);
  const calls: BucketCall[] = [];
  /** Runs once, right after the limiter's next read: another container writing in between. */
  let afterRead: (() => Promise<void>) | undefined;
  const buckets: RateLimitBucketRepository = {
    async read(keyId, intervalMs, deadline) {
      calls.push({ operation: "read", deadline });
      const state = await inner.read(keyId, intervalMs, deadline);
      const between = afterRead;
      afterRead = undefined;
      await between?.();
      return state;
    },
    take(take, deadline) {
      calls.push({ operation: "take", deadline });
      return inner.take(take, deadline);
    },
  };
  const limiter = new RateLimiter({
    buckets,
    now: () => clock.t,
    random: options.random ?? (() => 0),
    ...(options.budgetMs === undefined ? {} : { budgetMs: options.budgetMs }),
  });
  const far = () => clock.t + 60_000;
  const tat = async (keyId: string) => (await inner.read(keyId, 1, soon())).tat;
  /** Another container leases `tokens` of the bucket now (10/s, burst 20 unless said). */
  const another = async (keyId: string, tokens: number, intervalMs = 100, burst = 20) => {
    const expected = await inner.read(keyId, intervalMs, soon());
    const result = await inner.take(
      { keyId, tokens, intervalMs, burst, expected, now: clock.t },
      soon(),
    );
    expect(result.taken).toBe(true);
  };
  const admit = (keyId: string, limit: RateLimit) => limiter.admit(keyId, limit, far());
  const ops = () => calls.map((call) => call.operation);
  return {
    clock,
    limiter,
    calls,
    ops,
    tat,
    another,
    admit,
    far,
    setAfterRead: (hook: () => Promise<void>) => {
      afterRead = hook;
    },
  };
}

describe("RateLimit r and t: what is left of the burst, and when the bucket is full again", () => {
  it("a fresh key's burst counts down by one a request; t is the seconds until tat, rounded up", async () => {
    const { admit, tat } = await containerRig();
    const limit = limitOf("10/s", 20);
    for (let n = 1; n <= 20; n++) {
      const answer = await admit("key", limit);
      expect(answer).toMatchObject({ admitted: true, remaining: 20 - n, failedOpen: false });
      expect(answer.resetSeconds).toBe(Math.ceil(((await tat("key")) - t0) / 1000));
    }
    // Refused: r=0, and t is the Retry-After (docs/rate-limits.md).
    expect(await admit("key", limit)).toMatchObject({
      admitted: false,
      remaining: 0,
      resetSeconds: 1,
      retryAfterSeconds: 1,
      failedOpen: false,
    });
  });

  it("what is left counts the bucket as it refilled since the container last looked", async () => {
    const { clock, admit } = await containerRig();
    const limit = limitOf("10/s", 20);
    for (let n = 0; n < 12; n++) await admit("key", limit);
    clock.t += 500; // five more tokens in the bucket
    expect((await admit("key", limit)).remaining).toBe(20 - 13 + 5);
  });
});

describe("past the burst, leased tokens are usable one interval apart, without a store call", () => {
  it("at 10/s: one admission each 100 ms, refused in between with Retry-After up to the next", async () => {
    const { clock, admit, calls } = await containerRig();
    const limit = limitOf("10/s", 20);
    for (let n = 0; n < 20; n++) await admit("key", limit);
    const asked = calls.length;
    const at = async (ms: number) => {
      clock.t = t0 + ms;
      return (await admit("key", limit)).admitted;
    };
    expect([await at(0), await at(50), await at(99), await at(100), await at(150)]).toEqual([
      false,
      false,
      false,
      true,
      false,
    ]);
    expect([await at(199), await at(200), await at(250)]).toEqual([false, true, false]);
    expect(calls.length).toBe(asked);
  });
});

describe("a refused container asks again once the bucket holds what a lease needs, jittered", () => {
  /**
   * 10/s, burst 20: the burst at t0 (the last lease leaves 2 tokens for later), one refusal
   * until the next is usable, both spent at t0 + 0.3 s; the clock left there.
   */
  async function spendBurst(
    admit: (keyId: string, limit: RateLimit) => Promise<Admission>,
    clock: { t: number },
    limit: RateLimit,
  ): Promise<void> {
    for (let n = 0; n < 20; n++) expect((await admit("key", limit)).admitted).toBe(true);
    expect((await admit("key", limit)).admitted).toBe(false);
    clock.t = t0 + 300;
    expect((await admit("key", limit)).admitted).toBe(true);
    expect((await admit("key", limit)).admitted).toBe(true);
  }

  it("no jitter: it refuses without a store call until then, and asks at that moment", async () => {
    const { clock, admit, calls, ops } = await containerRig({ random: () => 0 });
    const limit = limitOf("10/s", 20);
    await spendBurst(admit, clock, limit);
    // Its leases spent; it was refused before, so it waits for two leases of 5 (tat is 2.2 s
    // ahead: ten tokens at t0 + 1.2 s).
    // Refused: r=0, though the bucket holds a token it does not ask for.
    expect(await admit("key", limit)).toMatchObject({
      admitted: false,
      remaining: 0,
      retryAfterSeconds: 1,
    });
    const asked = calls.length;
    clock.t = t0 + 1199;
    expect((await admit("key", limit)).admitted).toBe(false);
    expect(calls.length).toBe(asked);
    clock.t = t0 + 1200;
    expect(await admit("key", limit)).toMatchObject({ admitted: true, remaining: 9 });
    expect(ops().slice(asked)).toEqual(["read", "take"]);
  });

  it("once a lease is made, it asks again as soon as the bucket holds one token", async () => {
    const { clock, admit } = await containerRig({ random: () => 0 });
    const limit = limitOf("10/s", 20);
    await spendBurst(admit, clock, limit);
    expect((await admit("key", limit)).admitted).toBe(false);
    clock.t = t0 + 1200;
    // The lease of 5 made here, then the bucket's other 5: no longer waiting for two leases.
    const answers = [];
    for (let n = 0; n < 10; n++) answers.push((await admit("key", limit)).admitted);
    expect(answers).toEqual(Array.from({ length: 10 }, () => true));
  });

  it("it waits for two leases, or the burst less a lease when that is less (10/s, burst 10: 5 tokens)", async () => {
    const { clock, admit, calls } = await containerRig({ random: () => 0 });
    const limit = limitOf("10/s", 10); // leases of 5
    for (let n = 0; n < 10; n++) expect((await admit("key", limit)).admitted).toBe(true);
    expect((await admit("key", limit)).admitted).toBe(false);
    clock.t = t0 + 300;
    expect((await admit("key", limit)).admitted).toBe(true);
    expect((await admit("key", limit)).admitted).toBe(true);
    // tat is 1.2 s ahead: 5 tokens at t0 + 0.7 s.
    expect(await admit("key", limit)).toMatchObject({ admitted: false, retryAfterSeconds: 1 });
    const asked = calls.length;
    clock.t = t0 + 699;
    expect((await admit("key", limit)).admitted).toBe(false);
    expect(calls.length).toBe(asked);
    clock.t = t0 + 700;
    expect((await admit("key", limit)).admitted).toBe(true);
  });

  it("a burst of 1: it waits for that one token, and asks nothing more once it is gone again", async () => {
    const { clock, admit, ops, another } = await containerRig({ random: () => 0 });
    const limit = limitOf("1/s", 1);
    expect((await admit("key", limit)).admitted).toBe(true);
    expect(await admit("key", limit)).toMatchObject({ admitted: false, retryAfterSeconds: 1 });
    clock.t = t0 + 999;
    expect((await admit("key", limit)).admitted).toBe(false);
    expect(ops()).toEqual(["read", "take"]);
    clock.t = t0 + 1000;
    await another("key", 1, 1000, 1); // another container spends the token first
    // Its read shows the bucket empty: refused, no write.
    expect(await admit("key", limit)).toMatchObject({ admitted: false, retryAfterSeconds: 1 });
    expect(ops()).toEqual(["read", "take", "read"]);
  });

  it("jittered over the next second: half way, it waits half a second more", async () => {
    const { clock, admit, calls } = await containerRig({ random: () => 0.5 });
    const limit = limitOf("10/s", 20);
    await spendBurst(admit, clock, limit);
    expect(await admit("key", limit)).toMatchObject({
      admitted: false,
      retryAfterSeconds: 2,
      resetSeconds: 2,
    });
    const asked = calls.length;
    clock.t = t0 + 1699;
    expect((await admit("key", limit)).admitted).toBe(false);
    expect(calls.length).toBe(asked);
    clock.t = t0 + 1700;
    expect((await admit("key", limit)).admitted).toBe(true);
  });

  it("refusals in a row spread the next ask over two seconds, never more; a lease starts again at one", async () => {
    const { clock, admit, another } = await containerRig({ random: () => 0.9 });
    const limit = limitOf("10/s", 20);
    await another("key", 20); // the bucket is empty
    // Its first lease would be 2: it asks again when the bucket holds 4, at t0 + 0.4 s + 0.9 s.
    expect((await admit("key", limit)).retryAfterSeconds).toBe(2);
    clock.t = t0 + 1300;
    await another("key", 13); // others took what came back
    // Second refusal in a row: 4 tokens at t0 + 1.7 s, jittered over 2 s.
    expect(await admit("key", limit)).toMatchObject({ admitted: false, retryAfterSeconds: 3 });
    clock.t = t0 + 3500;
    await another("key", 20);
    // Third: still over 2 s (4 tokens at t0 + 3.9 s, + 1.8 s).
    expect(await admit("key", limit)).toMatchObject({ admitted: false, retryAfterSeconds: 3 });
    clock.t = t0 + 5700;
    expect((await admit("key", limit)).admitted).toBe(true);
    expect((await admit("key", limit)).admitted).toBe(true);
    await another("key", 18);
    // Refused after a lease was made: one second again (10 tokens at t0 + 6.7 s, + 0.9 s).
    expect(await admit("key", limit)).toMatchObject({ admitted: false, retryAfterSeconds: 2 });
  });

  it("a slow key's next ask is jittered over a second too: 1/min waits for its token, a second more at most", async () => {
    const { admit, calls, clock } = await containerRig({ random: () => 0.5 });
    const limit = limitOf("1/min", 2);
    expect((await admit("key", limit)).admitted).toBe(true);
    expect((await admit("key", limit)).admitted).toBe(true);
    const asked = calls.length;
    // The bucket holds a token again in 60 s; jittered over a second, not over the 60 s token.
    expect(await admit("key", limit)).toMatchObject({ admitted: false, retryAfterSeconds: 61 });
    expect(calls.length).toBe(asked);
    clock.t = t0 + 60_500;
    expect((await admit("key", limit)).admitted).toBe(true);
  });
});

describe("a lease in flight: other requests for the key wait for it instead of asking too", () => {
  it("two requests at once cost one read and one write", async () => {
    const { limiter, ops, far } = await containerRig();
    const limit = limitOf("10/s", 20);
    const answers = await Promise.all([
      limiter.admit("key", limit, far()),
      limiter.admit("key", limit, far()),
    ]);
    expect(answers.map((answer) => answer.admitted)).toEqual([true, true]);
    expect(ops()).toEqual(["read", "take"]);
  });
});

describe("a lease takes at most the limiter's budget of a request's time (default 1 s)", () => {
  it("each store call's deadline: the request's, or now + 1 s if sooner", async () => {
    const { clock, limiter, calls } = await containerRig();
    const limit = limitOf("10/s", 20);
    await limiter.admit("a", limit, clock.t + 10_000);
    await limiter.admit("b", limit, clock.t + 300);
    expect(calls.map((call) => call.deadline - t0)).toEqual([1000, 1000, 300, 300]);
  });

  it("a budget of its own", async () => {
    const { clock, limiter, calls } = await containerRig({ budgetMs: 250 });
    await limiter.admit("a", limitOf("10/s", 20), clock.t + 10_000);
    expect(calls.map((call) => call.deadline - t0)).toEqual([250, 250]);
  });
});

describe("another container wrote between the read and the write: one more write, not a 429", () => {
  // It read an absent bucket (idle form); the other container's lease made it draining.
  it.each([
    ["enough left: the second write is made", 5, true, ["read", "take", "take"], 700],
    ["one token left is enough for the second", 19, true, ["read", "take", "take"], 2100],
    ["too little left: refused, no more writes", 20, false, ["read", "take"], 2000],
  ] as const)("%s", async (_, taken, admitted, operations, tatAfter) => {
    const { admit, ops, tat, setAfterRead, another } = await containerRig();
    setAfterRead(() => another("key", taken));
    expect((await admit("key", limitOf("10/s", 20))).admitted).toBe(admitted);
    expect(ops()).toEqual(operations);
    expect(await tat("key")).toBe(t0 + tatAfter);
  });
});

describe("a lease is about two seconds of this container's own demand, up to a whole lease, and no more than it can spend in time", () => {
  it("requests at one moment count as a tenth of a second's demand", async () => {
    const { admit, tat } = await containerRig();
    const limit = limitOf("100/s", 200); // a whole lease: 50
    await admit("key", limit); // never leased: one request's two seconds, 2 tokens
    await admit("key", limit);
    await admit("key", limit);
    // 2 requests since the lease, as in 0.1 s: 20/s, a request every 50 ms against a token every
    // 10 ms. Ticket k is spent 40k ms after its slot, which may pass by 290 ms (graceMs): 8 tokens.
    expect(await tat("key")).toBe(t0 + (2 + 8) * 10);
  });

  it("a container asking faster than the rate takes a whole lease, no more", async () => {
    const { clock, admit, tat } = await containerRig();
    const limit = limitOf("10/s", 20); // a whole lease: 5
    await admit("key", limit); // 2 tokens: tat at t0 + 200
    clock.t = t0 + 100;
    await admit("key", limit);
    await admit("key", limit);
    // 2 requests in 0.1 s: 20/s, 40 tokens in two seconds; 5 taken.
    expect(await tat("key")).toBe(t0 + 200 + 5 * 100);
  });

  it("a container seeing two requests a second of a 50/s key leases one token at a time", async () => {
    const { clock, admit, tat } = await containerRig();
    const limit = limitOf("50/s", 100);
    await admit("key", limit); // 2 tokens
    expect(await tat("key")).toBe(t0 + 40);
    clock.t = t0 + 500;
    await admit("key", limit); // its second ticket's slot (t0 + 20) and grace (280 ms) are past
    clock.t = t0 + 1000;
    await admit("key", limit);
    // 2 requests a second: a second token would be spent 480 ms after its slot, past the grace.
    expect(await tat("key")).toBe(t0 + 1000 + 20);
  });
});

describe("a lease counts how far ahead the bucket's slots are", () => {
  it("two requests a second of a 50/s key whose bucket others drained: 3 tokens, not 1", async () => {
    const { clock, admit, tat, another } = await containerRig();
    const limit = limitOf("50/s", 100);
    await admit("key", limit); // 2 tokens: tat at t0 + 40
    await another("key", 75, 20, 100); // tat at t0 + 1540
    clock.t = t0 + 500;
    await admit("key", limit); // its second ticket lapsed at t0 + 300: a lease
    // At 2 requests a second, ticket k is spent 480k ms after its slot would be if the bucket
    // were full; its slots start 1,040 ms ahead, and the grace is 280 ms: 3 tokens in time.
    expect(await tat("key")).toBe(t0 + 1540 + 3 * 20);
  });
});

describe("a leased ticket lapses a little after the bucket gives its token back", () => {
  it("the grace is a tenth of what the contract allows over a second, less a token", () => {
    expect(graceMs(limitOf("20/s", 40))).toBe(250);
    expect(graceMs(limitOf("50/s", 100))).toBe(280);
    expect(graceMs(limitOf("1/min", 2))).toBe(0);
  });

  it("a ticket is still spent without asking until its slot plus the grace", async () => {
    const { clock, admit, calls } = await containerRig();
    const limit = limitOf("50/s", 100);
    await admit("key", limit); // a lease of 2 from a full bucket: the second token's slot is t0 + 20
    const asked = calls.length;
    clock.t = t0 + 20 + 280;
    expect((await admit("key", limit)).admitted).toBe(true);
    expect(calls.length).toBe(asked);
  });

  it("a lease the store answered late keeps its tickets for the grace after it came back", async () => {
    const { clock, admit, ops, setAfterRead } = await containerRig();
    const limit = limitOf("50/s", 100);
    setAfterRead(() => {
      clock.t += 400; // the store answers 400 ms after it was asked: past the slots' grace
      return Promise.resolve();
    });
    await admit("key", limit);
    clock.t = t0 + 400 + 280;
    expect((await admit("key", limit)).admitted).toBe(true);
    expect(ops()).toEqual(["read", "take"]);
    clock.t = t0 + 400 + 281;
    expect((await admit("key", limit)).admitted).toBe(true);
    expect(ops()).toEqual(["read", "take", "read", "take"]);
  });

  it("one millisecond later it is dropped and the container leases afresh", async () => {
    const { clock, admit, ops, tat } = await containerRig();
    const limit = limitOf("50/s", 100);
    await admit("key", limit);
    clock.t = t0 + 20 + 281;
    expect((await admit("key", limit)).admitted).toBe(true);
    expect(ops()).toEqual(["read", "take", "read", "take"]);
    // The lapsed token was not spent: the bucket counted it, and now counts the new lease.
    expect(await tat("key")).toBe(t0 + 301 + 20);
  });
});

describe("a limit changed by the operator applies at the next request: the container starts afresh", () => {
  it("a raised burst: a container refused under the old one is admitted at once", async () => {
    const { admit } = await containerRig();
    for (let n = 0; n < 20; n++) await admit("key", limitOf("10/s", 20));
    expect((await admit("key", limitOf("10/s", 20))).admitted).toBe(false);
    expect((await admit("key", limitOf("10/s", 40))).admitted).toBe(true);
  });

  it.each([
    [
      "a changed rate: tokens leased under the old one are not spent, the bucket is asked",
      "20/s",
      4,
    ],
    ["the same limit again keeps them", "10/s", 2],
  ] as const)("%s", async (_, rate, storeCalls) => {
    const { admit, ops } = await containerRig();
    await admit("key", limitOf("10/s", 20)); // a lease of 2: one left
    expect((await admit("key", limitOf(rate, 20))).admitted).toBe(true);
    expect(ops()).toEqual(["read", "take", "read", "take"].slice(0, storeCalls));
  });

  it("a raised limit admits at once: the bucket's debt is kept in tokens, not in time", async () => {
    const { limiters, deadline } = await rig(2);
    const [first, second] = [nth(limiters, 0), nth(limiters, 1)];
    const old = limitOf("1/min", 5);
    for (let i = 0; i < 5; i++) await first.admit("key_e", old, deadline());
    expect((await first.admit("key_e", old, deadline())).admitted).toBe(false);
    expect((await second.admit("key_e", old, deadline())).admitted).toBe(false);
    const raised = limitOf("100/s", 200);
    expect((await first.admit("key_e", raised, deadline())).admitted).toBe(true);
    expect((await second.admit("key_e", raised, deadline())).admitted).toBe(true);
  });

  it("a lowered limit refuses once the new burst is used", async () => {
    const { limiters, deadline } = await rig();
    const limiter = nth(limiters, 0);
    for (let i = 0; i < 3; i++) await limiter.admit("key_g", limitOf("100/s", 200), deadline());
    const lowered = limitOf("1/min", 2);
    const answers = [];
    for (let i = 0; i < 60; i++)
      answers.push((await limiter.admit("key_g", lowered, deadline())).admitted);
    // Tokens already leased under the old limit may still be spent, then the new one holds.
    expect(answers.filter(Boolean).length).toBeLessThanOrEqual(50 + 2);
    expect(answers.at(-1)).toBe(false);
  });
});

describe("fail open: the store's failure admits, and for a second the store is left alone", () => {
  /** A limiter whose store is out of reach (nothing listens there): every lease fails. */
  function unreachable() {
    const nowhere = new DynamoDb({
      region: "local",
      endpoint: "http://127.0.0.1:9",
      credentials: () => Promise.resolve({ accessKeyId: "local", secretAccessKey: "local" }),
      baseDelayMs: 5,
    });
    onTestFinished(() => {
      nowhere.close();
    });
    const clock = { t: Date.now() };
    const buckets = new RateLimitBucketStore(nowhere, "nowhere");
    const limiter = new RateLimiter({ buckets, now: () => clock.t, random: () => 0 });
    // The request's deadline: the client gives up on the store within a tenth of a second.
    const admit = () => limiter.admit("key", limitOf("10/s", 20), Date.now() + 100);
    return { clock, admit };
  }

  it("admitted with the cause once, then without it (the store not asked) until 1 s has passed", async () => {
    const { clock, admit } = unreachable();
    const start = clock.t;
    const failed = { admitted: true, failedOpen: true, cause: expect.any(Error) as unknown };
    expect(await admit()).toMatchObject(failed);
    clock.t = start + 999;
    expect(await admit()).toEqual(
      expect.objectContaining({ admitted: true, failedOpen: true, cause: undefined }),
    );
    clock.t = start + 1000;
    expect(await admit()).toMatchObject(failed);
  });

  it("the next request after the failure does not wait on it: the lease in flight is settled", async () => {
    const { admit } = unreachable();
    const answers = await Promise.all([admit(), admit()]);
    expect(answers.map((answer) => answer.failedOpen)).toEqual([true, true]);
  });
});

describe("a container keeps the state of at most 10,000 keys, then starts afresh", () => {
  it("a key known empty is refused without asking until 10,000 other keys have been seen", async () => {
    let reads = 0;
    // Every bucket is empty for a long while.
    const buckets: RateLimitBucketRepository = {
      read: (_keyId, intervalMs) => {
        reads += 1;
        return Promise.resolve({ tat: t0 + 3_600_000, intervalMs });
      },
      take: () => Promise.reject(new Error("no lease while the bucket is empty")),
    };
    const limiter = new RateLimiter({ buckets, now: () => t0, random: () => 0 });
    const limit = limitOf("10/s", 20);
    expect((await limiter.admit("first", limit, t0 + 10_000)).admitted).toBe(false);
    for (let n = 1; n < 10_000; n++) await limiter.admit(`key${String(n)}`, limit, t0 + 10_000);
    expect(reads).toBe(10_000);
    expect((await limiter.admit("first", limit, t0 + 10_000)).admitted).toBe(false);
    expect(reads).toBe(10_000);
    await limiter.admit("one more", limit, t0 + 10_000);
    expect(reads).toBe(10_001);
    expect((await limiter.admit("first", limit, t0 + 10_000)).admitted).toBe(false);
    expect(reads).toBe(10_002);
  });
});

describe("containers share one bucket: admitted within the contract's bounds", () => {
  it.each([
    ["50/s", 100, 3],
    ["50/s", 100, 8],
    ["200/s", 400, 3],
  ] as const)(
    "%s burst %i across %i containers flooding for 30 s, at most 0.1 writes a request at 50/s and above",
    async (rate, burst, containers) => {
      const { clock, limiters, writes, deadline } = await rig(containers);
      const limit = limitOf(rate, burst);
      const seconds = 30;
      const end = clock.t + seconds * 1000;
      let admitted = 0;
      // Every container gets a request every 2 ms: far more than the limit.
      while (clock.t < end) {
        for (const limiter of limiters) {
          if ((await limiter.admit("key_d", limit, deadline())).admitted) admitted += 1;
        }
        clock.t += 2;
      }
      const expected = limit.perSecond * seconds;
      expect(admitted).toBeGreaterThanOrEqual(0.9 * expected);
      expect(admitted).toBeLessThanOrEqual(1.1 * (expected + burst));
      expect(writes() / admitted).toBeLessThanOrEqual(0.1);
    },
  );
});

/** The window of at least 1 s that holds the most admissions against 1.1 × (rate × t + burst). */
function worstWindow(times: readonly number[], limit: RateLimit) {
  let worst = { admitted: 0, seconds: 1, ratio: 0 };
  for (let i = 0; i < times.length; i++) {
    for (let j = i; j < times.length; j++) {
      const seconds = Math.max(1, ((times[j] ?? 0) - (times[i] ?? 0)) / 1000);
      const admitted = j - i + 1;
      const ratio = admitted / (limit.perSecond * seconds + limit.burst);
      if (ratio > worst.ratio) worst = { admitted, seconds, ratio };
    }
  }
  return worst;
}

/** A fixed sequence in [0, 1) for the jitter, so a case runs the same every time. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

describe("no window admits more than the bucket allows, after any quiet spell, across containers", () => {
  /**
   * Every container asks every `everyMs` for 3 s (each ends holding tickets of its last lease),
   * then nothing for `quietMs` (the bucket refills meanwhile), then every container asks every
   * 2 ms for 3 s. Returns the moment of every admission.
   */
  async function askQuietFlood(containers: number, everyMs: number, quietMs: number) {
    const { clock, limiters, deadline } = await rig(containers, seeded(containers * everyMs));
    const limit = limitOf("20/s", 40);
    const times: number[] = [];
    const ask = async (ms: number, every: number) => {
      const end = clock.t + ms;
      while (clock.t < end) {
        for (const limiter of limiters) {
          if ((await limiter.admit("key_q", limit, deadline())).admitted) times.push(clock.t);
        }
        clock.t += every;
      }
    };
    await ask(3000, everyMs);
    clock.t += quietMs;
    await ask(3000, 2);
    return worstWindow(times, limit);
  }

  it.each([
    [3, 200, 1000],
    [3, 300, 2000],
    [3, 200, 4000],
    [6, 200, 1000],
    [6, 300, 2000],
    [9, 300, 2000],
    [3, 2, 2000],
  ] as const)(
    "20/s burst 40, %i containers asking every %i ms, quiet for %i ms, then flooding: every window of 1 s or more within 1.1 × (rate × t + burst)",
    async (containers, everyMs, quietMs) => {
      const worst = await askQuietFlood(containers, everyMs, quietMs);
      expect(worst.ratio).toBeLessThanOrEqual(1.1);
    },
  );
});
