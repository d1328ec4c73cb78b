/**
 * The template's MemorySize for each benchmarked function is the size `npm run bench` recommends
 * (recorded in bench/results.json by a full run), unless bench/notes.json says why it differs:
 * `{"memorySize": {"<function>": {"template": <MB in the template>, "why": "..."}}}`. A note
 * covers only the size it names, so changing the size again needs a new reason.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadTemplate, projectRoot } from "../../local/template.ts";

interface Recorded {
  readonly mode: string;
  readonly cpuShareEnforced: boolean;
  readonly recommendation: Readonly<Record<string, number>>;
}
interface Notes {
  readonly memorySize?: Readonly<Record<string, { template?: unknown; why?: unknown }>>;
}

const read = (path: string): unknown =>
  JSON.parse(readFileSync(resolve(projectRoot, path), "utf8")) as unknown;
const results = read("bench/results.json") as Recorded;
const notes = read("bench/notes.json") as Notes;

/** Each function's MemorySize, its own or the Globals', by its folder under dist/. */
function templateSizes(): Map<string, number> {
  const template = loadTemplate();
  const globals = template.Globals?.Function ?? {};
  const sizes = new Map<string, number>();
  for (const resource of Object.values(template.Resources)) {
    if (resource.Type !== "AWS::Serverless::Function") continue;
    const props = { ...globals, ...resource.Properties };
    sizes.set(String(props.CodeUri).split("/").pop() ?? "", Number(props.MemorySize));
  }
  return sizes;
}

describe("bench/results.json comes from a full run under Lambda's CPU share", () => {
  it("was written by `npm run bench` (not --quick) with the cgroup quota enforced", () => {
    expect(results.mode).toBe("full");
    expect(results.cpuShareEnforced).toBe(true);
  });
});

describe("MemorySize in infra/template.yaml follows the benchmark, or bench/notes.json says why not", () => {
  const sizes = templateSizes();
  for (const [fn, recommended] of Object.entries(results.recommendation)) {
    it(`${fn}: the template's size is the recommended ${recommended} MB or a noted one`, () => {
      const inTemplate = sizes.get(fn);
      expect(inTemplate, `infra/template.yaml has no function built from dist/${fn}`).toBeDefined();
      if (inTemplate === recommended) return;
      const note = notes.memorySize?.[fn];
      const hint =
        `infra/template.yaml gives ${fn} ${String(inTemplate)} MB, the benchmark recommends ` +
        `${recommended} MB: change MemorySize, or explain in bench/notes.json as ` +
        `{"memorySize": {"${fn}": {"template": ${String(inTemplate)}, "why": "..."}}}`;
      expect(note?.template, hint).toBe(inTemplate);
      expect(typeof note?.why === "string" && note.why.trim() !== "", hint).toBe(true);
    });
  }
});
