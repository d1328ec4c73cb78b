/**
 * The two AWS API calls the pre-traffic hook makes besides the table: Lambda Invoke (of a
 * qualified version) and CodeDeploy PutLifecycleEventHookExecutionStatus. Signed by `aws4`, as
 * lib/dynamodb.ts signs the table's, and sent with the runtime's fetch: the AWS SDK clients
 * would cost tens of ms of import each for two requests of a few fields.
 *
 * Each endpoint can be replaced (LAMBDA_ENDPOINT, CODEDEPLOY_ENDPOINT) so that tests run the
 * hook against local stand-ins; in AWS the regional endpoints are used.
 */
import aws4 from "aws4";
import type { CredentialSource } from "./dynamodb.ts";

export interface AwsCallOptions {
  readonly region: string;
  readonly credentials: CredentialSource;
  readonly lambdaEndpoint?: string | undefined;
  readonly codeDeployEndpoint?: string | undefined;
  readonly timeoutMs?: number;
}

export interface Invocation {
  /** The function's return value, as JSON text. */
  readonly payload: string;
  /** Set when the function failed (X-Amz-Function-Error: Unhandled, a timeout, ...). */
  readonly functionError: string | undefined;
}

export type HookStatus = "Succeeded" | "Failed";

export class AwsCallError extends Error {
  override readonly name = "AwsCallError";
}

export class AwsCalls {
  readonly #options: AwsCallOptions;

  constructor(options: AwsCallOptions) {
    this.#options = options;
  }

  /** Invokes a version ARN synchronously with an event; the payload is its answer. */
  async invoke(functionArn: string, event: unknown): Promise<Invocation> {
    const { region, lambdaEndpoint } = this.#options;
    const path = `/2015-03-31/functions/${encodeURIComponent(functionArn)}/invocations`;
    const response = await this.#send({
      service: "lambda",
      endpoint: lambdaEndpoint ?? `https://lambda.${region}.amazonaws.com`,
      path,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(event),
    });
    return {
      payload: response.text,
      functionError: response.headers.get("x-amz-function-error") ?? undefined,
    };
  }

  /** Tells CodeDeploy the outcome of the lifecycle hook it invoked us for. */
  async reportHookStatus(
    deploymentId: string,
    lifecycleEventHookExecutionId: string,
    status: HookStatus,
  ): Promise<void> {
    const { region, codeDeployEndpoint } = this.#options;
    await this.#send({
      service: "codedeploy",
      endpoint: codeDeployEndpoint ?? `https://codedeploy.${region}.amazonaws.com`,
      path: "/",
      headers: {
        "content-type": "application/x-amz-json-1.1",
        "x-amz-target": "CodeDeploy_20141006.PutLifecycleEventHookExecutionStatus",
      },
      body: JSON.stringify({ deploymentId, lifecycleEventHookExecutionId, status }),
    });
  }

  async #send(request: {
    service: string;
    endpoint: string;
    path: string;
    headers: Record<string, string>;
    body: string;
  }): Promise<{ headers: Headers; text: string }> {
    const url = new URL(request.path, request.endpoint);
    const signed = aws4.sign(
      {
        host: url.host,
        path: `${url.pathname}${url.search}`,
        method: "POST",
        service: request.service,
        region: this.#options.region,
        headers: request.headers,
        body: request.body,
      },
      await this.#options.credentials(),
    );
    const response = await fetch(url, {
      method: "POST",
      headers: signed.headers as Record<string, string>,
      body: request.body,
      signal: AbortSignal.timeout(this.#options.timeoutMs ?? 30_000),
    });
    const text = await response.text();
    if (!response.ok) {
      throw new AwsCallError(
        `${request.service} ${url.pathname} answered ${response.status}: ${text.slice(0, 300)}`,
      );
    }
    return { headers: response.headers, text };
  }
}
