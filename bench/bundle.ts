/**
 * Builds what the bench runs: the service's own bundles through scripts/build.ts (the shipped
 * build, unchanged, then copied), the limit and typical variants with the same esbuild options,
 * and the measuring child, all under .bench-tmp/ (git-ignored).
 */
import { copyFileSync, mkdirSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { BuildOptions } from "esbuild";
import { build } from "esbuild";
import { buildFunctions, lambdaBundleOptions } from "../scripts/build.ts";
import { loadTemplate, projectRoot } from "../local/template.ts";

export const benchFunctions = ["listCategories", "createCategory"] as const;
export type BenchFunction = (typeof benchFunctions)[number];
/** The three compared in every figure and target. */
export const variants = ["ours", "limit", "typical"] as const;
/**
 * Plus "deployed": our bundle under the NODE_OPTIONS the template gives every function
 * (--enable-source-maps), measured alongside when the template sets any, so the cost of the
 * runtime flags is visible apart from the code's.
 */
export type Variant = (typeof variants)[number] | "deployed";

/** NODE_OPTIONS from the template's Globals, "" when it sets none. */
export function deployedNodeOptions(): string {
  const env = loadTemplate().Globals?.Function?.Environment as
    { Variables?: Record<string, unknown> } | undefined;
  const value = env?.Variables?.NODE_OPTIONS;
  return typeof value === "string" ? value.trim() : "";
}

export const tmpDir = resolve(projectRoot, ".bench-tmp");

/** scripts/build.ts's options, so the variants are minified and laid out as the service is. */
const shippedOptions: BuildOptions = lambdaBundleOptions;

export interface Bundle {
  readonly path: string;
  readonly bytes: number;
}
export type Bundles = Record<Variant, Record<BenchFunction, Bundle>>;

function bundleAt(path: string): Bundle {
  return { path, bytes: statSync(path).size };
}

async function buildVariant(variant: "limit" | "typical", fn: BenchFunction): Promise<Bundle> {
  const outfile = resolve(tmpDir, "bundles", variant, fn, "index.mjs");
  await build({
    ...shippedOptions,
    // One bundle per function, as shipped: the entry re-exports that function's handler only.
    stdin: {
      contents: `export { ${fn} as handler } from "./${variant}.ts";`,
      resolveDir: resolve(projectRoot, "bench/variants"),
      sourcefile: `${variant}-${fn}.ts`,
      loader: "ts",
    },
    outfile,
  });
  return bundleAt(outfile);
}

export async function buildAll(): Promise<{ bundles: Bundles; child: string }> {
  const shipped = await buildFunctions();
  // Measured from a copy, so a rebuild of dist/ during the run cannot change what is measured.
  const ours = (fn: BenchFunction): Bundle => {
    if (!shipped.some((built) => built.name === fn)) throw new Error(`the build made no ${fn}`);
    const dir = resolve(tmpDir, "bundles", "ours", fn);
    mkdirSync(dir, { recursive: true });
    for (const file of ["index.mjs", "index.mjs.map"]) {
      copyFileSync(resolve(projectRoot, "dist", fn, file), resolve(dir, file));
    }
    return bundleAt(resolve(dir, "index.mjs"));
  };
  const child = resolve(tmpDir, "child.mjs");
  await build({
    entryPoints: [resolve(projectRoot, "bench/child.ts")],
    outfile: child,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node24",
    logLevel: "warning",
  });
  const shippedBundles = {
    listCategories: ours("listCategories"),
    createCategory: ours("createCategory"),
  };
  const bundles: Bundles = {
    ours: shippedBundles,
    deployed: shippedBundles,
    limit: {
      listCategories: await buildVariant("limit", "listCategories"),
      createCategory: await buildVariant("limit", "createCategory"),
    },
    typical: {
      listCategories: await buildVariant("typical", "listCategories"),
      createCategory: await buildVariant("typical", "createCategory"),
    },
  };
  return { bundles, child };
}
