/**
 * What each function's bundle holds, read from esbuild's metafile of the very build `npm run
 * build` makes (scripts/build.ts functionBuilds, here not written to disk): outside the bundle,
 * nothing but Node's built-ins; inside it, no module that only another function calls, so that
 * each function wires, loads and ships only what its operation uses (lib/deps.ts and
 * functions/<operation>/deps.ts). Functions are found by the routes they serve in
 * infra/template.yaml, which owns their names; the one serving none is the pre-traffic hook.
 */
import { isBuiltin } from "node:module";
import { build } from "esbuild";
import type { Metafile } from "esbuild";
import { describe, expect, it } from "vitest";
import { functionsOf } from "../../local/template.ts";
import { functionBuilds } from "../../scripts/build.ts";

/** Modules only one function calls, by a route key it serves (undefined: the hook). */
const onlyCalledBy: readonly { readonly routeKey?: string; readonly modules: readonly RegExp[] }[] =
  [
    {
      routeKey: "POST /v1/categories",
      modules: [
        /^lib\/idempotency\//,
        /^lib\/repositories\/idempotencyRecords\.ts$/,
        // A request body, its parser and the place a malformed one stops being JSON.
        /\/@middy\/http-json-body-parser\//,
        /^lib\/http\/json(Body|Position)\.ts$/,
      ],
    },
    {
      routeKey: "GET /v1/categories",
      modules: [/^lib\/categoryList\/(cache|reader|ranges|snapshot)\.ts$/],
    },
    {
      // The key administration (issue, rotate, update, revoke, list): the hook issues and revokes
      // its probe key; a request only looks a key up (lib/repositories/keyLookup.ts).
      modules: [
        /^lib\/deployHook\//,
        /\/@aws-sdk\//,
        /\/@smithy\//,
        /^lib\/repositories\/apiKeys\.ts$/,
      ],
    },
  ];

interface Contents {
  /** Source files with bytes in the bundle, as paths from the project root. */
  readonly held: readonly string[];
  /** What the bundle imports from outside itself. */
  readonly external: readonly string[];
}

async function contentsOf(name: string): Promise<Contents> {
  const spec = functionBuilds().find((candidate) => candidate.name === name);
  if (!spec) throw new Error(`no build for ${name}`);
  const { metafile } = await build({ ...spec.options, write: false, logLevel: "silent" });
  const output = Object.values((metafile as Metafile).outputs).find((out) => out.entryPoint);
  if (!output) throw new Error(`esbuild wrote no bundle for ${name}`);
  return {
    held: Object.entries(output.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([path]) => path),
    external: output.imports.filter((entry) => entry.external).map((entry) => entry.path),
  };
}

describe.each(functionsOf().map((spec) => [spec.name, spec] as const))(
  "%s bundle",
  (name, spec) => {
    const serves = (routeKey: string | undefined): boolean =>
      routeKey === undefined ? spec.routeKeys.length === 0 : spec.routeKeys.includes(routeKey);
    let contents: Promise<Contents> | undefined;
    const load = (): Promise<Contents> => (contents ??= contentsOf(name));

    it("imports nothing but Node built-ins", async () => {
      const { external } = await load();
      expect(external.filter((path) => !isBuiltin(path))).toEqual([]);
    });

    it("holds no module that only another function calls", async () => {
      const { held } = await load();
      const foreign = onlyCalledBy
        .filter((group) => !serves(group.routeKey))
        .flatMap((group) => group.modules);
      expect(held.filter((path) => foreign.some((module) => module.test(path)))).toEqual([]);
    });

    // Each pattern names code that exists: the function that calls it holds it.
    it("holds the modules its own operation calls", async () => {
      const { held } = await load();
      for (const group of onlyCalledBy.filter((candidate) => serves(candidate.routeKey))) {
        for (const module of group.modules) {
          expect(
            held.some((path) => module.test(path)),
            `${String(module)} in ${name}`,
          ).toBe(true);
        }
      }
    });
  },
);
