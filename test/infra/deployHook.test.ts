/**
 * The pre-traffic hook as CodeDeploy runs it: the built bundle (dist/preTrafficHook) invokes the
 * new versions — here the real function bundles over the embedded store, behind a stand-in of
 * Lambda's Invoke API — and reports to a stand-in of CodeDeploy's API. A healthy set of versions
 * is reported Succeeded, a broken one Failed; either way nothing is left but a revoked key, the
 * key never reaches a log line, and the hook's table calls are exactly what its role grants.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { maxResponseBytes } from "../../lib/http/response.ts";
import { functionsOf } from "../../local/template.ts";
import { asArray, iamStatements, isObject } from "../support/cloudFormation.ts";
import { accessesOf } from "../support/dynamoAccess.ts";
import { grantsOf } from "../support/iamGrants.ts";
import type { HookRig } from "../support/hookRig.ts";
import { checkedFunctions, functionServing, startHookRig } from "../support/hookRig.ts";
import { versionArn } from "../support/hookStandIns.ts";
import { isRateLimitLease } from "../support/recordingDynamoProxy.ts";
import { template } from "../support/templateResources.ts";

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

  it("lets the table delete its key's record 7 days after the key expires (the events stay)", async () => {
    await rig.runHook("d-ttl", healthy);
    const key = (await rig.apiKeyRecords()).find(
      (item) => item.label?.S === "pre-traffic check d-ttl",
    );
    const expiresAt = Date.parse(key?.expiresAt?.S ?? "");
    expect(Number(key?.ttl?.N) * 1000).toBe(
      Math.floor((expiresAt + 7 * 24 * 60 * 60 * 1000) / 1000) * 1000,
    );
  });
});

describe("a list over Lambda's 6 MB limit, which only comes compressed, takes traffic", () => {
  // Descriptions of the most characters a category may have: the fewest categories (a second's
  // seed) whose list, uncompressed, is over the limit and so answered 406 to a request that
  // accepts no encoding. The hook must ask for one and read the compressed, base64 answer.
  const descriptionChars = 1000;
  beforeAll(async () => {
    await rig.seedCategories(Math.ceil(maxResponseBytes / descriptionChars) + 1, descriptionChars);
  }, 60_000);

  it("reports Succeeded, its list check passing", async () => {
    const { result, logs } = await rig.runHook("d-large-list", healthy);
    const listCheck = logs
      .join("")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { check?: string; ok?: boolean; detail?: string })
      .find((line) => line.check?.startsWith("GET /v1/categories with a valid key"));
    expect(listCheck).toMatchObject({ ok: true });
    expect(result).toEqual({ status: "Succeeded" });
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

describe("a check key the hook cannot revoke holds no verdict back: it expires within 15 minutes", () => {
  it("reports Succeeded for healthy versions, and logs a WARN naming the key's id and expiry", async () => {
    const revoke = (input: unknown): boolean => JSON.stringify(input).includes("revokedAt");
    rig.hookProxy.fault = (_operation, input) => (revoke(input) ? "error" : undefined);
    try {
      const { result, logs } = await rig.runHook("d-unrevoked", healthy);
      expect(result).toEqual({ status: "Succeeded" });
      const lines = logs
        .join("")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const warning = lines.find((line) => line.check === "revoke the check key");
      expect(warning).toMatchObject({
        level: "WARN",
        keyId: expect.stringMatching(/^key_/) as string,
      });
      const key = (await rig.apiKeyRecords()).find(
        (item) => item.label?.S === "pre-traffic check d-unrevoked",
      );
      expect(key?.revokedAt).toBeUndefined();
      expect(key?.expiresAt?.S).toBe(warning?.expiresAt);
      expect(Date.parse(String(warning?.expiresAt)) - Date.now()).toBeLessThanOrEqual(15 * 60_000);
      expect(lines.filter((line) => line.level === "ERROR")).toEqual([]);
    } finally {
      rig.hookProxy.fault = undefined;
    }
  });
});

describe("a hook that cannot set up still gives CodeDeploy its verdict", () => {
  it("reports Failed at once, and logs why (unheard, CodeDeploy would wait out the hook's timeout)", async () => {
    const invokedBefore = rig.invoked.length;
    const { result, logs, report } = await rig.runHook("d-unset", healthy, ["TABLE_NAME"]);
    expect(result).toEqual({ status: "Failed" });
    expect(report?.body).toMatchObject({ deploymentId: "d-unset", status: "Failed" });
    expect(rig.invoked.length).toBe(invokedBefore);
    expect(logs.join("")).toContain("TABLE_NAME must be set");
  });
});

describe("the hook's role grants exactly the table calls it makes", () => {
  it("every call is granted, and every grant is used", async () => {
    // Its own healthy run, so the calls compared are this test's whatever ran before it.
    const before = rig.hookProxy.calls.length;
    await rig.runHook("d-iam", healthy);
    const { role, grants } = grantsOf(hookSpec?.logicalId ?? "");
    expect(role).toBe("PreTrafficHookRole");
    const granted = grants.flatMap(({ action, leadingKeys }) =>
      (leadingKeys ?? []).map((key) => `${action} ${key}`),
    );
    const made = new Set(
      rig.hookProxy.calls
        .slice(before)
        .flatMap((call) => accessesOf(call, "pk"))
        .map((access) => `${access.action} ${access.leadingKey ?? "(none)"}`),
    );
    expect([...made].sort()).toEqual([...new Set(granted)].sort());
  });
});

interface WritePart {
  Item?: { pk?: { S?: string } };
  Key?: { pk?: { S?: string } };
  UpdateExpression?: string;
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
}

/** The top-level attribute names one write carries: its item's, or its key's and expressions'. */
function attributesOf(part: WritePart): string[] {
  if (part.Item) return Object.keys(part.Item);
  const names = part.ExpressionAttributeNames ?? {};
  const text = `${part.UpdateExpression ?? ""} ${part.ConditionExpression ?? ""}`;
  const words = [...text.matchAll(/(?<![:\w])#?[A-Za-z_]\w*/g)].map(([word]) =>
    word.startsWith("#") ? (names[word] ?? word) : word,
  );
  const keywords = /^(SET|REMOVE|AND|OR|NOT|attribute_exists|attribute_not_exists|if_not_exists)$/;
  return [...Object.keys(part.Key ?? {}), ...words.filter((word) => !keywords.test(word))];
}

describe("the hook's key rights: its own probe key only, never a read of any key", () => {
  const statements = iamStatements(template).filter(({ owner }) => owner === "PreTrafficHookRole");
  const tableStatements = statements.filter(({ statement }) =>
    asArray(statement.Action).some(
      (action) => typeof action === "string" && action.startsWith("dynamodb:"),
    ),
  );
  const conditionOf = (statement: Record<string, unknown>, key: string): string[] => {
    const condition = isObject(statement.Condition) ? statement.Condition : {};
    const equals = condition["ForAllValues:StringEquals"];
    return asArray(isObject(equals) ? equals[key] : undefined).map(String);
  };

  it("grants no read, query or scan of the table: it cannot list keys or learn their hashes", () => {
    const actions = tableStatements.flatMap(({ statement }) => asArray(statement.Action));
    expect([...new Set(actions)].sort()).toEqual(["dynamodb:PutItem", "dynamodb:UpdateItem"]);
  });

  it("names the attributes of every write, and a change to a key may carry revokedAt only", () => {
    for (const { at, statement } of tableStatements) {
      expect(conditionOf(statement, "dynamodb:Attributes"), at).not.toEqual([]);
      if (asArray(statement.Action).includes("dynamodb:UpdateItem")) {
        expect(conditionOf(statement, "dynamodb:Attributes").sort(), at).toEqual(
          ["createdBy", "keyId", "pk", "revokedAt", "sk"].sort(),
        );
      }
    }
  });

  it("every write it makes carries only the attributes a statement for it names", async () => {
    const before = rig.hookProxy.calls.length;
    await rig.runHook("d-attributes", healthy);
    const writes = rig.hookProxy.calls.slice(before).flatMap((call) => {
      const input = (call.input ?? {}) as WritePart & {
        TransactItems?: Record<string, WritePart>[];
      };
      const parts: (readonly [string, WritePart])[] =
        call.operation === "TransactWriteItems"
          ? (input.TransactItems ?? []).flatMap((entry) => Object.entries(entry))
          : [[call.operation.replace(/Item$/, ""), input]];
      return parts.map(([kind, part]) => ({
        action: `dynamodb:${kind}Item`,
        leadingKey: part.Item?.pk?.S ?? part.Key?.pk?.S,
        attributes: attributesOf(part),
      }));
    });
    expect(writes.length).toBeGreaterThanOrEqual(3);
    for (const write of writes) {
      const allowed = tableStatements.some(
        ({ statement }) =>
          asArray(statement.Action).includes(write.action) &&
          conditionOf(statement, "dynamodb:LeadingKeys").includes(write.leadingKey ?? "") &&
          write.attributes.every((name) =>
            conditionOf(statement, "dynamodb:Attributes").includes(name),
          ),
      );
      expect(allowed, JSON.stringify(write)).toBe(true);
    }
  });

  it("records the probe key's create and revoke in the key history, by the hook", async () => {
    await rig.runHook("d-history", healthy);
    const key = (await rig.apiKeyRecords()).find(
      (item) => item.label?.S === "pre-traffic check d-history",
    );
    const events = await rig.keyEvents(key?.keyId?.S ?? "");
    expect(events.map((event) => event.event)).toEqual(["create", "revoke"]);
    expect(events.every((event) => event.who.startsWith("lambda:"))).toBe(true);
    expect(events.some((event) => event.intended)).toBe(false);
  });
});
