/**
 * Imports point down (docs/architecture.md): the functions and the tools stand on lib/, the tools
 * on local/, and local/ never reaches up into scripts/ or bench/; inside lib/, the table is under
 * the repositories, which are under idempotency and the list cache, which are under the HTTP code.
 * (local/docsPage.ts imported scripts/docs.ts until this test was written.)
 * Every import of every module is read with the TypeScript compiler's own pre-processor.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { projectRoot } from "../../local/template.ts";

/** What each top folder may import besides itself and packages. */
const mayImport: Readonly<Record<string, readonly string[]>> = {
  lib: [],
  functions: ["lib"],
  local: ["lib"],
  scripts: ["lib", "local"],
  bench: ["lib", "local", "scripts"],
};

/**
 * lib's layers, lowest first: a module may import its own layer or a lower one. The idempotency
 * record's model (its key, expiry and fingerprint) sits under the table, as lib/category.ts does.
 */
const libLayers: readonly (readonly string[])[] = [
  ["lib/idempotency/record.ts"],
  ["lib/table/"],
  ["lib/repositories/"],
  ["lib/idempotency/", "lib/categoryList/"],
  ["lib/http/", "lib/middleware.ts"],
];

function modulesUnder(folder: string): string[] {
  return readdirSync(resolve(projectRoot, folder), { recursive: true, encoding: "utf8" })
    .filter((path) => path.endsWith(".ts"))
    .map((path) => join(folder, path));
}

/** Each project-relative module `file` imports (relative specifiers only: packages are free). */
function importsOf(file: string): string[] {
  const source = readFileSync(resolve(projectRoot, file), "utf8");
  return ts
    .preProcessFile(source, true, true)
    .importedFiles.map((imported) => imported.fileName)
    .filter((name) => name.startsWith("."))
    .map((name) => relative(projectRoot, resolve(projectRoot, dirname(file), name)));
}

const layerOf = (path: string): number =>
  libLayers.findIndex((layer) => layer.some((prefix) => path.startsWith(prefix)));

describe("imports point down", () => {
  it.each(Object.keys(mayImport))("%s/ imports only the folders under it", (folder) => {
    const allowed = new Set([folder, ...(mayImport[folder] ?? [])]);
    const upward = modulesUnder(folder).flatMap((file) =>
      importsOf(file)
        .filter((target) => !allowed.has(target.split("/")[0] ?? ""))
        .map((target) => `${file} -> ${target}`),
    );
    expect(upward).toEqual([]);
  });

  it("inside lib/, no layer imports one above it", () => {
    const upward = modulesUnder("lib").flatMap((file) =>
      importsOf(file)
        .filter((target) => layerOf(file) >= 0 && layerOf(target) > layerOf(file))
        .map((target) => `${file} -> ${target}`),
    );
    expect(upward).toEqual([]);
  });

  it("reads every import, type-only and re-exports included", () => {
    expect(importsOf("functions/listCategories/deps.ts")).toEqual(
      expect.arrayContaining(["lib/categoryList/reader.ts", "lib/deps.ts"]),
    );
    expect(importsOf("lib/idempotency/creator.ts")).toContain("lib/repositories/categories.ts");
  });
});
