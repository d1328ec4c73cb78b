/**
 * infra/template.yaml on its own: valid against the AWS SAM schema, every reference resolves,
 * and the settings an operator relies on (runtime, logs, table protection, IAM, API stage) are
 * what docs/deploy.md says they are.
 */
import { describe, expect, it } from "vitest";
import { functionsOf, loadTemplate } from "../../local/template.ts";
import { stageConfig, stages } from "../../scripts/stages.ts";
import type { Json, JsonObject } from "../support/cloudFormation.ts";
import {
  asArray,
  evaluate,
  getAttArnOf,
  iamStatements,
  isObject,
  parameterValues,
  pseudoParameters,
  raw,
  referencesIn,
  refOf,
  text,
} from "../support/cloudFormation.ts";
import { skipWithout } from "../support/missingTool.ts";
import { loadSamSchema, samSchemaMissing, samSchemaPath } from "../support/samSchema.ts";

const template = raw(loadTemplate());
const resources = Object.entries(template.Resources);
const ofType = (type: string): [string, JsonObject & { Properties?: JsonObject }][] =>
  resources.filter(([, resource]) => resource.Type === type);
const functions = ofType("AWS::Serverless::Function");
const globals = template.Globals.Function;
/** A function's property, with Globals applied as SAM applies them (function wins). */
const prop = (id: string, name: string): Json | undefined =>
  template.Resources[id]?.Properties?.[name] ?? globals[name];

const schema = loadSamSchema();

describe(`AWS SAM schema (${samSchemaPath})`, () => {
  skipWithout(schema ? undefined : samSchemaMissing);

  it.each(resources)("resource %s matches the schema of its Type", (id, resource) => {
    expect(schema?.resource(id, resource)).toEqual([]);
  });

  it.each(functions)("the events of %s match the schema of their Type", (id, resource) => {
    const events = resource.Properties?.Events;
    const errors = Object.entries(isObject(events) ? events : {}).flatMap(([name, event]) =>
      schema ? schema.event(`${id}.Events.${name}`, event) : [],
    );
    expect(errors).toEqual([]);
  });

  it("Globals match the schema", () => {
    expect(schema?.globals(loadTemplate().Globals)).toEqual([]);
  });
});

/**
 * Names the SAM transform creates and CloudFormation then resolves: `<Function>.Version` (the
 * version AutoPublishAlias publishes), and for each function CodeDeploy shifts, its deployment
 * group and the one CodeDeploy application.
 */
function samGeneratedNames(): Set<string> {
  const names = new Set<string>();
  for (const [id] of functions) {
    if (prop(id, "AutoPublishAlias") === undefined) continue;
    names.add(`${id}.Version`);
    const preference = prop(id, "DeploymentPreference");
    const own = template.Resources[id]?.Properties?.DeploymentPreference;
    if (isObject(preference) && !(isObject(own) && own.Enabled === false)) {
      names.add(`${id}DeploymentGroup`);
      names.add("ServerlessDeploymentApplication");
    }
  }
  return names;
}

