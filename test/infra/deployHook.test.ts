/**
 * The pre-traffic hook as CodeDeploy runs it: the built bundle (dist/preTrafficHook) invokes the
 * new versions — here the real function bundles over the embedded store, behind a stand-in of
 * Lambda's Invoke API — and reports to a stand-in of CodeDeploy's API. A healthy set of versions
 * is reported Succeeded, a broken one Failed; either way nothing is left but a revoked key, the
 * key never reaches a log line, and the hook's table calls are exactly what its role grants.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { functionsOf, loadTemplate } from "../../local/template.ts";
import { asArray, getAttArnOf, iamStatements, isObject, raw } from "../support/cloudFormation.ts";
import { accessesOf } from "../support/dynamoAccess.ts";
import type { HookRig } from "../support/hookRig.ts";
import { checkedFunctions, functionServing, startHookRig } from "../support/hookRig.ts";
import { versionArn } from "../support/hookStandIns.ts";
import { isRateLimitLease } from "../support/recordingDynamoProxy.ts";

const hookSpec = functionsOf().find((spec) => spec.routeKeys.length === 0);
/** Every checked function at its healthy version (the rig's default). */
const healthy = {};
let rig: HookRig;

beforeAll(async () => {
  rig = await startHookRig();
}, 60_000);

afterAll(async () => {
  await rig.close();
});

describe("healthy new versions take traffic", () => {
  it("reports Succeeded after invoking each new version with read-only requests", async () => {
    const { result, logs, report } = await rig.runHook("d-healthy", healthy);
    expect(result).toEqual({ status: "Succeeded" });
    expect(report).toEqual({
      target: "CodeDeploy_20141006.PutLifecycleEventHookExecutionStatus",
      body: {
        deploymentId: "d-healthy",
        lifecycleEventHookExecutionId: "exec-d-healthy",
        status: "Succeeded",
      },
    });
    expect(checkedFunctions.length).toBeGreaterThan(0);
    for (const name of checkedFunctions) {
      expect(rig.invoked).toContain(versionArn(name, 2));
    }
    const lines = logs
      .join("")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { ok?: boolean; level: string });
    expect(lines.filter((line) => line.ok === true).length).toBeGreaterThanOrEqual(5);
    expect(lines.filter((line) => line.level === "ERROR")).toEqual([]);
  });

  it("changes nothing but its own key, which it revokes, and never logs the key", async () => {
    const { logs } = await rig.runHook("d-clean", healthy);
    // The probes count against the hook's key like any request: its rate limit leases are the
    // only other writes (lib/rateLimit/), on the key's own bucket.
    const writes = rig.functionsProxy.calls.filter(
      (call) => /Put|Update|Delete|Write/.test(call.operation) && !isRateLimitLease(call),
    );
    expect(writes.map((call) => call.operation)).toEqual([]);
    const key = (await rig.apiKeyRecords()).find(
      (item) => item.label?.S === "pre-traffic check d-clean",
    );
    expect(key?.revokedAt?.S).toBeDefined();
    expect(Date.parse(key?.expiresAt?.S ?? "") - Date.now()).toBeLessThanOrEqual(15 * 60 * 1000);
    expect(logs.join("")).not.toMatch(/petstore_[A-Za-z0-9_-]{20,}/);
  });
});

describe("a broken version never takes traffic", () => {
  // Version 3 of the list's function answers 503 (its table is missing); of the fallback, crashes.
  it.each([
    ["answers 503 (its table is missing)", "GET /v1/categories"],
    ["crashes", "$default"],
  ])("reports Failed when a new version %s, and still revokes its key", async (_why, routeKey) => {
    const name = functionServing(routeKey);
    const id = `d-broken-${name}`;
    const { result, logs, report } = await rig.runHook(id, { [name]: 3 });
    expect(result).toEqual({ status: "Failed" });
    expect(report?.body.status).toBe("Failed");
    expect(logs.join("")).toContain('"level":"ERROR"');
    const key = (await rig.apiKeyRecords()).find(
      (item) => item.label?.S === `pre-traffic check ${id}`,
    );
    expect(key?.revokedAt?.S).toBeDefined();
  });
});

describe("the hook's role grants exactly the table calls it makes", () => {
  it("every call is granted, and every grant is used", async () => {
    // Its own healthy run, so the calls compared are this test's whatever ran before it.
    const before = rig.hookProxy.calls.length;
    await rig.runHook("d-iam", healthy);
    const template = raw(loadTemplate());
    const role = getAttArnOf(template.Resources[hookSpec?.logicalId ?? ""]?.Properties?.Role);
    expect(role).toBe("PreTrafficHookRole");
    const granted = iamStatements(template)
      .filter(({ owner }) => owner === role)
      .flatMap(({ statement }) => {
        const condition = isObject(statement.Condition) ? statement.Condition : {};
        const equals = condition["ForAllValues:StringEquals"];
        const keys = asArray(isObject(equals) ? equals["dynamodb:LeadingKeys"] : undefined);
        return asArray(statement.Action)
          .map(String)
          .filter((action) => action.startsWith("dynamodb:"))
          .flatMap((action) =>
            keys.map((key) => `${action} ${typeof key === "string" ? key : ""}`),
          );
      });
    const made = new Set(
      rig.hookProxy.calls
        .slice(before)
        .flatMap((call) => accessesOf(call, "pk"))
        .map((access) => `${access.action} ${access.leadingKey ?? "(none)"}`),
    );
    expect([...made].sort()).toEqual([...new Set(granted)].sort());
  });
});
