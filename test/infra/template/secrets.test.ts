/** infra/template.yaml carries no secret: no key material, no credentials, no secret parameter. */
import { describe, expect, it } from "vitest";
import { template } from "../../support/templateResources.ts";

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