describe("references", () => {
  const parameters = new Set(Object.keys(template.Parameters));
  const conditions = new Set(Object.keys(template.Conditions));
  const generated = samGeneratedNames();
  const rules = (loadTemplate() as unknown as { Rules?: Json }).Rules;
  const all = [
    ...referencesIn(rules, "Rules"),
    ...referencesIn(template.Conditions, "Conditions"),
    ...referencesIn(template.Globals, "Globals"),
    ...referencesIn(template.Resources, "Resources"),
    ...referencesIn(template.Outputs, "Outputs"),
  ];

  it("every Ref, Fn::GetAtt and ${} names a parameter, resource or pseudo parameter", () => {
    const unresolved = all
      .filter((ref) => ref.kind !== "Condition")
      .filter((ref) => {
        if (ref.kind === "GetAtt" || ref.attribute !== undefined) {
          return !(ref.name in template.Resources);
        }
        return !(
          parameters.has(ref.name) ||
          ref.name in template.Resources ||
          pseudoParameters.has(ref.name) ||
          generated.has(ref.name)
        );
      })
      .map(
        (ref) => `${ref.at}: ${ref.kind} ${ref.name}${ref.attribute ? `.${ref.attribute}` : ""}`,
      );
    expect(unresolved).toEqual([]);
  });

  it("every Fn::If and Condition names a declared condition", () => {
    const unknown = all
      .filter((ref) => ref.kind === "Condition" && !conditions.has(ref.name))
      .map((ref) => `${ref.at}: ${ref.name}`);
    expect(unknown).toEqual([]);
  });

  it("every parameter and condition is used", () => {
    const used = new Set(all.map((ref) => ref.name));
    for (const [, resource] of resources) {
      if (typeof resource.Condition === "string") used.add(resource.Condition);
    }
    expect([...parameters, ...conditions].filter((name) => !used.has(name))).toEqual([]);
  });

  it("GetAtt names only attributes these resource types have", () => {
    const known: Record<string, string[]> = {
      "AWS::DynamoDB::Table": ["Arn", "StreamArn"],
      "AWS::Logs::LogGroup": ["Arn"],
      "AWS::IAM::Role": ["Arn", "RoleId"],
      "AWS::Serverless::Function": ["Arn"],
      "AWS::Serverless::HttpApi": ["ApiEndpoint"],
      "AWS::CloudWatch::Alarm": ["Arn"],
      "AWS::SNS::Topic": ["TopicArn", "TopicName"],
    };
    const wrong = all
      .filter((ref) => ref.kind === "GetAtt" || (ref.kind === "Sub" && ref.attribute))
      .filter((ref) => !generated.has(`${ref.name}.${ref.attribute ?? ""}`))
      .filter((ref) => {
        const type = template.Resources[ref.name]?.Type ?? "";
        return !(known[type] ?? []).includes(ref.attribute ?? "");
      })
      .map((ref) => `${ref.at}: ${ref.name}.${ref.attribute ?? ""}`);
    expect(wrong).toEqual([]);
  });
});

describe("API", () => {
  it("has no API Gateway stage named Stage (one HTTP API on its $default stage)", () => {
    expect(ofType("AWS::Serverless::Api")).toEqual([]);
    const apis = ofType("AWS::Serverless::HttpApi");
    expect(apis.map(([id]) => id)).toEqual(["HttpApi"]);
    for (const [, api] of apis) {
      // No StageName means SAM's `$default` stage; any name would also enter the URL.
      expect(api.Properties?.StageName).toBeUndefined();
    }
    const stageNames = resources
      .filter(([, resource]) => resource.Properties?.StageName !== undefined)
      .map(([id, resource]) => `${id}: ${JSON.stringify(resource.Properties?.StageName)}`);
    expect(stageNames).toEqual([]);
    expect(JSON.stringify(template)).not.toMatch(/"StageName":\s*"Stage"/);
  });

  it("outputs BaseUrl: the API's address ending in /v1", () => {
    const value = template.Outputs.BaseUrl?.Value;
    expect(value).toEqual({
      "Fn::Sub": "https://${HttpApi}.execute-api.${AWS::Region}.${AWS::URLSuffix}/v1",
    });
  });

  it("throttles the stage by parameters (rate and burst per stage)", () => {
    expect(template.Resources.HttpApi?.Properties?.DefaultRouteSettings).toEqual({
      ThrottlingRateLimit: { Ref: "ThrottlingRateLimit" },
      ThrottlingBurstLimit: { Ref: "ThrottlingBurstLimit" },
    });
  });

  it("writes JSON access logs with request id, route, status and latency", () => {
    const settings = template.Resources.HttpApi?.Properties?.AccessLogSettings;
    expect(isObject(settings)).toBe(true);
    if (!isObject(settings)) return;
    expect(getAttArnOf(settings.DestinationArn)).toBe("AccessLogGroup");
    const format = JSON.parse(text(settings.Format)) as Record<string, string>;
    expect(format).toMatchObject({
      requestId: "$context.requestId",
      routeKey: "$context.routeKey",
      status: "$context.status",
      latencyMs: "$context.responseLatency",
    });
  });

  it.each(stages)(
    "CORS in %s: off when the stage gives no origins, else exactly those",
    (stage) => {
      const { parameters } = stageConfig(stage);
      const cors = evaluate(
        template.Resources.HttpApi?.Properties?.CorsConfiguration,
        parameterValues(template, parameters),
        template.Conditions,
      );
      const origins = parameters.CorsAllowedOrigins ?? "";
      if (origins === "") expect(cors).toBeUndefined();
      else expect(cors).toMatchObject({ AllowOrigins: origins.split(",") });
    },
  );

  it("CORS, when on, allows only the listed origins and the API's methods and headers", () => {
    const cors = evaluate(
      template.Resources.HttpApi?.Properties?.CorsConfiguration,
      parameterValues(template, {
        ...stageConfig("staging").parameters,
        CorsAllowedOrigins: "https://a.example,https://b.example",
      }),
      template.Conditions,
    );
    expect(cors).toMatchObject({
      AllowOrigins: ["https://a.example", "https://b.example"],
      AllowMethods: ["GET", "POST"],
      AllowCredentials: false,
    });
    // CloudFormation matches AllowedPattern against each value of a CommaDelimitedList.
    const pattern = new RegExp(text(template.Parameters.CorsAllowedOrigins?.AllowedPattern));
    const accepts = (list: string): boolean => list.split(",").every((v) => pattern.test(v));
    expect(accepts("")).toBe(true);
    expect(accepts("https://a.example,https://b.example:8443")).toBe(true);
    expect(accepts("*")).toBe(false);
    expect(accepts("https://*.example")).toBe(false);
    expect(accepts("a.example")).toBe(false);
  });
});

