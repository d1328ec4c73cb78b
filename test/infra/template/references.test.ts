/**
 * Every reference in infra/template.yaml resolves: Ref, Fn::GetAtt and ${} to a parameter,
 * resource, pseudo parameter or a name the SAM transform creates; conditions to declared ones;
 * nothing declared goes unused.
 */
import { describe, expect, it } from "vitest";
import { loadTemplate } from "../../../local/template.ts";
import type { Json } from "../../support/cloudFormation.ts";
import { isObject } from "../../support/cloudFormation.ts";
import { pseudoParameters, referencesIn } from "../../support/cfnReferences.ts";
import { functions, prop, resources, template } from "../../support/templateResources.ts";

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
