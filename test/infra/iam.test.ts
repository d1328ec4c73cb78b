/**
 * The IAM cross-check: each function's role allows exactly the DynamoDB calls the function's
 * code makes, on exactly the partitions it makes them on — derived from the code, not listed
 * here. The local server runs the real bundles over the embedded store with a recording proxy
 * in between; a representative set of requests goes to every route, once normally and once
 * with every first answer from the store lost (so retry and recovery paths run too). Each
 * recorded call (X-Amz-Target + partition key) is then checked against the role's statements:
 *
 *   - a call no statement allows fails the test: the template must grant it;
 *   - a grant (action × LeadingKeys value) no call used fails the test: the template grants
 *     more than the code needs.
 *
 * LeadingKeys values may be exact (ForAllValues:StringEquals) or patterns such as
 * "IDEMPOTENCY#*" (ForAllValues:StringLike).
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import type { EmbeddedDynamo } from "../../local/embeddedDynamo.ts";
import type { LocalServer } from "../../local/server.ts";
import { localTableName, startLocalServer } from "../../local/server.ts";
import { functionsOf, loadTemplate, routesOf, tableOf } from "../../local/template.ts";
import type { Json, JsonObject } from "../support/cloudFormation.ts";
import { asArray, getAttArnOf, iamStatements, isObject, raw } from "../support/cloudFormation.ts";
import type { ItemAccess } from "../support/dynamoAccess.ts";
import { accessesOf } from "../support/dynamoAccess.ts";
import type { RecordingProxy } from "../support/recordingDynamoProxy.ts";
import { startRecordingProxy } from "../support/recordingDynamoProxy.ts";

const template = raw(loadTemplate());
// The functions behind routes. The pre-traffic hook's table calls are cross-checked against its
// role in test/infra/deployHook.test.ts, which runs it.
const functions = functionsOf().filter((spec) => spec.routeKeys.length > 0);
const routes = routesOf(functions);
const partitionKey =
  (tableOf().KeySchema as { AttributeName: string; KeyType: string }[]).find(
    (key) => key.KeyType === "HASH",
  )?.AttributeName ?? "";
const tableId =
  Object.entries(template.Resources).find(([, r]) => r.Type === "AWS::DynamoDB::Table")?.[0] ?? "";

interface Scenario {
  readonly route: string;
  readonly method: string;
  readonly path: string;
  readonly key?: "valid" | "unknown";
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** Checked in the normal round only, to show the scenario does what it says. */
  readonly expect?: number;
}

/** Representative requests for every route: success, each kind of refusal, retries. */
function scenarios(round: string): Scenario[] {
  const idempotencyKey = `iam-check-${round}-${randomBytes(4).toString("hex")}`;
  const json = { "content-type": "application/json" };
  const list = { route: "GET /v1/categories", method: "GET", path: "/v1/categories" };
  const create = { route: "POST /v1/categories", method: "POST", path: "/v1/categories" };
  return [
    { ...list, key: "valid", expect: 200 },
    { ...list, expect: 401 },
    { ...list, key: "unknown", expect: 401 },
    { ...create, key: "valid", headers: json, body: '{"name":"iam check"}', expect: 201 },
    {
      ...create,
      key: "valid",
      body: '{"name":"iam check","description":"no content type: read as JSON"}',
      expect: 201,
    },
    {
      ...create,
      key: "valid",
      headers: { ...json, "idempotency-key": idempotencyKey },
      body: '{"name":"iam idempotent"}',
    },
    {
      ...create,
      key: "valid",
      headers: { ...json, "idempotency-key": idempotencyKey },
      body: '{"name":"iam idempotent"}',
    },
    {
      ...create,
      key: "valid",
      headers: { ...json, "idempotency-key": idempotencyKey },
      body: '{"name":"iam idempotent, other body"}',
    },
    { ...create, key: "valid", headers: json, body: "{}", expect: 400 },
    { ...create, key: "valid", headers: json, body: '{"name":', expect: 400 },
    { ...create, key: "valid", headers: { "content-type": "text/plain" }, body: "x", expect: 415 },
    { ...create, headers: json, body: '{"name":"no key"}', expect: 401 },
    { ...create, key: "unknown", headers: json, body: '{"name":"bad key"}', expect: 401 },
    { ...list, key: "valid", expect: 200 },
    { route: "GET /v1/pets/{petId}", method: "GET", path: "/v1/pets/7", key: "valid", expect: 501 },
    { route: "GET /v1/pets/{petId}", method: "GET", path: "/v1/pets/7", expect: 401 },
    {
      route: "GET /v1/store/orders",
      method: "GET",
      path: "/v1/store/orders",
      key: "valid",
      expect: 501,
    },
    {
      route: "GET /v1/store/orders",
      method: "GET",
      path: "/v1/store/orders",
      key: "unknown",
      expect: 401,
    },
    { route: "$default", method: "GET", path: "/v1/no-such-route", key: "valid", expect: 404 },
    { route: "$default", method: "DELETE", path: "/v1/categories", key: "valid", expect: 405 },
  ];
}

