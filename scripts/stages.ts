/**
 * The deployable stages and their settings, read from infra/samconfig.toml (the one place they
 * are written down): the deploy, keys and smoke commands and the tests all take them from here.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { projectRoot } from "../local/template.ts";

export const stages: readonly string[] = ["staging", "production"];
export const samconfigPath = resolve(projectRoot, "infra/samconfig.toml");

export type SamconfigValue = string | number | boolean;

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
  if (!deploy) throw new Error(`${path} has no [${stage}.deploy.parameters] section`);
  const text = (key: string): string => {
    const value = deploy[key];
    if (typeof value !== "string" || value === "") {
      throw new Error(`${path}: [${stage}.deploy.parameters] needs ${key} = "..."`);
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

/**
 * The subset of TOML that samconfig.toml uses: `[a.b.c]` tables and `key = value` lines with
 * basic strings ("..." with backslash escapes), integers, floats and booleans; `#` comments.
 * Anything else is an error rather than a guess.
 */
export function readSamconfig(
  path = samconfigPath,
): Record<string, Record<string, SamconfigValue>> {
  return parseSamconfig(readFileSync(path, "utf8"), path);
}

export function parseSamconfig(
  source: string,
  name = "samconfig.toml",
): Record<string, Record<string, SamconfigValue>> {
  const tables: Record<string, Record<string, SamconfigValue>> = {};
  let current: Record<string, SamconfigValue> = {};
  tables[""] = current;
  source.split(/\r?\n/).forEach((raw, index) => {
    const fail = (why: string): never => {
      throw new Error(`${name}:${index + 1}: ${why}`);
    };
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const table = /^\[([A-Za-z0-9_.-]+)\]\s*(?:#.*)?$/.exec(line);
    if (table?.[1] !== undefined) {
      if (tables[table[1]]) fail(`table [${table[1]}] appears twice`);
      current = {};
      tables[table[1]] = current;
      return;
    }
    const pair = /^([A-Za-z0-9_-]+)\s*=\s*(.*)$/.exec(line);
    if (pair?.[1] === undefined || pair[2] === undefined) return fail(`cannot read "${line}"`);
    if (pair[1] in current) fail(`key ${pair[1]} appears twice`);
    current[pair[1]] = parseValue(pair[2], fail);
  });
  return tables;
}

function parseValue(source: string, fail: (why: string) => never): SamconfigValue {
  const text = source;
  if (text.startsWith('"')) {
    let value = "";
    for (let i = 1; i < text.length; i++) {
      const char = text[i];
      if (char === '"') {
        const rest = text.slice(i + 1).trim();
        if (rest !== "" && !rest.startsWith("#")) fail(`unexpected text after a string: ${rest}`);
        return value;
      }
      if (char === "\\") {
        const next = text[++i];
        const escapes: Record<string, string> = { '"': '"', "\\": "\\", n: "\n", t: "\t" };
        const decoded = next === undefined ? undefined : escapes[next];
        if (decoded === undefined) fail(`unsupported escape \\${next ?? ""}`);
        value += decoded;
      } else if (char !== undefined) {
        value += char;
      }
    }
    return fail("unterminated string");
  }
  const bare = (text.split("#", 1)[0] ?? "").trim();
  if (bare === "true") return true;
  if (bare === "false") return false;
  if (/^[+-]?\d+(\.\d+)?$/.test(bare)) return Number(bare);
  return fail(`unsupported value ${bare} (use a "string", a number, true or false)`);
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
      throw new Error(`cannot read parameter_overrides from: ${text.slice(position)}`);
    }
    const [, name = "", raw = ""] = match;
    if (name in parameters) throw new Error(`parameter_overrides gives ${name} twice`);
    parameters[name] = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, "$1") : raw;
    position = pair.lastIndex;
  }
  return parameters;
}
