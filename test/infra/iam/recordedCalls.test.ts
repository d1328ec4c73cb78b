/**
 * The IAM cross-check: each function's role allows exactly the DynamoDB calls the function's
 * code makes, on exactly the partitions it makes them on — derived from the code, not listed
 * here. The calls are recorded once for this file (test/support/iamRecording.ts: the real
 * bundles behind the local server, every route, normal, lost answers and each kind of call
 * failing); each recorded call (X-Amz-Target + partition key) is then checked against the
 * role's statements:
 *
 *   - a call no statement allows fails the test: the template must grant it;
 *   - a grant (action × LeadingKeys value) no call used fails the test: the template grants
 *     more than the code needs.
 *
 * LeadingKeys values may be exact (ForAllValues:StringEquals) or patterns such as
 * "IDEMPOTENCY#*" (ForAllValues:StringLike).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localTableName } from "../../../local/localKeys.ts";
import { allows, grantsOf, suggestedValue, valueMatches } from "../../support/iamGrants.ts";
import type { Recording } from "../../support/iamRecording.ts";
import {
  apiFunctionSpecs,
  kindsOf,
  maxExploredKinds,
  recordCalls,
  routes,
} from "../../support/iamRecording.ts";
import { scenarios } from "../../support/iamScenarios.ts";

let recording: Recording;

beforeAll(async () => {
  recording = await recordCalls();
}, 180_000);

afterAll(async () => {
  await recording.close();
});

describe("the recording", () => {
  it("covers every route of the template", () => {
    const covered = new Set(scenarios("x").map((scenario) => scenario.route));
    expect([...routes.keys()].filter((route) => !covered.has(route))).toEqual([]);
  });

  it("got the answers the scenarios intend (normal round)", () => {
    const wrong = recording.statuses
      .filter(({ round, scenario }) => round === "normal" && scenario.expect !== undefined)
      .filter(({ scenario, status }) => status !== scenario.expect)
      .map(({ scenario, status }) => `${scenario.method} ${scenario.path}: ${status}`);
    expect(wrong).toEqual([]);
  });

  it("saw every function call the store, and retries after lost answers", () => {
    const labels = new Set(recording.accesses().map((access) => access.label));
    expect([...labels].sort()).toEqual(apiFunctionSpecs.map((spec) => spec.name).sort());
    expect(recording.proxy.calls.some((call) => call.lost)).toBe(true);
  });

  it("tried the failure of every kind of call it saw", () => {
    expect(recording.explored.length).toBeLessThan(maxExploredKinds);
    expect([...recording.explored].sort()).toEqual(kindsOf(recording.accesses()).sort());
    expect(recording.proxy.calls.some((call) => call.fault === "conditional")).toBe(true);
    expect(recording.proxy.calls.some((call) => call.fault === "error")).toBe(true);
  });

  it("calls only the stage's table, never an index, always within one partition", () => {
    const odd = recording
      .accesses()
      .filter(
        (access) =>
          access.table !== localTableName ||
          access.index !== undefined ||
          access.leadingKey === undefined,
      )
      .map((access) => `${access.label}: ${access.operation} ${JSON.stringify(access)}`);
    expect(odd).toEqual([]);
  });
});

describe.each(apiFunctionSpecs.map((spec) => [spec.name, spec] as const))(
  "%s's role",
  (_name, spec) => {
    it("allows every DynamoDB call the function makes", () => {
      const { role, grants } = grantsOf(spec.logicalId);
      const missing = new Set<string>();
      for (const access of recording.accesses().filter((a) => a.label === spec.name)) {
        if (!grants.some((grant) => allows(grant, access))) {
          missing.add(
            `${spec.name} calls ${access.action} (${access.operation}) on partition ` +
              `"${access.leadingKey ?? ""}", which ${role} does not allow: add ${access.action} ` +
              `with dynamodb:LeadingKeys "${suggestedValue(access.leadingKey)}" to it` +
              (suggestedValue(access.leadingKey).includes("*") ? " (ForAllValues:StringLike)" : ""),
          );
        }
      }
      expect([...missing]).toEqual([]);
    });

    it("allows nothing the function does not call", () => {
      const { role, grants } = grantsOf(spec.logicalId);
      const accesses = recording.accesses().filter((a) => a.label === spec.name);
      const unused: string[] = [];
      for (const grant of grants) {
        for (const pattern of grant.leadingKeys ?? ["(any partition)"]) {
          const used = accesses.some(
            (access) =>
              allows(grant, access) &&
              (grant.leadingKeys === undefined ||
                (access.leadingKey !== undefined &&
                  valueMatches(grant, pattern, access.leadingKey))),
          );
          if (!used) {
            unused.push(
              `${role} (${grant.sid}) allows ${grant.action} on "${pattern}", but ${spec.name} ` +
                `never makes that call: remove it from the template`,
            );
          }
        }
      }
      expect(unused).toEqual([]);
    });

    it("scopes every DynamoDB grant to the table and to listed partitions", () => {
      const { grants } = grantsOf(spec.logicalId);
      for (const grant of grants) {
        expect(grant.onTable, `${grant.sid}: Resource must be the table's Arn`).toBe(true);
        expect(
          grant.leadingKeys,
          `${grant.sid}: needs a dynamodb:LeadingKeys condition`,
        ).toBeDefined();
        expect(grant.operator).toBeDefined();
        if (grant.operator === "StringEquals") {
          expect(grant.leadingKeys?.some((value) => /[*?]/.test(value))).toBe(false);
        }
      }
    });
  },
);
