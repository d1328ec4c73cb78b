/**
 * The CodeDeploy pre-traffic hook: before `live` moves to the new versions, invoke each new
 * version with read-only requests as API Gateway would send them, check the answers against the
 * contract, and report Succeeded or Failed to CodeDeploy. A Failed report stops the deployment
 * and leaves traffic on the old versions.
 *
 * Nothing is written but one short-lived API key (so that one check reaches the table with a
 * valid key): issued with a 15-minute expiry, revoked when the checks end, whatever happened.
 * The key never appears in the hook's log lines.
 */
import type { APIGatewayProxyEventV2 } from "aws-lambda";

export type Target = "listCategories" | "createCategory" | "routeFallback";

export interface HookEvent {
  readonly DeploymentId: string;
  readonly LifecycleEventHookExecutionId: string;
}

export interface HookDeps {
  /** The ARN of each function's new version (the template's `<Function>.Version`). */
  readonly versions: Readonly<Record<Target, string>>;
  readonly invoke: (
    versionArn: string,
    event: APIGatewayProxyEventV2,
  ) => Promise<{ payload: string; functionError: string | undefined }>;
  readonly issueKey: (label: string, expiresAt: Date) => Promise<{ apiKey: string; keyId: string }>;
  readonly revokeKey: (keyId: string) => Promise<void>;
  readonly report: (event: HookEvent, status: "Succeeded" | "Failed") => Promise<void>;
  readonly log: (line: Readonly<Record<string, unknown>>) => void;
  readonly now: () => number;
}

export interface CheckOutcome {
  readonly check: string;
  readonly ok: boolean;
  readonly detail: string;
}

