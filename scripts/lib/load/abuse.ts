/**
 * The abuse scenario of `npm run load -- --scenario abuse`: three local servers on one embedded
 * store (./local.ts), reached through the store meter (local/storeMeter.ts), which counts a
 * refused conditional write as the write unit it costs. One key, limited to 50/s with a burst of
 * 100, floods from many connections spread over the three servers; a second key lists at 10
 * requests/s meanwhile. Then the buckets' partition goes out of reach (an outage of the limiter's
 * store calls only) while both keep asking.
 *
 * The flooder mixes the keyed operations: of every ten requests one create (with its own
 * Idempotency-Key), three lists and six `GET /v1/store/orders` (501, no store call of its own).
 * "Nothing stored for a 429" is checked in the store itself afterwards: exactly as many
 * categories, and as many idempotency records of the flooding key, as 201s were answered. (All
 * creates would measure the emulator, not the limit: on two shared cores an embedded store takes
 * about 60 creates a second in all, so the flooder could not keep asking faster than its limit.)
 */
import { performance } from "node:perf_hooks";
import { ApiKeyStore, hashApiKey } from "../../../lib/repositories/apiKeys.ts";
import type { KeyRateLimit } from "../../../lib/repositories/apiKeys.ts";
import { CategoryStore } from "../../../lib/repositories/categories.ts";
import { partitions } from "../../../lib/table/schema.ts";
import { Table } from "../../../lib/table/table.ts";
import type { StoreEngine } from "../../../local/embeddedDynamo.ts";
import { localTableName } from "../../../local/localKeys.ts";
import type { Units } from "../../../local/storeMeter.ts";
import { storeError } from "../../../local/storeProxy.ts";
import type { Answer } from "../httpClient.ts";
import { agentFor, createCategory, getCategories, send } from "../httpClient.ts";
import { latencyOf } from "../stats.ts";
import { check, concurrently, reportText, startLocal, verdictOf } from "./local.ts";

export const flooderLimit: KeyRateLimit = { rate: "50/s", burst: 100 };
const flooderPerSecond = 50;
/** The second key asks 10 times a second, well inside its own limit. */
export const steadyLimit: KeyRateLimit = { rate: "20/s", burst: 40 };
const steadyPerSecond = 10;
const serverCount = 3;

export interface AbuseOptions {
  /** How long the flood lasts (the issue's run: 30 s). */
  readonly seconds: number;
  /** How long the buckets are out of reach afterwards. */
  readonly outageSeconds: number;
  /** The flooder's connections, spread over the servers. */
  readonly connections: number;
  readonly engine: StoreEngine;
  /** Build dist/ first (default true; the tests have built it). */
  readonly build?: boolean;
  readonly log?: (line: string) => void;
}

export type AbuseReport = ReturnType<typeof reportOf>;

type Tally = ReturnType<typeof newTally>;
const newTally = () => ({
  sent: 0,
  admitted: 0,
  /** Admitted creates (201). */
  created: 0,
  limited: 0,
  /** Statuses other than 201/200 and 429, by status. */
  other: {} as Record<string, number>,
  /** 429s without a whole-second Retry-After of at least 1. */
  badRetryAfter: 0,
  /** Answers without both RateLimit fields. */
  missingFields: 0,
  latencyMs: [] as number[],
});

