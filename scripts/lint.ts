/**
 * `npm run lint`: eslint (type-aware), prettier's check, then the import cycles (npm run cycles).
 * A script of its own rather than the three commands joined in package.json, where npm appended
 * any option to the last of them (which ignored it): here an unknown option is refused first.
 */
import { spawnSync } from "node:child_process";
import { optionsOrExit } from "./lib/args.ts";

const usage = `usage: npm run lint
  eslint . (type-aware), prettier --check . and npm run cycles (no import cycle); stops at the
  first that fails. npm run format fixes what prettier finds.`;

optionsOrExit("lint", usage, process.argv.slice(2), {});
const steps: [string, string[]][] = [
  ["eslint", ["."]],
  ["prettier", ["--check", "."]],
  ["npm", ["run", "--silent", "cycles"]],
];
for (const [tool, args] of steps) {
  const status = spawnSync(tool, args, { stdio: "inherit" }).status ?? 1;
  if (status !== 0) {
    process.exitCode = status;
    break;
  }
}