interface Answer {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

interface Probe {
  readonly check: string;
  readonly target: Target;
  readonly method: string;
  readonly path: string;
  readonly withKey: boolean;
  readonly body?: string;
  /** Throws CheckFailed when the answer is wrong. */
  readonly verify: (answer: Answer) => void;
}

class CheckFailed extends Error {}

const keyLifetimeMs = 15 * 60 * 1000;

/** Each probe reads at most: none creates, changes or deletes anything. */
const probes: readonly Probe[] = [
  {
    check: "GET /v1/categories with a valid key answers 200 and a JSON array",
    target: "listCategories",
    method: "GET",
    path: "/v1/categories",
    withKey: true,
    verify: (answer) => {
      expectStatus(answer, 200);
      if (!Array.isArray(answer.body)) throw new CheckFailed("the body is not a JSON array");
    },
  },
  {
    check: "GET /v1/categories without a key answers 401 unauthorized",
    target: "listCategories",
    method: "GET",
    path: "/v1/categories",
    withKey: false,
    verify: (answer) => {
      expectError(answer, 401, "unauthorized");
    },
  },
  {
    // Validation comes after the key check and before any write: the table is only read.
    check: "POST /v1/categories with a valid key and no name answers 400 invalid_body",
    target: "createCategory",
    method: "POST",
    path: "/v1/categories",
    withKey: true,
    body: "{}",
    verify: (answer) => {
      expectError(answer, 400, "invalid_body");
    },
  },
  {
    check: "POST /v1/categories without a key answers 401 unauthorized",
    target: "createCategory",
    method: "POST",
    path: "/v1/categories",
    withKey: false,
    body: '{"name":"never stored"}',
    verify: (answer) => {
      expectError(answer, 401, "unauthorized");
    },
  },
  {
    check: "an unknown route answers 404 not_found",
    target: "routeFallback",
    method: "GET",
    path: "/v1/pre-traffic-check-no-such-route",
    withKey: true,
    verify: (answer) => {
      expectError(answer, 404, "not_found");
    },
  },
];

function expectStatus(answer: Answer, status: number): void {
  if (answer.statusCode !== status) {
    throw new CheckFailed(`expected ${status}, got ${answer.statusCode}`);
  }
  const type = answer.headers["content-type"] ?? "";
  if (!type.startsWith("application/json")) {
    throw new CheckFailed(`expected a JSON answer, got Content-Type "${type}"`);
  }
}

/** The contract's Error shape: exactly code, message and status (= the HTTP status). */
function expectError(answer: Answer, status: number, code: string): void {
  expectStatus(answer, status);
  const body = answer.body as Record<string, unknown> | null;
  const keys = body && typeof body === "object" ? Object.keys(body).sort().join(",") : "";
  if (keys !== "code,message,status" || body?.code !== code || body.status !== status) {
    throw new CheckFailed(
      `expected the Error shape with code ${code}, got ${JSON.stringify(body)}`,
    );
  }
}

/** An API Gateway HTTP API (payload 2.0) request, as the gateway would hand it to the alias. */
export function gatewayEvent(
  probe: Pick<Probe, "method" | "path" | "body">,
  apiKey: string | undefined,
  requestId: string,
  now: number,
): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {
    host: "pre-traffic-check.invalid",
    "user-agent": "petstore-pre-traffic-hook",
    ...(apiKey !== undefined && { authorization: `Bearer ${apiKey}` }),
    ...(probe.body !== undefined && { "content-type": "application/json" }),
  };
  const routeKey = probe.path === "/v1/categories" ? `${probe.method} ${probe.path}` : "$default";
  return {
    version: "2.0",
    routeKey,
    rawPath: probe.path,
    rawQueryString: "",
    headers,
    requestContext: {
      accountId: "pre-traffic-hook",
      apiId: "pre-traffic-hook",
      domainName: headers.host ?? "",
      domainPrefix: "pre-traffic-check",
      http: {
        method: probe.method,
        path: probe.path,
        protocol: "HTTP/1.1",
        sourceIp: "127.0.0.1",
        userAgent: headers["user-agent"] ?? "",
      },
      requestId,
      routeKey,
      stage: "$default",
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    ...(probe.body !== undefined && { body: probe.body }),
    isBase64Encoded: false,
  };
}

/** Runs every probe against the new versions; revokes the check key whatever happens. */
export async function runChecks(deps: HookDeps, deploymentId: string): Promise<CheckOutcome[]> {
  const expiresAt = new Date(deps.now() + keyLifetimeMs);
  const key = await deps.issueKey(`pre-traffic check ${deploymentId}`, expiresAt);
  try {
    const outcomes: CheckOutcome[] = [];
    for (const [index, probe] of probes.entries()) {
      outcomes.push(await runProbe(deps, probe, key.apiKey, `${deploymentId}-${index}`));
    }
    return outcomes;
  } finally {
    await deps.revokeKey(key.keyId);
  }
}

async function runProbe(
  deps: HookDeps,
  probe: Probe,
  apiKey: string,
  requestId: string,
): Promise<CheckOutcome> {
  const version = deps.versions[probe.target];
  const event = gatewayEvent(probe, probe.withKey ? apiKey : undefined, requestId, deps.now());
  try {
    const { payload, functionError } = await deps.invoke(version, event);
    if (functionError !== undefined) {
      throw new CheckFailed(`the function failed (${functionError}): ${payload.slice(0, 300)}`);
    }
    const result = JSON.parse(payload) as { statusCode?: number; headers?: object; body?: string };
    const headers = Object.fromEntries(
      Object.entries(result.headers ?? {}).map(([name, value]) => [
        name.toLowerCase(),
        String(value),
      ]),
    );
    const body: unknown = result.body === undefined ? undefined : JSON.parse(result.body);
    probe.verify({ statusCode: result.statusCode ?? 0, headers, body });
    return { check: probe.check, ok: true, detail: `${version}: ${result.statusCode ?? 0}` };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { check: probe.check, ok: false, detail: `${version}: ${why}` };
  }
}

/** The Lambda handler's work: check, log each outcome, report to CodeDeploy. */
export async function preTrafficHook(
  event: HookEvent,
  deps: HookDeps,
): Promise<{ status: "Succeeded" | "Failed" }> {
  let outcomes: CheckOutcome[];
  try {
    outcomes = await runChecks(deps, event.DeploymentId);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    outcomes = [{ check: "issue and revoke a check key", ok: false, detail }];
  }
  for (const outcome of outcomes) {
    deps.log({
      level: outcome.ok ? "INFO" : "ERROR",
      deploymentId: event.DeploymentId,
      ...outcome,
    });
  }
  const status = outcomes.every((outcome) => outcome.ok) ? "Succeeded" : "Failed";
  await deps.report(event, status);
  deps.log({ level: "INFO", deploymentId: event.DeploymentId, reported: status });
  return { status };
}
