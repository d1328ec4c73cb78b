/**
 * infra/template.yaml against the AWS SAM JSON schema: every resource, every function's events
 * and the Globals (the schema comes from the team's spec folder; the suite skips, naming it,
 * when it is not there).
 */
import { describe, expect, it } from "vitest";
import { loadTemplate } from "../../../local/template.ts";
import { isObject } from "../../support/cloudFormation.ts";
import { skipWithout } from "../../support/missingTool.ts";
import { loadSamSchema, samSchemaMissing, samSchemaPath } from "../../support/samSchema.ts";
import { functions, resources } from "../../support/templateResources.ts";

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
