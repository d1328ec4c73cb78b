/**
 * Readable stack traces from the minified bundles, paid for only when an error is logged.
 *
 * Why not `NODE_OPTIONS=--enable-source-maps`: Node then reads and parses each bundle's source map
 * as it loads it, on every cold start. Measured at 512 MB's CPU share (cgroup quota 0.289 of a
 * core, 7 cold imports each, medians): listCategories imports in 24 ms with the flag against
 * 6.5 ms without, createCategory in 31 ms against 8 ms. That alone broke the import-time target
 * (≤ 0.1× the typical stack's). Instead, the frames of a stack that is about to be logged (a 500
 * or 503, rare) are mapped here with Node's own source map reader (`node:module` SourceMap),
 * reading `<bundle>.map` beside the bundle the first time it is needed.
 */
import type { SourceMap, SourceMapPayload } from "node:module";

/**
 * The built-ins this needs, loaded when a stack is first mapped: an ESM `import` of node:fs,
 * node:module and node:url builds their whole namespaces at every cold start (about 1 ms here).
 */
function builtins() {
  return {
    fs: process.getBuiltinModule("node:fs"),
    module: process.getBuiltinModule("node:module"),
    url: process.getBuiltinModule("node:url"),
  };
}

/** A frame's location: `(file:///var/task/index.mjs:1:2345)` or ` at /var/task/index.mjs:1:2345`. */
const framePattern = /((?:file:\/\/)?\/[^\s():]+\.m?js):(\d+):(\d+)/g;

/** Parsed maps by bundle path; `null` when a bundle has none (source, or a map that won't read). */
const maps = new Map<string, SourceMap | null>();

function mapOf(file: string): SourceMap | null {
  let map = maps.get(file);
  if (map === undefined) {
    try {
      const { fs, module, url } = builtins();
      const path = file.startsWith("file:") ? url.fileURLToPath(file) : file;
      const payload = JSON.parse(fs.readFileSync(`${path}.map`, "utf8")) as SourceMapPayload;
      map = new module.SourceMap(payload);
    } catch {
      map = null;
    }
    maps.set(file, map);
  }
  return map;
}

/** `stack` with each bundle frame replaced by its source file, line and column, where known. */
export function readableStack(stack: string): string {
  return stack.replace(
    framePattern,
    (frame: string, file: string, line: string, column: string) => {
      const entry = mapOf(file)?.findEntry(Number(line) - 1, Number(column) - 1);
      if (!entry || !("originalSource" in entry)) return frame;
      const source = entry.originalSource.replace(/^(?:\.\.\/)+/, "");
      return `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
    },
  );
}
