/**
 * Stand-ins for what the pre-traffic hook reaches when CodeDeploy runs it: Lambda's Invoke API
 * (serving the function versions it is given, as the real built bundles) and CodeDeploy's
 * lifecycle-status API (keeping what is reported); and a loader for the built bundles.
 */
import { createServer } from "node:http";
import type { IncomingMessage, Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Handler } from "aws-lambda";
import { lambdaContext } from "../../local/apiGateway.ts";
import { functionsOf } from "../../local/template.ts";

const specs = functionsOf();

export const versionArn = (name: string, version: number): string =>
  `arn:aws:lambda:local:000000000000:function:petstore-test-${name}:${version}`;

export interface Reported {
  readonly target: string;
  readonly body: Record<string, string>;
}

let instance = 0;

/** A fresh instance of a built function's handler, loaded with `env` added to the process's. */
export async function loadBundle(name: string, env: Record<string, string> = {}): Promise<Handler> {
  const spec = specs.find((candidate) => candidate.name === name);
  if (!spec) throw new Error(`no function ${name} in the template`);
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    const url = `${pathToFileURL(resolve(spec.codeDir, spec.handlerFile)).href}?hook-test=${++instance}`;
    const module = (await import(url)) as Record<string, Handler>;
    const handler = module[spec.handlerExport];
    if (!handler) throw new Error(`${name} exports no ${spec.handlerExport}: run npm run build`);
    return handler;
  } finally {
    process.env = saved;
  }
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function listen(server: Server): Promise<string> {
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Lambda's Invoke API for the versions registered in `versions`; a throw is a function error. */
export function lambdaStandIn(versions: ReadonlyMap<string, Handler>, invoked: string[]): Server {
  return createServer((request, response) => {
    void (async () => {
      const match = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(request.url ?? "");
      const arn = decodeURIComponent(match?.[1] ?? "");
      const handler = versions.get(arn);
      const event: unknown = JSON.parse(await bodyOf(request));
      if (!handler || request.method !== "POST" || !request.headers.authorization) {
        response.writeHead(404, { "content-type": "application/json" }).end('{"Type":"User"}');
        return;
      }
      invoked.push(arn);
      try {
        const result: unknown = await handler(
          event,
          lambdaContext(arn.split(":")[6] ?? "", 10),
          () => undefined,
        );
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify(result));
      } catch (error) {
        response.writeHead(200, { "x-amz-function-error": "Unhandled" });
        response.end(JSON.stringify({ errorMessage: String(error) }));
      }
    })();
  });
}

/** CodeDeploy's API: each lifecycle hook status reported is kept in `reported`. */
export function codeDeployStandIn(reported: Reported[]): Server {
  return createServer((request, response) => {
    void bodyOf(request).then((body) => {
      reported.push({
        target: String(request.headers["x-amz-target"]),
        body: JSON.parse(body) as Record<string, string>,
      });
      response.writeHead(200, { "content-type": "application/x-amz-json-1.1" }).end("{}");
    });
  });
}
