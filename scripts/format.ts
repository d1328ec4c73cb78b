/**
 * `npm run format`: prettier --write over the repository. A script of its own rather than the
 * bare `prettier --write .` so that a mistyped option is refused before anything is written:
 * prettier only warns about an unknown option, then rewrites the tree anyway.
 */
import { spawnSync } from "node:child_process";
import { optionsOrExit } from "./lib/args.ts";

const usage = `usage: npm run format
  rewrites every file prettier formats (.prettierignore says which not); npm run lint checks them`;

optionsOrExit("format", usage, process.argv.slice(2), {});
process.exitCode = spawnSync("prettier", ["--write", "."], { stdio: "inherit" }).status ?? 1;
