/**
 * What the bench runs, built under .bench-tmp/: the bundles of `npm run build` (copied, so a
 * rebuild of dist/ mid-run changes nothing); the same built with lib/metrics.ts swapped for a
 * no-op (variants/noMetrics.ts), to show what metrics cost; the limit and typical variants with
 * the same esbuild options; and the measuring child.
 */
import { copyFileSync, mkdirSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { PluginBuild } from "esbuild";
import { build } from "esbuild";
import { loadTemplate, projectRoot } from "../local/template.ts";
import { buildFunctions, functionBuilds, lambdaBundleOptions } from "../scripts/build.ts";
import { tmpDir } from "./sandbox.ts";

export const benchFunctions = ["listCategories", "createCategory"] as const;
export type BenchFunction = (typeof benchFunctions)[number];
export const variants = ["ours", "ours without metrics", "limit", "typical"] as const;
export type Variant = (typeof variants)[number];
type Bundles = Record<Variant, Record<BenchFunction, { path: string; bytes: number }>>;
/** nodeOptions: the template's NODE_OPTIONS ("" when none), so that ours runs as deployed. */
export type Built = { bundles: Bundles; child: string; nodeOptions: string };

function nodeOptions(): string {
  type Env = { Variables?: { NODE_OPTIONS?: unknown } } | undefined;
  const value = (loadTemplate().Globals?.Function?.Environment as Env)?.Variables?.NODE_OPTIONS;
  return typeof value === "string" ? value.trim() : "";
}

const noOpMetrics = {
  name: "no-op-metrics",
  setup: (b: PluginBuild): void => {
    const path = resolve(projectRoot, "bench/variants/noMetrics.ts");
    b.onResolve({ filter: /^\.\/metrics\.ts$/ }, () => ({ path }));
  },
};

async function bundle(variant: Variant, fn: BenchFunction) {
  const dir = resolve(tmpDir, "bundles", variant, fn);
  const outfile = resolve(dir, "index.mjs");
  if (variant === "ours") {
    mkdirSync(dir, { recursive: true });
    for (const file of ["index.mjs", "index.mjs.map"])
      copyFileSync(resolve(projectRoot, "dist", fn, file), resolve(dir, file));
  } else if (variant === "ours without metrics") {
    const { options } = functionBuilds().find((b) => b.name === fn) ?? {};
    await build({ ...options, outfile, plugins: [noOpMetrics] });
  } else {
    // One bundle per function, as shipped: the entry re-exports that function's handler only.
    const contents = `export { ${fn} as handler } from "./${variant}.ts";`;
    const resolveDir = resolve(projectRoot, "bench/variants");
    await build({ ...lambdaBundleOptions, stdin: { contents, resolveDir, loader: "ts" }, outfile });
  }
  return { path: outfile, bytes: statSync(outfile).size };
}

export async function buildAll(): Promise<Built> {
  await buildFunctions();
  const bundles = {} as Bundles;
  for (const v of variants) {
    const [list, create] = [await bundle(v, "listCategories"), await bundle(v, "createCategory")];
    bundles[v] = { listCategories: list, createCategory: create };
  }
  const child = resolve(tmpDir, "child.mjs");
  const entryPoints = [resolve(projectRoot, "bench/child.ts")];
  const options = { bundle: true, format: "esm", platform: "node", target: "node24" } as const;
  await build({ ...options, entryPoints, outfile: child, logLevel: "warning" });
  return { bundles, child, nodeOptions: nodeOptions() };
}
