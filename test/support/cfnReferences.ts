/**
 * References in infra/template.yaml as CloudFormation resolves them: every Ref, Fn::GetAtt,
 * ${...} of Fn::Sub and condition name, with where in the template it stands.
 */
import { asArray, isObject, text } from "./cloudFormation.ts";

/** Pseudo parameters CloudFormation defines for every stack. */
export const pseudoParameters = new Set([
  "AWS::AccountId",
  "AWS::NotificationARNs",
  "AWS::NoValue",
  "AWS::Partition",
  "AWS::Region",
  "AWS::StackId",
  "AWS::StackName",
  "AWS::URLSuffix",
]);

export interface Reference {
  readonly kind: "Ref" | "GetAtt" | "Sub" | "Condition";
  readonly name: string;
  readonly attribute?: string;
  /** Where in the template, e.g. Resources.HttpApi.Properties.Description. */
  readonly at: string;
}

/** Every Ref, Fn::GetAtt, ${...} of Fn::Sub and condition name (Fn::If, Condition) under node. */
export function referencesIn(node: unknown, at: string): Reference[] {
  const found: Reference[] = [];
  const walk = (value: unknown, path: string, subLocals: ReadonlySet<string>): void => {
    if (Array.isArray(value)) {
      value.forEach((item, index) => {
        walk(item, `${path}[${index}]`, subLocals);
      });
      return;
    }
    if (!isObject(value)) return;
    const keys = Object.keys(value);
    const only = keys.length === 1 ? keys[0] : undefined;
    const argument = only === undefined ? undefined : value[only];
    if (only === "Ref" && typeof argument === "string") {
      if (!subLocals.has(argument)) found.push({ kind: "Ref", name: argument, at: path });
      return;
    }
    if (only === "Fn::GetAtt") {
      const [name, ...attribute] =
        typeof argument === "string" ? argument.split(".") : asArray(argument).map(String);
      found.push({ kind: "GetAtt", name: name ?? "", attribute: attribute.join("."), at: path });
      return;
    }
    if (only === "Fn::Sub") {
      const [source, variables] = Array.isArray(argument) ? argument : [argument, undefined];
      const locals = new Set(isObject(variables) ? Object.keys(variables) : []);
      if (isObject(variables)) walk(variables, `${path}.Fn::Sub[1]`, subLocals);
      for (const match of text(source).matchAll(/\$\{([^}!][^}]*)\}/g)) {
        const [name = "", attribute] = (match[1] ?? "").trim().split(/\.(.*)/s);
        if (locals.has(name)) continue;
        found.push(
          attribute === undefined || name.startsWith("AWS::")
            ? { kind: "Sub", name, at: path }
            : { kind: "Sub", name, attribute, at: path },
        );
      }
      return;
    }
    if (only === "Fn::If" && Array.isArray(argument)) {
      found.push({ kind: "Condition", name: text(argument[0]), at: path });
      argument.slice(1).forEach((branch, index) => {
        walk(branch, `${path}.Fn::If[${index + 1}]`, subLocals);
      });
      return;
    }
    if (only === "Condition" && typeof argument === "string") {
      found.push({ kind: "Condition", name: argument, at: path });
      return;
    }
    for (const key of keys) walk(value[key], `${path}.${key}`, subLocals);
  };
  walk(node, at, new Set());
  return found;
}
