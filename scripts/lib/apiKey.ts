/**
 * Where the operator's scripts (load, smoke; keys revoke -) take an API key from: PETSTORE_API_KEY,
 * else the first line of standard input (`pass show petstore/staging | npm run smoke …`). Never
 * a flag: npm echoes its arguments, and shell history and `ps` keep them.
 */
import { createInterface } from "node:readline";

/**
 * The key, or undefined when neither gives one. On a terminal, `prompt` is asked on stderr and a
 * line read; without a prompt a terminal gives nothing (the script never waits on an unasked
 * question). Only the first line is read: the rest of a pipe is left unread.
 */
export async function apiKeyFromEnvOrStdin(prompt?: string): Promise<string | undefined> {
  const fromEnv = process.env.PETSTORE_API_KEY?.trim();
  if (fromEnv) return fromEnv;
  return apiKeyFromStdin(prompt);
}

/** The first line of standard input (asking `prompt` on a terminal), or undefined. */
export async function apiKeyFromStdin(prompt?: string): Promise<string | undefined> {
  if (process.stdin.isTTY) {
    if (prompt === undefined) return undefined;
    process.stderr.write(prompt);
  }
  const lines = createInterface({ input: process.stdin, terminal: false });
  for await (const line of lines) {
    lines.close();
    return line.trim() || undefined;
  }
  return undefined;
}
