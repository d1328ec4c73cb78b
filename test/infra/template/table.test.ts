/**
 * The table as infra/template.yaml declares it: one on-demand table, recoverable and encrypted,
 * named for the stage, retained and protected exactly in production, as every log group is kept.
 */
import type { Json } from "../../support/cloudFormation.ts";
import { describe, expect, it } from "vitest";
import { stageConfig, stages } from "../../../scripts/stages.ts";
import { evaluate, parameterValues } from "../../support/cfnConditions.ts";
import { asArray, isObject } from "../../support/cloudFormation.ts";
import { ofType, template } from "../../support/templateResources.ts";
import { ttlAttribute } from "../../../lib/table/schema.ts";

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
    expect(props.TimeToLiveSpecification).toEqual({ AttributeName: ttlAttribute, Enabled: true });
  });

  it("is named petstore-<stage>, the name the keys command uses", () => {
    expect(props.TableName).toEqual({ "Fn::Sub": "petstore-${Stage}" });
  });

  it.each(stages)(
    "in %s: the table and every log group retained, the table protected, exactly when production",
    (stage) => {
      const parameters = parameterValues(template, stageConfig(stage).parameters);
      const production = stage === "production";
      const policy = (resource: unknown, attribute: string): unknown =>
        evaluate(
          (resource as Record<string, Json> | undefined)?.[attribute],
          parameters,
          template.Conditions,
        );
      for (const attribute of ["DeletionPolicy", "UpdateReplacePolicy"]) {
        expect(policy(table, attribute), tableId).toBe(production ? "Retain" : "Delete");
      }
      for (const [id, group] of ofType("AWS::Logs::LogGroup")) {
        for (const attribute of ["DeletionPolicy", "UpdateReplacePolicy"]) {
          expect(policy(group, attribute), id).toBe(production ? "Retain" : "Delete");
        }
      }
      expect(evaluate(props.DeletionProtectionEnabled, parameters, template.Conditions)).toBe(
        production,
      );
    },
  );

  it("no policy is RetainExceptOnCreate, which AWS::LanguageExtensions refuses (cfn-language-discussion#139)", () => {
    expect(JSON.stringify(template.Resources)).not.toContain("RetainExceptOnCreate");
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
