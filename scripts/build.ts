/**
 * `npm run build`: one self-contained, minified ESM bundle per function declared in
 * infra/template.yaml, at the template's CodeUri (dist/<function>/index.mjs), with a source map.
 * This is the only bundler configuration; `sam deploy` ships these folders as they are.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { relative, resolve } from "node:path";
import { build } from "esbuild";
import type { BuildOptions } from "esbuild";
import { parse } from "yaml";
import type { Declared } from "../lib/routes.ts";
import { isScope } from "../lib/scopes.ts";
import type { FunctionSpec } from "../local/template.ts";
import {
  functionsOf,
  projectRoot,
  routesOf,
  servedRoutes,
  templatePath,
} from "../local/template.ts";
import { optionsOrExit } from "./lib/args.ts";

/** How every Lambda bundle is built; the benchmark builds its comparison handlers the same way. */
export const lambdaBundleOptions = {
  bundle: true,
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  format: "esm",
  platform: "node",
  target: "node24",
  logLevel: "warning",
  // The CommonJS dependencies (the hook's AWS SDK) call require() for node: built-ins; ESM has
  // no require of its own. process.getBuiltinModule, not createRequire from an `import` of
  // node:module: that import builds node:module's namespace and loads its source-map reader on
  // every cold start. Anything but a built-in fails loudly (test/infra/bundles.test.ts runs them).
  banner: {
    js: "const require=(id)=>process.getBuiltinModule(id)??(()=>{throw new Error(`not a Node built-in: ${id}`)})();",
  },
} satisfies BuildOptions;

/**
 * What a function is told of the declarations: the routes the functions serve (the template's)
 * and the scope its own routes need, as openapi.yaml says (`x-required-scope`): one for all of
 * them, or none (the fallback's routes need only a valid key). The build and the tests' harness
 * read it here, so a scope is written once, in openapi.yaml.
 */
export function declaredFor(
  spec: FunctionSpec,
  functions: readonly FunctionSpec[] = functionsOf(),
): Declared {
  const document = parse(readFileSync(resolve(projectRoot, "openapi.yaml"), "utf8")) as {
    paths: Record<string, Record<string, { "x-required-scope"?: string }>>;
  };
  const scopes = new Set(
    spec.routeKeys.flatMap((routeKey) => {
      // openapi.yaml's paths are relative to its server, whose address ends in /v1.
      const [method = "", path = ""] = routeKey.split(" ");
      const operation = document.paths[path.replace(/^\/v1\//, "/")]?.[method.toLowerCase()];
      const scope = operation?.["x-required-scope"];
      return scope === undefined ? [] : [scope];
    }),
  );
  const [scope, other] = [...scopes];
  if (other !== undefined || (scope !== undefined && !isScope(scope)))
    throw new Error(
      `openapi.yaml: the routes of ${spec.name} need ${[...scopes].join(" and ")}; a function's routes need one known scope`,
    );
  return { routes: servedRoutes(functions), ...(scope !== undefined && { scope }) };
}

/** The esbuild options of each function's bundle (also used by `npm run dev`'s watch). */
export function functionBuilds(): { name: string; outfile: string; options: BuildOptions }[] {
  const functions = functionsOf();
  // The template's facts a bundle needs at run time, where the template cannot be read.
  const routeFunctions = Object.fromEntries(
    [...routesOf(functions)].map(([routeKey, spec]) => [routeKey, spec.name]),
  );
  return functions.map((spec) => {
    const outfile = resolve(spec.codeDir, spec.handlerFile);
    return {
      name: spec.name,
      outfile,
      options: {
        ...lambdaBundleOptions,
        entryPoints: [resolve(projectRoot, "functions", spec.name, "index.ts")],
        outfile,
        metafile: true,
        define: {
          __PETSTORE_FUNCTION__: JSON.stringify(spec.name),
          __PETSTORE_DECLARED__: JSON.stringify(declaredFor(spec, functions)),
          __PETSTORE_FUNCTIONS__: JSON.stringify(routeFunctions),
        },
      },
    };
  });
}

/** A bundle did not build: esbuild has printed its errors (logLevel "warning") already. */
export class BuildError extends Error {
  override readonly name = "BuildError";
}

export async function buildFunctions(): Promise<{ name: string; bytes: number }[]> {
  const results = [];
  for (const { name, outfile, options } of functionBuilds()) {
    const result = await build(options).catch((error: unknown) => {
      // esbuild's BuildFailure carries the errors it printed.
      if (!(error instanceof Error && "errors" in error)) throw error;
      throw new BuildError(
        `dist/${name} did not build (esbuild's errors above): fix them, then run it again`,
        { cause: error },
      );
    });
    const output = result.metafile?.outputs[relative(process.cwd(), outfile)];
    results.push({ name, bytes: output?.bytes ?? 0 });
  }
  return results;
}

/** The bundle is rebuilt when it is missing or older than anything it is built from. */
export function bundleIsStale(spec: FunctionSpec): boolean {
  const bundle = resolve(spec.codeDir, spec.handlerFile);
  if (!existsSync(bundle)) return true;
  const builtAt = statSync(bundle).mtimeMs;
  const sources = [
    templatePath,
    ...["openapi.yaml", "scripts/build.ts"].map((f) => resolve(projectRoot, f)),
  ];
  for (const dir of ["functions", "lib"]) {
    const root = resolve(projectRoot, dir);
    for (const file of readdirSync(root, { recursive: true, encoding: "utf8" })) {
      sources.push(resolve(root, file));
    }
  }
  return sources.some((file) => statSync(file).mtimeMs > builtAt);
}

const usage = `usage: npm run build
  one minified ESM bundle per function of infra/template.yaml: dist/<function>/index.mjs + map`;

/** buildFunctions for a command: a failed build ends it with one line (exit 1), no stack. */
export async function buildOrExit(script: string): Promise<{ name: string; bytes: number }[]> {
  try {
    return await buildFunctions();
  } catch (error) {
    if (!(error instanceof BuildError)) throw error;
    process.stderr.write(`${script}: ${error.message}\n`);
    process.exit(1);
  }
}

if (import.meta.main) {
  optionsOrExit("build", usage, process.argv.slice(2), {});
  for (const { name, bytes } of await buildOrExit("build")) {
    console.log(`dist/${name}/index.mjs  ${(bytes / 1024).toFixed(1)} KiB`);
  }
}
