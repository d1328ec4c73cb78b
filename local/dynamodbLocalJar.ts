/**
 * AWS's DynamoDB Local jar, taken from the `amplify-dynamodb-simulator` npm package (which ships
 * it under emulator/) with `npm pack` at a pinned version: the tarball's sha512 must match the
 * integrity pinned here, and only package/emulator/ is extracted. None of the package's code or
 * dependencies come with it. The result is cached under .cache/dynamodb-local/<version>/.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { SetupError } from "./setupError.ts";
import { projectRoot } from "./template.ts";

/** From `npm view amplify-dynamodb-simulator@2.9.30 dist.integrity`; it bundles DynamoDB Local 1.25.1. */
export const dynamodbLocalPackage = {
  name: "amplify-dynamodb-simulator",
  version: "2.9.30",
  integrity:
    "sha512-xTeeRLvzEfqyd5lh3bH4c0kHvSHHmmhD5ZDsHFKAQ5g2Zl6JqlFdutaQhCLHzxEp6Ry1o7TB6niIoXuQAnSewQ==",
} as const;

const run = promisify(execFile);
const spec = `${dynamodbLocalPackage.name}@${dynamodbLocalPackage.version}`;
const cacheRoot = resolve(projectRoot, ".cache/dynamodb-local");

/** The folder holding DynamoDBLocal.jar and DynamoDBLocal_lib/ once fetched. */
export const dynamodbLocalDir = join(cacheRoot, dynamodbLocalPackage.version, "emulator");
export const dynamodbLocalJar = join(dynamodbLocalDir, "DynamoDBLocal.jar");

/**
 * Fetches, verifies and extracts the jar unless it is cached already. Safe to call from several
 * processes at once: each works in its own temporary folder and the first complete copy to be
 * renamed into place wins.
 */
export async function ensureDynamodbLocalJar(): Promise<string> {
  if (existsSync(dynamodbLocalJar)) return dynamodbLocalDir;
  mkdirSync(cacheRoot, { recursive: true });
  const work = mkdtempSync(join(cacheRoot, "fetch-"));
  try {
    const tarball = await pack(work);
    await verify(tarball);
    await extract(tarball, work);
    try {
      renameSync(join(work, "package"), join(cacheRoot, dynamodbLocalPackage.version));
    } catch (error) {
      if (!existsSync(dynamodbLocalJar)) throw error; // otherwise another process won the race
    }
    return dynamodbLocalDir;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function pack(work: string): Promise<string> {
  try {
    await run(
      "npm",
      ["pack", spec, "--pack-destination", work, "--ignore-scripts", "--loglevel=error"],
      { cwd: work, maxBuffer: 16 * 1024 * 1024 },
    );
  } catch (error) {
    throw new SetupError(
      `could not download ${spec} with npm pack (is the npm registry reachable?): ${toolReason(error)}`,
    );
  }
  const tarball = readdirSync(work).find((name) => name.endsWith(".tgz"));
  if (!tarball) throw new SetupError(`npm pack ${spec} wrote no tarball`);
  return join(work, tarball);
}

async function verify(tarball: string): Promise<void> {
  const digest = `sha512-${createHash("sha512")
    .update(await readFile(tarball))
    .digest("base64")}`;
  if (digest !== dynamodbLocalPackage.integrity) {
    throw new SetupError(
      `${spec} does not match the pinned integrity (got ${digest}): refusing to use it`,
    );
  }
}

async function extract(tarball: string, work: string): Promise<void> {
  try {
    await run("tar", ["-xzf", tarball, "-C", work, "package/emulator"]);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    throw new SetupError(
      missing
        ? "tar is not installed: it unpacks DynamoDB Local"
        : `tar failed: ${toolReason(error)}`,
    );
  }
}

/** The tool's own reason (its error code and first message line), not its stack or log pointer. */
function toolReason(error: unknown): string {
  if ((error as NodeJS.ErrnoException).code === "ENOENT") return "npm is not on PATH";
  const { stderr } = error as { stderr?: unknown };
  const lines = (typeof stderr === "string" ? stderr : "")
    .split("\n")
    .map((line) => line.replace(/^npm (error|ERR!)\s*/, "").trim());
  const code = lines.find((line) => line.startsWith("code "))?.slice(5);
  const message = lines.find(
    (line) => line.length > 0 && !/^(code|syscall|errno) |^A complete log/.test(line),
  );
  if (!message) return String(error).split("\n")[0] ?? "unknown error";
  return code ? `${code}: ${message}` : message;
}
