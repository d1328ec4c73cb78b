/**
 * Reads infra/template.yaml, the single source of the service's routes, functions and table:
 * the build, the local server, the invoke command and the tests all take them from here.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Tags } from "yaml";
import { parse } from "yaml";
import type { RouteTable } from "../lib/routes.ts";
import { routeTableOf } from "../lib/routes.ts";

export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const templatePath = resolve(projectRoot, "infra/template.yaml");

// CloudFormation short tags (!Ref, !Sub, ...) become their long forms ({"Ref": ...}).
const intrinsicNames = [
  "Ref",
  "Sub",
  "GetAtt",
  "If",
  "Equals",
  "Not",
  "And",
  "Or",
  "Select",
  "Join",
  "Split",
  "FindInMap",
  "ImportValue",
  "GetAZs",
  "Base64",
  "Cidr",
  "Condition",
  "Transform",
  "Length",
  "ToJsonString",
] as const;

const cloudFormationTags: Tags = intrinsicNames.flatMap((name) => {
  const key = name === "Ref" || name === "Condition" ? name : `Fn::${name}`;
  const wrap = (value: unknown): Record<string, unknown> => ({
    [key]: name === "GetAtt" && typeof value === "string" ? value.split(".") : value,
  });
  return (["scalar", "seq", "map"] as const).map((nodeClass) => ({
    tag: `!${name}`,
    collection: nodeClass === "scalar" ? undefined : nodeClass,
    resolve: (value: unknown) => wrap(toJs(value)),
  })) as Tags;
});

function toJs(value: unknown): unknown {
  if (
    value &&
    typeof value === "object" &&
    "toJSON" in value &&
    typeof value.toJSON === "function"
  ) {
    return (value.toJSON as () => unknown)();
  }
  return value;
}

export interface Template {
  readonly Parameters?: Record<
    string,
    {
      Type: string;
      Default?: unknown;
      AllowedValues?: unknown[];
      AllowedPattern?: string;
      ConstraintDescription?: string;
    }
  >;
  readonly Globals?: { Function?: Record<string, unknown> };
  readonly Resources: Record<
    string,
    { Type: string; Properties?: Record<string, unknown>; [k: string]: unknown }
  >;
  readonly Outputs?: Record<string, { Value: unknown }>;
}

export function loadTemplate(path = templatePath): Template {
  const template = parse(readFileSync(path, "utf8"), {
    customTags: cloudFormationTags,
  }) as Template;
  return { ...template, Resources: expandLoops(template.Resources) };
}

const loopKey = "Fn::ForEach::";

/**
 * The Resources with each `Fn::ForEach` loop (AWS::LanguageExtensions) expanded as
 * CloudFormation expands it, for the readers of the template that are not CloudFormation: the
 * build, the local server and the tests. Written here because no JavaScript library expands it
 * (cfn-lint and the SAM CLI do, in Python). It knows what infra/template.yaml uses: loops among
 * the resources and inside their properties, each over a literal collection, with `${Id}` in
 * keys and strings, `Ref` of the identifier, and a Sub left with only `${Resource}` read back
 * as the `Ref` CloudFormation makes of it (`${Resource.Attribute}` stays a Sub: the SAM
 * transform resolves `${Function.Version}` there, and in no GetAtt). Anything else in a loop is
 * an error that names the loop.
 */
export function expandLoops(resources: Template["Resources"]): Template["Resources"] {
  return expand(resources) as Template["Resources"];
}

function expand(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(expand);
  if (!node || typeof node !== "object") return node;
  const expanded: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (!key.startsWith(loopKey)) {
      expanded[key] = expand(value);
      continue;
    }
    const [id, collection, fragment] = value as [unknown, unknown, unknown];
    if (
      typeof id !== "string" ||
      !Array.isArray(collection) ||
      !collection.every((item): item is string => typeof item === "string") ||
      !fragment ||
      typeof fragment !== "object"
    ) {
      throw new Error(`infra/template.yaml: ${key} must be [identifier, [names], {fragment}]`);
    }
    for (const item of collection) {
      for (const [name, part] of Object.entries(fragment)) {
        expanded[name.replaceAll(`\${${id}}`, item)] = expand(substitute(part, id, item));
      }
    }
  }
  return expanded;
}