/** The functions behind the API's routes (the pre-traffic hook has none). */
const apiFunctions = functions.filter(([id]) =>
  functionsOf().some((spec) => spec.logicalId === id && spec.routeKeys.length > 0),
);

describe("functions", () => {
  it("are the three the routes need, and CodeDeploy's pre-traffic hook", () => {
    const specs = functionsOf();
    expect(specs.filter((spec) => spec.routeKeys.length > 0).map((spec) => spec.name)).toEqual([
      "listCategories",
      "createCategory",
      "routeFallback",
    ]);
    expect(specs.filter((spec) => spec.routeKeys.length === 0).map((spec) => spec.name)).toEqual([
      "preTrafficHook",
    ]);
  });

  it.each(functions)("%s: nodejs24.x on arm64, handler index.handler in ../dist", (id) => {
    expect(prop(id, "Runtime")).toBe("nodejs24.x");
    expect(prop(id, "Architectures")).toEqual(["arm64"]);
    expect(prop(id, "Handler")).toBe("index.handler");
    expect(prop(id, "CodeUri")).toMatch(/^\.\.\/dist\/[A-Za-z]+$/);
    // No SAM build step: the bundle is `npm run build`'s, and no second bundler can drift.
    expect(template.Resources[id]?.Metadata).toBeUndefined();
    expect(prop(id, "InlineCode")).toBeUndefined();
  });

  it.each(apiFunctions)("%s: explicit timeout under API Gateway's 30 s", (id) => {
    const timeout = prop(id, "Timeout");
    expect(typeof timeout).toBe("number");
    expect(Number(timeout)).toBeGreaterThanOrEqual(3);
    expect(Number(timeout)).toBeLessThan(30);
  });

  it.each(functions)(
    "%s: config from the environment; no source-map flag on the cold start",
    (id) => {
      const variables = {
        ...(isObject(globals.Environment) && isObject(globals.Environment.Variables)
          ? globals.Environment.Variables
          : {}),
        ...((): JsonObject => {
          const own = template.Resources[id]?.Properties?.Environment;
          return isObject(own) && isObject(own.Variables) ? own.Variables : {};
        })(),
      };
      // Parsing the map on every cold start costs 3-4x the import (lib/stackTrace.ts maps stacks).
      expect(text(variables.NODE_OPTIONS).split(/\s+/)).not.toContain("--enable-source-maps");
      expect(refOf(variables.TABLE_NAME)).toBe("CategoriesTable");
      // Lambda sets AWS_REGION and the credentials itself; the template must not.
      for (const name of ["AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"]) {
        expect(variables).not.toHaveProperty(name);
      }
    },
  );

  it.each(functions)("%s: JSON logs into its own log group with explicit retention", (id) => {
    const logging = prop(id, "LoggingConfig");
    expect(isObject(logging)).toBe(true);
    if (!isObject(logging)) return;
    expect(logging.LogFormat).toBe("JSON");
    const groupId = refOf(logging.LogGroup) ?? "";
    const group = template.Resources[groupId];
    expect(group?.Type).toBe("AWS::Logs::LogGroup");
    expect(group?.Properties?.RetentionInDays).toEqual({ Ref: "LogRetentionDays" });
    // The group Lambda would otherwise create on its own, without retention.
    const name = (prop(id, "FunctionName") as { "Fn::Sub"?: string })["Fn::Sub"];
    expect(group?.Properties?.LogGroupName).toEqual({ "Fn::Sub": `/aws/lambda/${String(name)}` });
  });

  it.each(functions)("%s: runs as its own role", (id) => {
    expect(prop(id, "Policies")).toBeUndefined();
    const role = getAttArnOf(prop(id, "Role"));
    expect(template.Resources[role ?? ""]?.Type).toBe("AWS::IAM::Role");
    const users = functions.filter(([other]) => getAttArnOf(prop(other, "Role")) === role);
    expect(users.map(([other]) => other)).toEqual([id]);
  });

  it("every log group has an explicit retention", () => {
    for (const [id, group] of ofType("AWS::Logs::LogGroup")) {
      expect(group.Properties?.RetentionInDays, id).toEqual({ Ref: "LogRetentionDays" });
    }
  });
});