let dynamo: EmbeddedDynamo;
let proxy: RecordingProxy;
let server: LocalServer;
const statuses: { round: string; scenario: Scenario; status: number }[] = [];
/** Call kinds ("UpdateItem IDEMPOTENCY#*") whose failure the exploration has tried. */
const explored: string[] = [];
const maxExploredKinds = 40;

/** The functions' request log lines (one per request, on stdout): not this test's output. */
const writeStdout = process.stdout.write.bind(process.stdout);

beforeAll(async () => {
  process.stdout.write = (chunk: string | Uint8Array, ...rest: never[]) =>
    String(chunk).startsWith('{"time":') ? true : writeStdout(chunk, ...rest);
  dynamo = await startEmbeddedDynamo();
  proxy = await startRecordingProxy(dynamo.endpoint);
  server = await startLocalServer({ port: 0, dynamoEndpoint: proxy.endpoint });
  const unknownKey = `petstore_${randomBytes(32).toString("base64url")}`;
  const run = async (round: string): Promise<void> => {
    for (const scenario of scenarios(round)) {
      const spec = routes.get(scenario.route);
      if (!spec) throw new Error(`scenario for ${scenario.route}, which the template lacks`);
      proxy.label = spec.name;
      const key = scenario.key === "valid" ? server.apiKey : unknownKey;
      const response = await fetch(`${server.baseUrl.replace(/\/v1$/, "")}${scenario.path}`, {
        method: scenario.method,
        headers: {
          ...(scenario.key && { authorization: `Bearer ${key}` }),
          ...scenario.headers,
        },
        // Bytes, so that fetch adds no Content-Type of its own.
        ...(scenario.body !== undefined && { body: new TextEncoder().encode(scenario.body) }),
      });
      await response.arrayBuffer();
      statuses.push({ round, scenario, status: response.status });
      proxy.label = "between requests";
    }
  };

  await run("normal");
  proxy.loseFirstAnswers = true;
  await run("lost answers");
  proxy.loseFirstAnswers = false;
  // Then, for every kind of call seen so far (and those that appear on the way), the scenarios
  // again with that kind failing: once as a lost race (condition failed), once as an error.
  for (;;) {
    const next = kindsOf(recordedAccesses()).find((kind) => !explored.includes(kind));
    if (next === undefined || explored.length >= maxExploredKinds) break;
    explored.push(next);
    for (const fault of ["conditional", "error"] as const) {
      proxy.fault = (operation, input) =>
        kindsOf(
          accessesOf({ label: "", operation, input, lost: false, fault: undefined }, partitionKey),
        ).includes(next)
          ? fault
          : undefined;
      await run(`${fault}: ${next}`);
    }
  }
  proxy.fault = undefined;
}, 180_000);

afterAll(async () => {
  process.stdout.write = writeStdout;
  await server.close();
  await proxy.close();
  await dynamo.close();
});

function kindsOf(accesses: readonly ItemAccess[]): string[] {
  return [
    ...new Set(
      accesses.map((access) => `${access.operation} ${suggestedValue(access.leadingKey)}`),
    ),
  ];
}

function recordedAccesses(): ItemAccess[] {
  return proxy.calls
    .filter((call) => call.label !== "setup")
    .flatMap((call) => accessesOf(call, partitionKey));
}

interface Grant {
  readonly role: string;
  readonly sid: string;
  readonly action: string;
  readonly operator: "StringEquals" | "StringLike" | undefined;
  /** LeadingKeys values; undefined when the statement has no LeadingKeys condition. */
  readonly leadingKeys: readonly string[] | undefined;
  readonly onTable: boolean;
}