function substitute(node: unknown, id: string, value: string): unknown {
  if (typeof node === "string") return node.replaceAll(`\${${id}}`, value);
  if (Array.isArray(node)) return node.map((item) => substitute(item, id, value));
  if (!node || typeof node !== "object") return node;
  const entries: [string, unknown][] = Object.entries(node);
  const [only] = entries.length === 1 ? entries : [];
  if (only?.[0] === "Ref" && only[1] === id) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, child] of entries) {
    copy[key.replaceAll(`\${${id}}`, value)] = substitute(child, id, value);
  }
  return resolveLiteral(copy);
}

function resolveLiteral(node: Record<string, unknown>): unknown {
  const sub = node["Fn::Sub"];
  if (typeof sub !== "string") return node;
  if (!sub.includes("${")) return sub;
  const reference = /^\$\{([A-Za-z0-9]+)\}$/.exec(sub);
  return reference ? { Ref: reference[1] } : node;
}

export interface FunctionSpec {
  readonly logicalId: string;
  /** The function's folder name under functions/ and dist/, e.g. "listCategories". */
  readonly name: string;
  /** Absolute path of the built bundle directory (CodeUri). */
  readonly codeDir: string;
  readonly handlerFile: string;
  readonly handlerExport: string;
  /** Runtime, e.g. "nodejs24.x": AWS_EXECUTION_ENV names it. */
  readonly runtime: string;
  readonly timeoutSeconds: number;
  /** MemorySize in MB (Lambda's default 128): bounds each container's heap (local/functionPool.ts). */
  readonly memorySize: number;
  /** ReservedConcurrentExecutions, when the template sets it: the most containers at once. */
  readonly reservedConcurrency: number | undefined;
  /** LoggingConfig.LogFormat: the form of Lambda's START/END/REPORT lines and of console's. */
  readonly logFormat: "Text" | "JSON";
  /**
   * LoggingConfig.ApplicationLogLevel (Lambda's default INFO): console's levels below it are
   * dropped, in JSON only (docs.aws.amazon.com/lambda/latest/dg/monitoring-cloudwatchlogs-log-level.html).
   */
  readonly logLevel: string;
  /** Route keys as API Gateway names them: "GET /v1/categories", or "$default". */
  readonly routeKeys: readonly string[];
}

export function functionsOf(template: Template = loadTemplate()): FunctionSpec[] {
  const globals = template.Globals?.Function ?? {};
  return Object.entries(template.Resources)
    .filter(([, resource]) => resource.Type === "AWS::Serverless::Function")
    .map(([logicalId, resource]) => {
      const props = { ...globals, ...resource.Properties };
      const codeUri = String(props.CodeUri);
      const [file = "", exportName = ""] = String(props.Handler).split(".");
      const events = (props.Events ?? {}) as Record<
        string,
        { Type: string; Properties?: { Path?: string; Method?: string } }
      >;
      const logging = (props.LoggingConfig ?? {}) as {
        LogFormat?: string;
        ApplicationLogLevel?: string;
      };
      const routeKeys = Object.values(events)
        .filter((event) => event.Type === "HttpApi")
        .map(({ Properties: p }) =>
          p?.Path === undefined && p?.Method === undefined
            ? "$default"
            : `${String(p.Method).toUpperCase()} ${String(p.Path)}`,
        );
      return {
        logicalId,
        name: codeUri.split("/").pop() ?? logicalId,
        codeDir: resolve(dirname(templatePath), codeUri),
        handlerFile: `${file}.mjs`,
        handlerExport: exportName,
        runtime: String(props.Runtime),
        timeoutSeconds: Number(props.Timeout ?? 3),
        memorySize: Number(props.MemorySize ?? 128),
        reservedConcurrency:
          props.ReservedConcurrentExecutions === undefined
            ? undefined
            : Number(props.ReservedConcurrentExecutions),
        logFormat: logging.LogFormat === "JSON" ? ("JSON" as const) : ("Text" as const),
        logLevel: logging.ApplicationLogLevel ?? "INFO",
        routeKeys,
      };
    });
}

/** The functions behind the API's routes (the deploy hook, for one, serves none). */
export function servedFunctions(template: Template = loadTemplate()): FunctionSpec[] {
  return functionsOf(template).filter((spec) => spec.routeKeys.length > 0);
}

/**
 * The routes the functions serve, `$default` aside, by path (lib/routes.ts): what the route
 * fallback tells 404 from 405 with. scripts/build.ts injects it into the bundles.
 */
export function servedRoutes(functions: readonly FunctionSpec[] = functionsOf()): RouteTable {
  return routeTableOf(
    functions.flatMap((spec) => spec.routeKeys).filter((routeKey) => routeKey !== "$default"),
  );
}

