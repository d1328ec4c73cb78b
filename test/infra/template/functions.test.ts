/**
 * The functions as infra/template.yaml declares them: runtime, architecture and the built
 * bundle, timeouts under API Gateway's, configuration from the environment, JSON logs into
 * groups with retention, and a role of their own.
 */
import { existsSync, readdirSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { versionVariable } from "../../../lib/deployHook/targets.ts";
import { functionsOf, projectRoot } from "../../../local/template.ts";
import { getAttArnOf, isObject, refOf, text } from "../../support/cloudFormation.ts";
import {
  apiFunctions,
  environmentOf,
  functions,
  nameText,
  ofType,
  prop,
  template,
} from "../../support/templateResources.ts";

describe("functions", () => {
  // The template owns the functions' names: each has its code under functions/<name>/, and
  // every folder there is a function of the template.
  it("are the folders of functions/, each named as its bundle and its FunctionName", () => {
    const specs = functionsOf();
    const folders = readdirSync(resolve(projectRoot, "functions"), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(specs.map((spec) => spec.name).sort()).toEqual(folders.sort());
    for (const spec of specs) {
      expect(existsSync(resolve(projectRoot, "functions", spec.name, "index.ts"))).toBe(true);
      expect(prop(spec.logicalId, "FunctionName")).toEqual({
        "Fn::Sub": `petstore-\${Stage}-${spec.name}`,
      });
    }
  });

  it("all serve routes but one, CodeDeploy's pre-traffic hook, given each one's new version", () => {
    const specs = functionsOf();
    const hooks = specs.filter((spec) => spec.routeKeys.length === 0);
    expect(hooks).toHaveLength(1);
    const [hook] = hooks;
    const checked = specs.filter((spec) => spec.routeKeys.length > 0);
    // The hook finds each checked function's version in versionVariable(name) (lib/deployHook),
    // the key the template's loop makes from the function's stem: every function the hook
    // checks is a function of the template, and every function behind a route is checked.
    const variables = Object.fromEntries(
      checked.map((spec) => [
        versionVariable(spec.name),
        { "Fn::Sub": `\${${spec.logicalId}.Version}` },
      ]),
    );
    const own = template.Resources[hook?.logicalId ?? ""]?.Properties?.Environment;
    expect(isObject(own) ? own.Variables : undefined).toEqual(variables);
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
      const variables = environmentOf(id);
      // Parsing the map on every cold start costs 3-4x the import (lib/stackTrace.ts maps stacks).
      expect(text(variables.NODE_OPTIONS).split(/\s+/)).not.toContain("--enable-source-maps");
      expect(refOf(variables.TABLE_NAME)).toBe("CategoriesTable");
      // Lambda sets AWS_REGION and the credentials itself; the template must not.
      for (const name of ["AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"]) {
        expect(variables).not.toHaveProperty(name);
      }
    },
  );

  // Lambda writes to /aws/lambda/<FunctionName> unless told otherwise; the template declares that
  // group (for its retention), and a function naming a group names that one.
  it.each(functions)("%s: JSON logs into the group named after it, with retention", (id) => {
    const logging = prop(id, "LoggingConfig");
    expect(isObject(logging) && logging.LogFormat).toBe("JSON");
    const expected = `/aws/lambda/${nameText(prop(id, "FunctionName"))}`;
    const groups = ofType("AWS::Logs::LogGroup").filter(
      ([, group]) => nameText(group.Properties?.LogGroupName) === expected,
    );
    expect(groups.map(([groupId]) => groupId)).toHaveLength(1);
    const [[groupId, group] = ["", {}]] = groups;
    expect(group.Properties?.RetentionInDays).toEqual({ Ref: "LogRetentionDays" });
    const named = isObject(logging) ? logging.LogGroup : undefined;
    if (named !== undefined) expect(refOf(named)).toBe(groupId);
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
