/**
 * What the bench runs, built under .bench-tmp/ (git-ignored): the service's bundles from
 * scripts/build.ts (copied, so a rebuild of dist/ mid-run changes nothing); the same built with
 * lib/metrics.ts swapped for a no-op (bench/variants/noMetrics.ts), to show what metrics cost; the
 * limit and typical variants with the same esbuild options; and the measuring child.
 */
import { copyFileSync, mkdirSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { Plugin } from "esbuild";
import { build } from "esbuild";
import { loadTemplate, projectRoot } from "../local/template.ts";
import { buildFunctions, functionBuilds, lambdaBundleOptions } from "../scripts/build.ts";

export const benchFunctions = ["listCategories", "createCategory"] as const;
export type BenchFunction = (typeof benchFunctions)[number];
export const noMetrics = "ours without metrics";
export const variants = ["ours", noMetrics, "limit", "typical"] as const;
export type Variant = (typeof variants)[number];
export type Bundles = Record<Variant, Record<BenchFunction, { path: string; bytes: number }>>;

export const tmpDir = resolve(projectRoot, ".bench-tmp");

/** NODE_OPTIONS from the template's Globals ("" when none): ours runs as deployed. */
export function deployedNodeOptions(): string {
  const env = loadTemplate().Globals?.Function?.Environment as
    { Variables?: Record<string, unknown> } | undefined;
  const value = env?.Variables?.NODE_OPTIONS;
  return typeof value === "string" ? value.trim() : "";
}

const noOpMetrics: Plugin = {
  name: "no-op-metrics",
  setup: (esbuild) => {
    esbuild.onResolve({ filter: /^\.\/metrics\.ts$/ }, () => ({
      path: resolve(projectRoot, "bench/variants/noMetrics.ts"),
    }));
  },
};

async function bundle(
  variant: Variant,
  fn: BenchFunction,
): Promise<{ path: string; bytes: number }> {
  const dir = resolve(tmpDir, "bundles", variant, fn);
  const path = resolve(dir, "index.mjs");
  if (variant === "ours") {
    mkdirSync(dir, { recursive: true });
    for (const file of ["index.mjs", "index.mjs.map"]) {
      copyFileSync(resolve(projectRoot, "dist", fn, file), resolve(dir, file));
    }
  } else if (variant === noMetrics) {
    const { options } = functionBuilds().find((b) => b.name === fn) ?? {};
    await build({ ...options, outfile: path, plugins: [noOpMetrics] });
  } else {
    await build({
      ...lambdaBundleOptions,
      // One bundle per function, as shipped: the entry re-exports that function's handler only.
      stdin: {
        contents: `export { ${fn} as handler } from "./${variant}.ts";`,
        resolveDir: resolve(projectRoot, "bench/variants"),
        sourcefile: `${variant}-${fn}.ts`,
        loader: "ts",
      },
      outfile: path,
    });
  }
  return { path, bytes: statSync(path).size };
}

export async function buildAll(): Promise<{ bundles: Bundles; child: string }> {
  await buildFunctions();
  const built = async (variant: Variant): Promise<Bundles[Variant]> => ({
    listCategories: await bundle(variant, "listCategories"),
    createCategory: await bundle(variant, "createCategory"),
  });
  const bundles = {
    ours: await built("ours"),
    [noMetrics]: await built(noMetrics),
    limit: await built("limit"),
    typical: await built("typical"),
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
  return { bundles, child };
}