/** A 201, 200 or 501 (`success`) is admitted; a 429 refused; anything else is a problem. */
function record(tally: Tally, answer: Answer, started: number, success: number): void {
  tally.latencyMs.push(performance.now() - started);
  if (answer.status === 201) tally.created += 1;
  if (answer.status === success) tally.admitted += 1;
  else if (answer.status === 429) {
    tally.limited += 1;
    const retryAfter = Number(answer.headers["retry-after"]);
    if (!Number.isInteger(retryAfter) || retryAfter < 1) tally.badRetryAfter += 1;
  } else tally.other[String(answer.status)] = (tally.other[String(answer.status)] ?? 0) + 1;
  if (!answer.headers["ratelimit-policy"] || !answer.headers.ratelimit) tally.missingFields += 1;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

export async function runAbuse(options: AbuseOptions): Promise<AbuseReport> {
  const log = options.log ?? (() => undefined);
  // While `outage.on`, every call on a bucket is answered 503 ServiceUnavailable (retryable): the
  // bucket is out of reach, everything else works. `answers` counts those calls.
  const outage = { on: false, answers: 0 };
  // Each server's own printed key is unused here; the two keys below carry their limits. One
  // container per function and server, queued: the run's containers are the servers it names
  // (the bounds and the write units per admitted request are set for that many; a limiter per
  // container leases its own tokens, so more containers write more).
  const local = await startLocal({
    engine: options.engine,
    servers: serverCount,
    env: { LOCAL_CONCURRENCY: "1" },
    build: options.build,
    meter: {
      refusedWriteUnit: true,
      before: ({ bucket }) => {
        if (!bucket || !outage.on) return undefined;
        outage.answers += 1;
        return storeError(503, "com.amazonaws.dynamodb.v20120810#ServiceUnavailable", "outage");
      },
    },
  });
  const { servers, db, meter } = local;
  try {
    if (!meter) throw new Error("the store meter did not start");
    const keys = new ApiKeyStore(db, localTableName);
    const soon = () => Date.now() + 10_000;
    const flooder = await keys.issue("abuse-flooder", soon(), { rateLimit: flooderLimit });
    const steady = await keys.issue("abuse-steady", soon(), { rateLimit: steadyLimit });
    const agents = servers.map((server) => agentFor(server.baseUrl, options.connections + 4));
    let turn = 0;
    const next = () => {
      const index = turn++ % servers.length;
      return { baseUrl: servers[index]?.baseUrl ?? "", agent: agents[index] };
    };
    const runId = Math.random().toString(36).slice(2, 10);
    let sequence = 0;
    const hit = async (tally: Tally): Promise<void> => {
      const { baseUrl, agent } = next();
      const n = ++sequence;
      const started = performance.now();
      const sent = { ...(agent && { agent }), timeoutMs: 30_000 };
      tally.sent += 1;
      if (n % 10 === 0) {
        const answer = await createCategory(
          baseUrl,
          flooder.apiKey,
          { name: `abuse ${runId} ${n}` },
          { "idempotency-key": `abuse-${runId}-${n}` },
          sent,
        );
        record(tally, answer, started, 201);
      } else if (n % 10 <= 3) {
        record(tally, await getCategories(baseUrl, flooder.apiKey, sent), started, 200);
      } else {
        const call = { path: "/v1/store/orders", key: flooder.apiKey };
        record(tally, await send(baseUrl, call, sent), started, 501);
      }
    };
    const flood = (tally: Tally, until: number, connections: number) =>
      concurrently(connections, async () => {
        while (performance.now() < until) await hit(tally);
      });

    log(
      `abuse: ${serverCount} servers on one ${options.engine} store; flooder ${flooderLimit.rate} ` +
        `burst ${flooderLimit.burst} from ${options.connections} connections for ${options.seconds} s, ` +
        `a second key (${steadyLimit.rate}) at ${steadyPerSecond}/s, then a ${options.outageSeconds} s outage of the buckets`,
    );
    // The run's units only, not those of the servers' start or the keys' issue.
    meter.reset();
    /** A copy of the units so far on a key's bucket. */
    const bucketUnits = ({ record }: typeof flooder): Units => ({
      ...(meter.buckets.get(partitions.rateLimit(record.bucket)) ?? {
        writeUnits: 0,
        readUnits: 0,
        calls: 0,
        refusedWrites: 0,
      }),
    });
    const steadyTally = newTally();
    const start = performance.now();
    const floodEnd = start + options.seconds * 1000;
    const outageStart = floodEnd + 500;
    const outageEnd = outageStart + options.outageSeconds * 1000;
    const steadyRequests: Promise<void>[] = [];
    const steadyLoop = (async () => {
      for (let k = 0; start + (k * 1000) / steadyPerSecond < outageEnd; k++) {
        const due = start + (k * 1000) / steadyPerSecond;
        await sleep(Math.max(0, due - performance.now()));
        const { baseUrl, agent } = next();
        const started = performance.now();
        steadyTally.sent += 1;
        steadyRequests.push(
          getCategories(baseUrl, steady.apiKey, {
            ...(agent && { agent }),
            timeoutMs: 30_000,
          }).then((answer) => {
            record(steadyTally, answer, started, 200);
          }),
        );
      }
    })();

    const floodTally = newTally();
    await flood(floodTally, floodEnd, options.connections);
    const floodSeconds = (performance.now() - start) / 1000;
    const during = { limiter: bucketUnits(flooder), requests: { ...meter.requests } };
    log(`abuse: flood done, ${floodTally.admitted} admitted, ${floodTally.limited} refused`);

    await sleep(Math.max(0, outageStart - performance.now()));
    outage.on = true;
    const outageTally = newTally();
    await flood(outageTally, outageEnd, Math.max(2, Math.floor(options.connections / 6)));
    outage.on = false;
    await steadyLoop;
    await Promise.all(steadyRequests);
    for (const agent of agents) agent.destroy();
    await sleep(300); // the metric lines trail the answers
    const steadyWrites = bucketUnits(steady).writeUnits;

    const categories = (await new CategoryStore(db, localTableName).list(soon())).length;
    const flooderRecords = (
      await new Table(db, localTableName).queryAll(
        { partition: partitions.idempotency(hashApiKey(flooder.apiKey)), projection: ["sk"] },
        soon(),
      )
    ).length;
    const failOpenMetric = servers.reduce((sum, server) => sum + failOpens(server.metricLines), 0);
    return reportOf({
      options,
      floodTally,
      floodSeconds,
      during,
      steadyTally,
      steadyWrites,
      outageTally,
      bucketCallsRefused: outage.answers,
      failOpenMetric,
      stored: {
        categories,
        flooderRecords,
        created: floodTally.created + outageTally.created,
      },
    });
  } finally {
    await local.stop();
  }
}

/** The RateLimitFailOpen counts in a server's EMF lines (lib/metrics.ts). */
function failOpens(lines: readonly string[]): number {
  let total = 0;
  for (const line of lines) {
    const value = (JSON.parse(line) as { RateLimitFailOpen?: number | number[] }).RateLimitFailOpen;
    total += Array.isArray(value) ? value.reduce((a, b) => a + b, 0) : (value ?? 0);
  }
  return total;
}

function reportOf(run: {
  options: AbuseOptions;
  floodTally: Tally;
  floodSeconds: number;
  during: { limiter: Units; requests: Units };
  steadyTally: Tally;
  steadyWrites: number;
  outageTally: Tally;
  bucketCallsRefused: number;
  failOpenMetric: number;
  stored: { categories: number; flooderRecords: number; created: number };
}) {
  const { options, floodTally, floodSeconds, during, steadyTally, outageTally, stored } = run;
  const lower = 0.9 * flooderPerSecond * options.seconds;
  const upper = 1.1 * (flooderPerSecond * floodSeconds + flooderLimit.burst);
  const admitted = floodTally.admitted;
  const perAdmitted = admitted === 0 ? Infinity : during.limiter.writeUnits / admitted;
  // A key seen at a trickle by every container leases a token or two at a time: its tickets
  // lapse soon after the bucket gives their tokens back (docs/rate-limits.md, "Accuracy"). What
  // bounds it is that a lease admits its request: never more than a write per admission.
  const steadyPerAdmitted =
    steadyTally.admitted === 0 ? Infinity : run.steadyWrites / steadyTally.admitted;
  const fiveHundreds = Object.entries(outageTally.other)
    .filter(([status]) => Number(status) >= 500)
    .reduce((sum, [, count]) => sum + count, 0);
  const flood = {
    seconds: Math.round(floodSeconds * 10) / 10,
    admitted,
    limited: floodTally.limited,
    sent: floodTally.sent,
    bounds: [Math.ceil(lower), Math.floor(upper)] as const,
    /** The limiter's units on the flooding key's bucket. */
    limiterWriteUnits: during.limiter.writeUnits,
    limiterReadUnits: during.limiter.readUnits,
    limiterRefusedWrites: during.limiter.refusedWrites,
    writeUnitsPerAdmitted: Math.round(perAdmitted * 10_000) / 10_000,
    requestWriteUnitsPerCreate:
      floodTally.created === 0
        ? 0
        : Math.round((during.requests.writeUnits / floodTally.created) * 100) / 100,
  };
  const steady = {
    sent: steadyTally.sent,
    succeeded: steadyTally.admitted,
    latency: latencyOf(steadyTally.latencyMs),
    /** The limiter's write units on the second key's bucket over the whole run. */
    limiterWriteUnits: run.steadyWrites,
    writeUnitsPerAdmitted: Math.round(steadyPerAdmitted * 10_000) / 10_000,
  };
  const outage = {
    seconds: options.outageSeconds,
    sent: outageTally.sent,
    admitted: outageTally.admitted,
    limited: outageTally.limited,
    fiveHundreds,
    bucketCallsRefused: run.bucketCallsRefused,
    failOpenMetric: run.failOpenMetric,
  };
  const phases = [
    ["flood", floodTally],
    ["second key", steadyTally],
    ["outage", outageTally],
  ] as const;
  /** Per phase, what `count` finds in its tally, or "none". */
  const perPhase = (count: (tally: Tally) => string | number): string =>
    phases
      .map(([name, tally]) => [name, count(tally)] as const)
      .filter(([, found]) => found !== "" && found !== 0)
      .map(([name, found]) => `${name} ${found}`)
      .join(", ") || "none";
  const checks = [
    check(
      "flooder",
      admitted >= lower && admitted <= upper,
      `${admitted} admitted of ${flood.sent} in ${flood.seconds} s ` +
        `(bounds [${flood.bounds[0]}, ${flood.bounds[1]}]), ${flood.limited} answered 429`,
    ),
    check(
      "flooder's bucket",
      perAdmitted <= 0.1,
      `${flood.writeUnitsPerAdmitted} write units per admitted request (at most 0.1): ` +
        `${flood.limiterWriteUnits} (${flood.limiterRefusedWrites} refused conditions), ${flood.limiterReadUnits} ` +
        `read units; the creates' own ${flood.requestWriteUnitsPerCreate} per create`,
    ),
    check(
      "second key",
      steadyTally.admitted === steadyTally.sent,
      `${steady.succeeded} of ${steady.sent} succeeded at ${steadyPerSecond}/s (${steadyLimit.rate}), ` +
        `p50 ${steady.latency.p50} ms, p99 ${steady.latency.p99} ms, max ${steady.latency.max} ms`,
    ),
    check(
      "second's bucket",
      steadyPerAdmitted <= 1,
      `${steady.writeUnitsPerAdmitted} write units per admitted request (at most 1): ${steady.limiterWriteUnits}`,
    ),
    check(
      "other answers",
      phases.every(([, tally]) => Object.keys(tally.other).length === 0),
      perPhase((tally) =>
        Object.entries(tally.other)
          .map(([status, n]) => `${n} × ${status}`)
          .join(" "),
      ),
    ),
    check(
      "Retry-After",
      phases.every(([, tally]) => tally.badRetryAfter === 0),
      `${perPhase((tally) => tally.badRetryAfter)} (429s without a whole second, at least 1)`,
    ),
    check(
      "RateLimit fields",
      phases.every(([, tally]) => tally.missingFields === 0),
      `${perPhase((tally) => tally.missingFields)} (answers without both)`,
    ),
    check(
      "outage",
      outage.admitted > 0,
      `${outage.seconds} s: ${outage.admitted} admitted, ${outage.limited} refused by containers ` +
        `that knew, ${outage.fiveHundreds} 5xx; ${outage.bucketCallsRefused} bucket calls failed`,
    ),
    check(
      "fail-open metric",
      outage.failOpenMetric > 0,
      `RateLimitFailOpen ${outage.failOpenMetric}`,
    ),
    check(
      "stored",
      stored.categories === stored.created && stored.flooderRecords === stored.created,
      `${stored.categories} categories and ${stored.flooderRecords} idempotency records for ${stored.created} 201s`,
    ),
  ];
  return { ...verdictOf(checks), engine: options.engine, flood, steady, outage, stored, checks };
}

export function formatReport(report: AbuseReport): string {
  const head = [
    `${serverCount} servers on one ${report.engine} store; flooder ${flooderLimit.rate}, burst ${flooderLimit.burst}`,
  ];
  return reportText(
    head,
    report.checks,
    "the limit held, the second key was served, nothing stored for a 429",
  );
}
