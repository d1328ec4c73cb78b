/**
 * The deployable stages and their settings, read from infra/samconfig.toml (the one place they
 * are written down): the deploy, keys and smoke commands and the tests all take them from here.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parse } from "smol-toml";
import type { TomlTable } from "smol-toml";
import { projectRoot } from "../local/template.ts";
import { lastWords } from "./process.ts";

export const stages: readonly string[] = ["staging", "production"];
export const samconfigPath = resolve(projectRoot, "infra/samconfig.toml");

export type SamconfigValue = string | number | boolean;

/**
 * infra/samconfig.toml cannot be read as the stages' settings (bad TOML, a missing section or
 * key, parameter_overrides SAM could not read): the commands say it in one line and exit 2.
 */
export class SettingsError extends Error {
  override readonly name = "SettingsError";
}

export interface StageConfig {
  readonly stage: string;
  readonly stackName: string;
  readonly region: string;
  /** `parameter_overrides`, split into template parameter name → value. */
  readonly parameters: Readonly<Record<string, string>>;
  /** Every key of `[<stage>.deploy.parameters]`, as written. */
  readonly deploy: Readonly<Record<string, SamconfigValue>>;
}

/** A stage's `[<stage>.deploy.parameters]` from samconfig.toml; throws when it is incomplete. */
export function stageConfig(stage: string, path = samconfigPath): StageConfig {
  const deploy = readSamconfig(path)[`${stage}.deploy.parameters`];
  if (!deploy) throw new SettingsError(`${path} has no [${stage}.deploy.parameters] section`);
  const text = (key: string): string => {
    const value = deploy[key];
    if (typeof value !== "string" || value === "") {
      throw new SettingsError(`${path}: [${stage}.deploy.parameters] needs ${key} = "..."`);
    }
    return value;
  };
  return {
    stage,
    stackName: text("stack_name"),
    region: text("region"),
    parameters: parseParameterOverrides(text("parameter_overrides")),
    deploy,
  };
}

/** The `region = "..."` of a stage's deploy parameters in samconfig.toml. */
export function stageRegion(stage: string): string {
  return stageConfig(stage).region;
}

/** samconfig.toml as `{"<stage>.deploy.parameters": {key: value}}`; "" holds top-level keys. */
export function readSamconfig(
  path = samconfigPath,
): Record<string, Record<string, SamconfigValue>> {
  return parseSamconfig(readFileSync(path, "utf8"), path);
}

/**
 * Parses with smol-toml (full TOML 1.0), then flattens the nested tables into dotted names, the
 * way SAM CLI addresses them. Values other than strings, numbers and booleans are refused: SAM
 * reads none here.
 */
export function parseSamconfig(
  source: string,
  name = "samconfig.toml",
): Record<string, Record<string, SamconfigValue>> {
  let document: TomlTable;
  try {
    document = parse(source);
  } catch (error) {
    // smol-toml's message goes on to quote the line: the first line says what and where.
    const what = (error instanceof Error ? error.message : String(error)).split("\n", 1)[0];
    throw new SettingsError(`${name}: ${what ?? ""}`, { cause: error });
  }
  const tables: Record<string, Record<string, SamconfigValue>> = {};
  const visit = (table: TomlTable, path: string): void => {
    const values: Record<string, SamconfigValue> = {};
    for (const [key, value] of Object.entries(table)) {
      const at = path === "" ? key : `${path}.${key}`;
      if (isTable(value)) visit(value, at);
      else if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
        values[key] = value;
      else
        throw new SettingsError(
          `${name}: ${at} has an unsupported value (use a string, number or boolean)`,
        );
    }
    if (path === "" || Object.keys(values).length > 0) tables[path] = values;
  };
  visit(document, "");
  return tables;
}

function isTable(value: unknown): value is TomlTable {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date)
  );
}

/**
 * SAM's `parameter_overrides` format: space-separated `Name=value` or `Name="value"` pairs
 * (inside the quotes, `\"` and `\\` escape).
 */
export function parseParameterOverrides(text: string): Record<string, string> {
  const parameters: Record<string, string> = {};
  const pair = /\s*([A-Za-z0-9]+)=("(?:\\.|[^"\\])*"|[^\s"]*)\s*/y;
  let position = 0;
  while (position < text.length) {
    pair.lastIndex = position;
    const match = pair.exec(text);
    if (!match) {
      if (text.slice(position).trim() === "") break;
      throw new SettingsError(`cannot read parameter_overrides from: ${text.slice(position)}`);
    }
    const [, name = "", raw = ""] = match;
    if (name in parameters) throw new SettingsError(`parameter_overrides gives ${name} twice`);
    parameters[name] = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, "$1") : raw;
    position = pair.lastIndex;
  }
  return parameters;
}

export type Found = { ok: true; value: string } | { ok: false; message: string };

/** One output of a deployed stage's stack, read with the SAM CLI and the operator's credentials. */
export async function stackOutput(
  config: StageConfig,
  key: string,
  run: (
    command: string,
    args: readonly string[],
  ) => Promise<{ code: number; stdout: string; stderr?: string }>,
): Promise<Found> {
  const args = ["list", "stack-outputs", "--stack-name", config.stackName];
  const {
    code,
    stdout,
    stderr = "",
  } = await run("sam", [...args, "--region", config.region, "--output", "json"]);
  const failed = `could not read the ${key} output of ${config.stackName} (sam ${args.join(" ")} --region ${config.region})`;
  if (code !== 0) {
    return {
      ok: false,
      message: `${failed}: ${lastWords(stderr, code)}. Is it deployed (npm run deploy -- ${config.stage}), and is AWS_PROFILE your ${config.stage} profile?`,
    };
  }
  try {
    const outputs = JSON.parse(stdout) as { OutputKey?: string; OutputValue?: string }[];
    const value = outputs.find((output) => output.OutputKey === key)?.OutputValue;
    if (value) return { ok: true, value };
  } catch {
    // reported below
  }
  return { ok: false, message: `${failed}: no ${key} in the answer.` };
}