/** The DynamoDB grants of a function's role, one per action × statement. */
function grantsOf(logicalId: string): { role: string; grants: Grant[] } {
  const props = template.Resources[logicalId]?.Properties ?? {};
  const role = getAttArnOf(props.Role) ?? logicalId;
  const grants = iamStatements(template)
    .filter(({ owner }) => owner === role)
    .flatMap(({ statement, at }) =>
      asArray(statement.Action)
        .map(String)
        .filter((action) => action.startsWith("dynamodb:"))
        .map((action): Grant => {
          const condition = isObject(statement.Condition) ? statement.Condition : {};
          const [operator, test] =
            Object.entries(condition).find(
              ([name, value]) =>
                name.startsWith("ForAllValues:") &&
                isObject(value) &&
                value["dynamodb:LeadingKeys"] !== undefined,
            ) ?? [];
          const values = isObject(test) ? asArray(test["dynamodb:LeadingKeys"]) : undefined;
          return {
            role,
            sid: typeof statement.Sid === "string" ? statement.Sid : at,
            action,
            operator: operator?.endsWith("StringLike")
              ? "StringLike"
              : operator?.endsWith("StringEquals")
                ? "StringEquals"
                : undefined,
            leadingKeys: values?.map(String),
            onTable: asArray(statement.Resource).some((resource: Json) => isTableArn(resource)),
          };
        }),
    );
  return { role, grants };
}

function isTableArn(resource: Json): boolean {
  if (getAttArnOf(resource) === tableId) return true;
  return isObject(resource) && resource["Fn::Sub"] === `\${${tableId}.Arn}`;
}

/** IAM StringLike: `*` any run of characters, `?` one character; case-sensitive. */
function like(pattern: string, value: string): boolean {
  const source = pattern
    .split("")
    .map((char) =>
      char === "*" ? ".*" : char === "?" ? "." : char.replace(/[.+^${}()|[\]\\]/g, "\\$&"),
    )
    .join("");
  return new RegExp(`^${source}$`, "s").test(value);
}

function valueMatches(grant: Grant, pattern: string, leadingKey: string): boolean {
  return grant.operator === "StringLike" ? like(pattern, leadingKey) : pattern === leadingKey;
}

/** Whether IAM lets the grant through for this access (ForAllValues over one leading key). */
function allows(grant: Grant, access: ItemAccess): boolean {
  if (grant.action !== access.action || !grant.onTable || access.index !== undefined) return false;
  if (grant.leadingKeys === undefined || access.leadingKey === undefined) return true;
  const leadingKey = access.leadingKey;
  return grant.leadingKeys.some((pattern) => valueMatches(grant, pattern, leadingKey));
}

/** The LeadingKeys value to grant for a partition: "IDEMPOTENCY#<hash>" → "IDEMPOTENCY#*". */
function suggestedValue(leadingKey: string | undefined): string {
  if (leadingKey === undefined) return "(no partition key)";
  return leadingKey.includes("#") ? `${leadingKey.split("#")[0] ?? ""}#*` : leadingKey;
}