describe("table", () => {
  const tables = ofType("AWS::DynamoDB::Table");
  const [tableId = "", table] = tables[0] ?? [];
  const props = table?.Properties ?? {};

  it("is one on-demand table with point-in-time recovery and encryption at rest", () => {
    expect(tables).toHaveLength(1);
    expect(props.BillingMode).toBe("PAY_PER_REQUEST");
    expect(props.ProvisionedThroughput).toBeUndefined();
    expect(props.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    expect(props.SSESpecification).toMatchObject({ SSEEnabled: true });
    expect(props.TimeToLiveSpecification).toEqual({ AttributeName: "ttl", Enabled: true });
  });

  it("is named petstore-<stage>, the name the keys command uses", () => {
    expect(props.TableName).toEqual({ "Fn::Sub": "petstore-${Stage}" });
  });

  it.each(stages)("in %s: retained and protected exactly when production", (stage) => {
    const parameters = parameterValues(template, stageConfig(stage).parameters);
    const policy = (attribute: string): Json | undefined =>
      evaluate(table?.[attribute], parameters, template.Conditions);
    const production = stage === "production";
    expect(policy("DeletionPolicy"), tableId).toBe(production ? "Retain" : "Delete");
    expect(policy("UpdateReplacePolicy")).toBe(production ? "Retain" : "Delete");
    expect(evaluate(props.DeletionProtectionEnabled, parameters, template.Conditions)).toBe(
      production,
    );
  });

  it("conditional policies are resolved by AWS::LanguageExtensions, before SAM", () => {
    const conditional = isObject(table?.DeletionPolicy) || isObject(table?.UpdateReplacePolicy);
    if (conditional) {
      expect(asArray(template.Transform)).toEqual([
        "AWS::LanguageExtensions",
        "AWS::Serverless-2016-10-31",
      ]);
    }
  });
});

describe("IAM", () => {
  const statements = iamStatements(template);

  it("names no action or resource with a wildcard", () => {
    const wild = statements.flatMap(({ at, statement }) => [
      ...asArray(statement.Action)
        .filter((action) => typeof action !== "string" || action.includes("*"))
        .map((action) => `${at} Action ${JSON.stringify(action)}`),
      ...asArray(statement.Resource)
        .filter((resource) => JSON.stringify(resource).includes("*"))
        .map((resource) => `${at} Resource ${JSON.stringify(resource)}`),
      ...(statement.NotAction !== undefined || statement.NotResource !== undefined
        ? [`${at} uses NotAction/NotResource`]
        : []),
    ]);
    expect(wild).toEqual([]);
  });

  it("attaches no managed policies (their resources are *)", () => {
    for (const [id, role] of ofType("AWS::IAM::Role")) {
      expect(role.Properties?.ManagedPolicyArns, id).toBeUndefined();
      expect(role.Properties?.PermissionsBoundary, id).toBeUndefined();
    }
  });

  it("lets Lambda assume the functions' roles and CodeDeploy its own, only by sts:AssumeRole", () => {
    const functionRoles = new Set(functions.map(([id]) => getAttArnOf(prop(id, "Role"))));
    const preference = globals.DeploymentPreference;
    const codeDeployRole = isObject(preference) ? getAttArnOf(preference.Role) : undefined;
    for (const [id, role] of ofType("AWS::IAM::Role")) {
      const service = functionRoles.has(id)
        ? "lambda.amazonaws.com"
        : id === codeDeployRole
          ? "codedeploy.amazonaws.com"
          : "(a role nothing uses)";
      expect(role.Properties?.AssumeRolePolicyDocument, id).toEqual({
        Version: "2012-10-17",
        Statement: [{ Effect: "Allow", Principal: { Service: service }, Action: "sts:AssumeRole" }],
      });
    }
  });

  it("lets each function write only its own log group", () => {
    for (const [id] of functions) {
      const role = getAttArnOf(prop(id, "Role")) ?? "";
      const logging = prop(id, "LoggingConfig");
      const group = isObject(logging) ? refOf(logging.LogGroup) : undefined;
      const logStatements = statements
        .filter(({ owner }) => owner === role)
        .filter(({ statement }) =>
          asArray(statement.Action).some((action) => text(action).startsWith("logs:")),
        );
      expect(logStatements.map(({ statement }) => statement)).toEqual([
        {
          Sid: "WriteOwnLogGroup",
          Effect: "Allow",
          Action: ["logs:CreateLogStream", "logs:PutLogEvents"],
          Resource: { "Fn::GetAtt": [group ?? "", "Arn"] },
        },
      ]);
    }
  });

  /** The API functions' roles: logs and the table. The hook and CodeDeploy: see deploys.test.ts. */
  const actionsOf: Record<string, RegExp> = {
    PreTrafficHookRole:
      /^((logs|dynamodb):[A-Za-z]+|lambda:InvokeFunction|codedeploy:PutLifecycleEventHookExecutionStatus)$/,
    CodeDeployRole:
      /^(lambda:(GetAlias|UpdateAlias|GetProvisionedConcurrencyConfig|InvokeFunction)|cloudwatch:DescribeAlarms)$/,
  };

  it("grants only logs and DynamoDB actions (and each deploy role its few), DynamoDB only on partitions", () => {
    for (const { at, owner, statement } of statements) {
      expect(statement.Effect, at).toBe("Allow");
      for (const action of asArray(statement.Action).map(String)) {
        expect(action, at).toMatch(actionsOf[owner] ?? /^(logs|dynamodb):[A-Za-z]+$/);
        if (action.startsWith("dynamodb:")) {
          const condition = isObject(statement.Condition) ? statement.Condition : {};
          // ForAllValues: every leading key of the request must be listed.
          const keys = Object.entries(condition).filter(
            ([operator, test]) =>
              /^ForAllValues:String(Equals|Like)$/.test(operator) &&
              isObject(test) &&
              test["dynamodb:LeadingKeys"] !== undefined,
          );
          expect(keys.length, `${at}: ${action} without a LeadingKeys condition`).toBe(1);
        }
      }
    }
  });
});

describe("secrets", () => {
  it("the template carries no key material or credentials", () => {
    const text = JSON.stringify(template);
    expect(text).not.toMatch(/petstore_[A-Za-z0-9_-]{20,}/);
    expect(text).not.toMatch(/AKIA[0-9A-Z]{16}/);
    expect(text).not.toMatch(/SECRET|PASSWORD|API_KEY"/i);
    for (const [name, parameter] of Object.entries(template.Parameters)) {
      expect(name, "no parameter is a secret").not.toMatch(/key|secret|token|password/i);
      expect(parameter.NoEcho).toBeUndefined();
    }
  });
});
