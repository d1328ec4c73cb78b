/** What the pre-traffic hook is given (CodeDeploy's event, its parts) and what it finds. */
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import type { RouteFunctions } from "./targets.ts";

export type HookStatus = "Succeeded" | "Failed";

export interface HookEvent {
  readonly DeploymentId: string;
  readonly LifecycleEventHookExecutionId: string;
}

export interface HookDeps {
  /** Which function serves each route (the template's, injected at build time). */
  readonly routes: RouteFunctions;
  /** The ARN of each function's new version, by function name (the template's `<Function>.Version`). */
  readonly versions: Readonly<Record<string, string>>;
  readonly invoke: (
    versionArn: string,
    event: APIGatewayProxyEventV2,
  ) => Promise<{ payload: string; functionError: string | undefined }>;
  readonly issueKey: (label: string, expiresAt: Date) => Promise<{ apiKey: string; keyId: string }>;
  readonly revokeKey: (keyId: string) => Promise<void>;
  readonly report: (event: HookEvent, status: HookStatus) => Promise<void>;
  readonly log: (line: Readonly<Record<string, unknown>>) => void;
  readonly now: () => number;
}

export interface CheckOutcome {
  readonly check: string;
  readonly ok: boolean;
  readonly detail: string;
}
