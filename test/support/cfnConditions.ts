/**
 * Conditions and Fn::If trees of infra/template.yaml evaluated as CloudFormation would for a
 * stage's parameter values.
 */
import type { Json, JsonObject, RawTemplate } from "./cloudFormation.ts";
import { asArray, isObject, text } from "./cloudFormation.ts";

export type ParameterValues = Readonly<Record<string, string | readonly string[]>>;

/**
 * A stack's parameter values as CloudFormation resolves them: the template's Defaults, then the
 * given values; CommaDelimitedList values become lists ("" is [""], as in CloudFormation).
 */
export function parameterValues(
  template: RawTemplate,
  given: Readonly<Record<string, string>>,
): ParameterValues {
  const values: Record<string, string | string[]> = {};
  for (const [name, spec] of Object.entries(template.Parameters)) {
    const value = name in given ? given[name] : spec.Default;
    if (value === undefined) continue;
    values[name] = spec.Type === "CommaDelimitedList" ? text(value).split(",") : text(value);
  }
  return values;
}

/** Evaluates a condition (or any Fn::If / Ref tree) for the given parameter values. */
export function evaluate(
  node: Json | undefined,
  parameters: ParameterValues,
  conditions: Readonly<Record<string, Json>>,
): Json | undefined {
  const condition = (name: string): boolean => {
    const definition = conditions[name];
    if (definition === undefined) throw new Error(`no condition ${name}`);
    return evaluate(definition, parameters, conditions) === true;
  };
  if (Array.isArray(node))
    return node.map((item) => evaluate(item, parameters, conditions) ?? null);
  if (!isObject(node)) return node;
  const keys = Object.keys(node);
  const [only] = keys;
  const argument = only === undefined ? undefined : node[only];
  if (keys.length === 1 && only !== undefined && argument !== undefined) {
    const list = asArray(argument);
    switch (only) {
      case "Ref": {
        const name = text(argument);
        if (name === "AWS::NoValue") return undefined;
        const value = parameters[name];
        if (value === undefined) throw new Error(`no value for parameter ${name}`);
        return typeof value === "string" ? value : [...value];
      }
      case "Condition":
        return condition(text(argument));
      case "Fn::Equals": {
        const [left, right] = list.map((item) => evaluate(item, parameters, conditions));
        return JSON.stringify(left) === JSON.stringify(right);
      }
      case "Fn::Not":
        return evaluate(list[0], parameters, conditions) !== true;
      case "Fn::And":
        return list.every((item) => evaluate(item, parameters, conditions) === true);
      case "Fn::Or":
        return list.some((item) => evaluate(item, parameters, conditions) === true);
      case "Fn::If":
        return evaluate(condition(text(list[0])) ? list[1] : list[2], parameters, conditions);
      case "Fn::Join": {
        const [separator, items] = list;
        const values = evaluate(items, parameters, conditions);
        return asArray(values ?? null)
          .map((item) => text(item))
          .join(text(separator));
      }
      case "Fn::Split": {
        const [separator, source] = list;
        return text(evaluate(source, parameters, conditions)).split(text(separator));
      }
      default:
        break;
    }
  }
  const result: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    const resolved = evaluate(value, parameters, conditions);
    if (resolved !== undefined) result[key] = resolved;
  }
  return result;
}