/** Every route key the template declares, with the function serving it. */
export function routesOf(
  functions: readonly FunctionSpec[] = functionsOf(),
): Map<string, FunctionSpec> {
  const routes = new Map<string, FunctionSpec>();
  for (const spec of functions) for (const routeKey of spec.routeKeys) routes.set(routeKey, spec);
  return routes;
}

export interface TableSpec {
  readonly AttributeDefinitions: unknown[];
  readonly KeySchema: unknown[];
}

export function tableOf(template: Template = loadTemplate()): TableSpec {
  const table = Object.values(template.Resources).find((r) => r.Type === "AWS::DynamoDB::Table");
  if (!table?.Properties) throw new Error("infra/template.yaml declares no DynamoDB table");
  const { AttributeDefinitions, KeySchema } = table.Properties as unknown as TableSpec;
  return { AttributeDefinitions, KeySchema };
}

/** A parameter override the template does not declare, or a value it does not allow. */
export class TemplateParameterError extends Error {
  override readonly name = "TemplateParameterError";
}

/**
 * Reads `sam local start-api --parameter-overrides` values: each argument holds one or more
 * `Key=Value` pairs separated by white space (or SAM's `ParameterKey=Key,ParameterValue=Value`).
 * Every key must be a parameter of the template, and a value must be one it allows (its
 * AllowedValues, and its AllowedPattern matched by the whole value), as CloudFormation checks them.
 */
export function parseParameterOverrides(
  args: readonly string[],
  template: Template = loadTemplate(),
): Record<string, string> {
  const overrides: Record<string, string> = {};
  for (const pair of args.flatMap((arg) => arg.trim().split(/\s+/)).filter(Boolean)) {
    const sam = /^ParameterKey=([^,]+),ParameterValue=(.*)$/.exec(pair);
    const equals = pair.indexOf("=");
    const [name, value] = sam
      ? [sam[1] ?? "", sam[2] ?? ""]
      : [pair.slice(0, Math.max(equals, 0)), pair.slice(equals + 1)];
    if (equals < 1) throw new TemplateParameterError(`"${pair}" is not Key=Value`);
    const declared = template.Parameters?.[name];
    if (!declared) {
      const known = Object.keys(template.Parameters ?? {}).join(", ");
      throw new TemplateParameterError(
        `infra/template.yaml has no parameter ${name} (it has ${known})`,
      );
    }
    const allowed = declared.AllowedValues?.map(String);
    if (allowed && !allowed.includes(value))
      throw new TemplateParameterError(
        `${name} must be one of ${allowed.join(", ")}, got "${value}"`,
      );
    const pattern = declared.AllowedPattern;
    if (pattern !== undefined && !new RegExp(`^(?:${pattern})$`, "u").test(value)) {
      const must = declared.ConstraintDescription ?? `match ${pattern}`;
      throw new TemplateParameterError(`${name} must be ${must}, got "${value}"`);
    }
    overrides[name] = value;
  }
  return overrides;
}

/**
 * A function's environment as the template declares it (Globals, then the function's own
 * Variables), as `sam local` resolves it: literal values, and `!Ref` of a template parameter
 * (its override, else its Default). Anything else (a resource, `!Sub`, a parameter with neither)
 * is left out: the local server sets what it needs itself (TABLE_NAME, DYNAMODB_ENDPOINT, …).
 * `overridden` holds the variables whose value came from an override.
 */
export function templateFunctionEnv(
  logicalId: string,
  overrides: Readonly<Record<string, string>> = {},
  template: Template = loadTemplate(),
): { readonly defaults: Record<string, string>; readonly overridden: Record<string, string> } {
  const variablesOf = (holder: unknown): Record<string, unknown> =>
    (holder as { Environment?: { Variables?: Record<string, unknown> } } | undefined)?.Environment
      ?.Variables ?? {};
  const declared = {
    ...variablesOf(template.Globals?.Function),
    ...variablesOf(template.Resources[logicalId]?.Properties),
  };
  const defaults: Record<string, string> = {};
  const overridden: Record<string, string> = {};
  for (const [name, value] of Object.entries(declared)) {
    if (typeof value === "string" || typeof value === "number") {
      defaults[name] = String(value);
      continue;
    }
    const ref = (value as { Ref?: unknown } | null)?.Ref;
    if (typeof ref !== "string") continue;
    if (ref in overrides) overridden[name] = overrides[ref] ?? "";
    const fallback = template.Parameters?.[ref]?.Default;
    if (typeof fallback === "string" || typeof fallback === "number")
      defaults[name] = String(fallback);
  }
  return { defaults, overridden };
}