describe("the recording", () => {
  it("covers every route of the template", () => {
    const covered = new Set(scenarios("x").map((scenario) => scenario.route));
    expect([...routes.keys()].filter((route) => !covered.has(route))).toEqual([]);
  });

  it("got the answers the scenarios intend (normal round)", () => {
    const wrong = statuses
      .filter(({ round, scenario }) => round === "normal" && scenario.expect !== undefined)
      .filter(({ scenario, status }) => status !== scenario.expect)
      .map(({ scenario, status }) => `${scenario.method} ${scenario.path}: ${status}`);
    expect(wrong).toEqual([]);
  });

  it("saw every function call the store, and retries after lost answers", () => {
    const labels = new Set(recordedAccesses().map((access) => access.label));
    expect([...labels].sort()).toEqual(functions.map((spec) => spec.name).sort());
    expect(proxy.calls.some((call) => call.lost)).toBe(true);
  });

  it("tried the failure of every kind of call it saw", () => {
    expect(explored.length).toBeLessThan(maxExploredKinds);
    expect([...explored].sort()).toEqual(kindsOf(recordedAccesses()).sort());
    expect(proxy.calls.some((call) => call.fault === "conditional")).toBe(true);
    expect(proxy.calls.some((call) => call.fault === "error")).toBe(true);
  });

  it("calls only the stage's table, never an index, always within one partition", () => {
    const odd = recordedAccesses()
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

describe.each(functions.map((spec) => [spec.name, spec] as const))("%s's role", (_name, spec) => {
  it("allows every DynamoDB call the function makes", () => {
    const { role, grants } = grantsOf(spec.logicalId);
    const missing = new Set<string>();
    for (const access of recordedAccesses().filter((a) => a.label === spec.name)) {
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
    const accesses = recordedAccesses().filter((a) => a.label === spec.name);
    const unused: string[] = [];
    for (const grant of grants) {
      for (const pattern of grant.leadingKeys ?? ["(any partition)"]) {
        const used = accesses.some(
          (access) =>
            allows(grant, access) &&
            (grant.leadingKeys === undefined ||
              (access.leadingKey !== undefined && valueMatches(grant, pattern, access.leadingKey))),
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
});

describe("the cross-check itself", () => {
  const access = (action: string, leadingKey: string): ItemAccess => ({
    label: "x",
    operation: action,
    action: `dynamodb:${action}`,
    table: localTableName,
    leadingKey,
    index: undefined,
  });
  const grant = (operator: Grant["operator"], values: string[]): Grant => ({
    role: "Role",
    sid: "S",
    action: "dynamodb:GetItem",
    operator,
    leadingKeys: values,
    onTable: true,
  });

  it("matches exact values and IAM wildcards as IAM does", () => {
    expect(allows(grant("StringEquals", ["APIKEY"]), access("GetItem", "APIKEY"))).toBe(true);
    expect(allows(grant("StringEquals", ["APIKEY"]), access("GetItem", "APIKEYS"))).toBe(false);
    expect(allows(grant("StringEquals", ["APIKEY"]), access("PutItem", "APIKEY"))).toBe(false);
    const idempotency = grant("StringLike", ["IDEMPOTENCY#*"]);
    expect(allows(idempotency, access("GetItem", "IDEMPOTENCY#ab12"))).toBe(true);
    expect(allows(idempotency, access("GetItem", "CATEGORY"))).toBe(false);
    expect(
      allows(grant("StringEquals", ["IDEMPOTENCY#*"]), access("GetItem", "IDEMPOTENCY#a")),
    ).toBe(false);
    expect(like("A?C", "ABC")).toBe(true);
    expect(like("A.C", "ABC")).toBe(false);
    expect(suggestedValue("IDEMPOTENCY#0f3a")).toBe("IDEMPOTENCY#*");
  });

  it("reads the partition of each kind of call", () => {
    const call = (operation: string, input: JsonObject) => ({
      label: "x",
      operation,
      input,
      lost: false,
      fault: undefined,
    });
    const s = (value: string): JsonObject => ({ S: value });
    expect(
      accessesOf(
        call("Query", {
          TableName: "t",
          KeyConditionExpression: "#p = :v AND begins_with(sk, :s)",
          ExpressionAttributeNames: { "#p": "pk" },
          ExpressionAttributeValues: { ":v": s("CATEGORY"), ":s": s("0") },
        }),
        "pk",
      ).map((a) => [a.action, a.leadingKey]),
    ).toEqual([["dynamodb:Query", "CATEGORY"]]);
    expect(
      accessesOf(
        call("TransactWriteItems", {
          TransactItems: [
            { Put: { TableName: "t", Item: { pk: s("CATEGORY"), sk: s("1") } } },
            { Update: { TableName: "t", Key: { pk: s("COUNTER"), sk: s("c") } } },
            { ConditionCheck: { TableName: "t", Key: { pk: s("IDEMPOTENCY#x"), sk: s("k") } } },
          ],
        }),
        "pk",
      ).map((a) => [a.action, a.leadingKey]),
    ).toEqual([
      ["dynamodb:PutItem", "CATEGORY"],
      ["dynamodb:UpdateItem", "COUNTER"],
      ["dynamodb:ConditionCheckItem", "IDEMPOTENCY#x"],
    ]);
    expect(
      accessesOf(call("DeleteItem", { TableName: "t", Key: { pk: s("IDEMPOTENCY#y") } }), "pk")[0]
        ?.leadingKey,
    ).toBe("IDEMPOTENCY#y");
  });
});
