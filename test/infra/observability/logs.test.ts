/**
 * Logs as infra/template.yaml declares them: every group outlives a production stack, and the
 * access log carries the request id the function's log line carries.
 */
import { describe, expect, it } from "vitest";
import { stageConfig, stages } from "../../../scripts/stages.ts";
import { evaluate, parameterValues } from "../../support/cfnConditions.ts";
import type { Json } from "../../support/cloudFormation.ts";
import { isObject, text } from "../../support/cloudFormation.ts";
import { ofType, template } from "../../support/templateResources.ts";

describe("logs", () => {
  it.each(stages)("%s: every log group is kept exactly when production", (stage) => {
    const parameters = parameterValues(template, stageConfig(stage).parameters);
    for (const [id, group] of ofType("AWS::Logs::LogGroup")) {
      const policy = (name: string): Json | undefined =>
        evaluate(group[name], parameters, template.Conditions);
      const expected = stage === "production" ? "Retain" : "Delete";
      expect(policy("DeletionPolicy"), id).toBe(expected);
      expect(policy("UpdateReplacePolicy"), id).toBe(expected);
    }
  });

  it("the access log carries the Lambda request id the function's log line carries", () => {
    const settings = template.Resources.HttpApi?.Properties?.AccessLogSettings;
    const format = JSON.parse(text(isObject(settings) ? settings.Format : null)) as Record<
      string,
      string
    >;
    expect(format.integrationRequestId).toBe("$context.integration.requestId");
  });
});
