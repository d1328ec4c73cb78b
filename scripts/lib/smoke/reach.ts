/**
 * Whether anything answers at a deployment's address, asked once before the checks: when
 * nothing does, the smoke test says so in one line (connection refused, no such host, no answer
 * in time) instead of failing every check with the same network error.
 */
import { send } from "../httpClient.ts";

/** Undefined when the address answers (whatever the status); else why not, in a few words. */
export async function unreachable(baseUrl: string, timeoutMs: number): Promise<string | undefined> {
  try {
    await send(baseUrl, { method: "GET", path: "/v1/categories" }, { timeoutMs });
    return undefined;
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    switch (code) {
      case "ECONNREFUSED":
        return "connection refused";
      case "ENOTFOUND":
      case "EAI_AGAIN":
        return "no such host";
      case "ECONNRESET":
        return "the connection was reset";
      default:
        return code ?? message ?? String(error);
    }
  }
}
