/**
 * Whether a stage accepts the smoke test's key (PETSTORE_API_KEY), told apart from whether the
 * release works. A key the stage does not take (unknown, revoked, expired, rotated out, without
 * a scope the smoke test needs, over its rate limit) fails every keyed check of the smoke test:
 * without this, that read as a bad release and advised a rollback. Asked with requests that
 * write nothing: GET /v1/categories without a key (the stage answers, and authenticates: 401),
 * the same with the key (categories:read), and, only where the smoke test writes (not in
 * production: a read-only key is enough there, and the only one it should hold), POST
 * /v1/categories with the key and a body without a name (categories:write; a key that has it
 * gets 400 invalid_body, and nothing is created). The key goes in the Authorization header only,
 * never in a message.
 */
import { acceptCompressed } from "../../../lib/bodyText.ts";
import { send } from "../httpClient.ts";

/** The answers' statuses (no `write` where none was asked), or why nothing answered. */
export type KeyAnswers =
  | { readonly keyless: number; readonly read: number; readonly write?: number | undefined }
  | { readonly unreachable: string };

/** A refusal of the key: its status, the request that got it, and what to do. */
export interface KeyRefusal {
  readonly status: number;
  readonly request: string;
  readonly advice: string;
}

/** DeployIo.keyAnswers: the requests against the stage's BaseUrl (the POST only if `writes`). */
export async function askKey(
  baseUrl: string,
  apiKey: string,
  writes: boolean,
): Promise<KeyAnswers> {
  const timeoutMs = 10_000;
  try {
    const keyless = await send(baseUrl, { path: "/v1/categories", key: null }, { timeoutMs });
    // Compressed, as clients ask: a list over Lambda's 6 MB answer limit comes only so.
    const read = await send(
      baseUrl,
      { path: "/v1/categories", key: apiKey, headers: acceptCompressed },
      { timeoutMs },
    );
    if (!writes) return { keyless: keyless.status, read: read.status };
    const write = await send(
      baseUrl,
      {
        method: "POST",
        path: "/v1/categories",
        key: apiKey,
        headers: { "content-type": "application/json" },
        body: "{}",
      },
      { timeoutMs },
    );
    return { keyless: keyless.status, read: read.status, write: write.status };
  } catch (error) {
    return { unreachable: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The key's refusal, when the stage answers (401 without a key) and refuses the key on the read
 * or the write (401, 403 or 429); undefined otherwise: the key is not what fails.
 */
export function keyRefusal(answers: KeyAnswers, stage: string): KeyRefusal | undefined {
  if ("unreachable" in answers || answers.keyless !== 401) return undefined;
  const asked = [
    { request: "GET /v1/categories", status: answers.read, scope: "categories:read" },
    ...(answers.write === undefined
      ? []
      : [{ request: "POST /v1/categories", status: answers.write, scope: "categories:write" }]),
  ];
  const needs = asked.map(({ scope }) => scope);
  for (const { request, status, scope } of asked) {
    const advice = adviceFor(status, stage, scope, needs);
    if (advice !== undefined) return { status, request, advice };
  }
  return undefined;
}

/** `needs`: the scopes the stage's smoke test uses. */
function adviceFor(
  status: number,
  stage: string,
  scope: string,
  needs: readonly string[],
): string | undefined {
  const readOnly = needs.length === 1 ? ` --scope ${needs.join(",")}` : "";
  const create = `npm run keys -- create --stage ${stage} --label smoke${readOnly}`;
  if (status === 401) {
    return (
      `${stage} does not know it, or it was revoked, expired or rotated out: create one ` +
      `(${create}) and put it in PETSTORE_API_KEY (and the pipeline's secret), or pass --no-smoke`
    );
  }
  if (status === 403) {
    return (
      `it lacks ${scope}, and the smoke test of ${stage} needs ${needs.join(" and ")}: ` +
      `give it that (npm run keys -- list --stage ${stage} for its id, then npm run keys -- ` +
      `update <id> --scope ${needs.join(",")} --stage ${stage}), or pass --no-smoke`
    );
  }
  if (status === 429) {
    return (
      `it is over its rate limit: wait a minute, or give the smoke test a key of its own ` +
      `(${create})`
    );
  }
  return undefined;
}

/** "401 on GET /v1/categories": the status and the request, never the key. */
export function describeRefusal(refusal: KeyRefusal): string {
  return `${refusal.status} on ${refusal.request}`;
}
