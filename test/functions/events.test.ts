import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { pathMatches } from "../../lib/routes.ts";
import { sampleApiKey } from "../../local/functionEnv.ts";
import { routesOf } from "../../local/template.ts";
import { gatewayEvent } from "../../lib/http/gatewayEvent.ts";
import { eventsDir, expectOneLogLine, loadEvent, useHarness } from "./harness.ts";

const eventFiles = readdirSync(eventsDir)
  .filter((name) => name.endsWith(".json"))
  .sort();
const readme = readFileSync(resolve(eventsDir, "README.md"), "utf8");
/** The README's table: | `event.json` | `function` | status | ... */
const documented = [...readme.matchAll(/^\| `([\w-]+\.json)` *\| `(\w+)` *\| (\d{3}) /gm)].map(
  ([, file = "", functionName = "", status = ""]) => ({
    file,
    functionName,
    status: Number(status),
  }),
);
const templateRoutes = routesOf();

function isTextMediaType(contentType: string | undefined): boolean {
  const essence = contentType?.split(";", 1)[0]?.trim().toLowerCase() ?? "";
  return essence.startsWith("text/") || /^application\/(?:[\w.+-]+\+)?json$/.test(essence);
}

describe("every sample event is an API Gateway HTTP API payload 2.0 event", () => {
  it("has the events the README promises, and no others", () => {
    expect(eventFiles.length).toBeGreaterThanOrEqual(16);
    expect(documented.map((row) => row.file).sort()).toEqual(eventFiles);
  });

  it.each(eventFiles)("%s is consistent with itself and with the template", (name) => {
    const event = loadEvent(name);
    const { requestContext: context, headers } = event;
    expect(event.version).toBe("2.0");
    expect(context.routeKey).toBe(event.routeKey);
    expect(context.stage).toBe("$default");
    expect(context.http.path).toBe(event.rawPath);
    expect(typeof event.rawQueryString).toBe("string");
    expect(Object.keys(headers).every((key) => key === key.toLowerCase())).toBe(true);
    expect(headers.host).toBe(context.domainName);
    expect(context.domainPrefix).toBe(context.domainName.split(".")[0]);
    expect(headers["user-agent"]).toBe(context.http.userAgent);
    expect(headers["x-forwarded-for"]).toBe(context.http.sourceIp);
    expect(headers["x-forwarded-proto"]).toBe("https");
    expect(headers["x-forwarded-port"]).toBe("443");
    expect(context.accountId).toMatch(/^\d{12}$/);
    expect(context.time).toMatch(/^\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/);
    expect(Number.isInteger(context.timeEpoch)).toBe(true);
    expect(typeof event.isBase64Encoded).toBe("boolean");

    if (event.body === undefined) {
      expect(headers).not.toHaveProperty("content-length");
      expect(event.isBase64Encoded).toBe(false);
    } else {
      const bytes = event.isBase64Encoded
        ? Buffer.from(event.body, "base64")
        : Buffer.from(event.body, "utf8");
      expect(headers["content-length"]).toBe(String(bytes.length));
      // API Gateway sends a body as text only when its Content-Type is a text type;
      // create-base64.json shows a JSON body that arrives base64-encoded all the same.
      if (name !== "create-base64.json") {
        expect(event.isBase64Encoded).toBe(!isTextMediaType(headers["content-type"]));
      }
    }

    if (headers.authorization !== undefined && name !== "list-bad-key.json") {
      expect(headers.authorization).toBe(`Bearer ${sampleApiKey}`);
    }

    if (event.routeKey === "$default") {
      expect([...templateRoutes.keys()]).not.toContain(`${context.http.method} ${event.rawPath}`);
    } else {
      expect(templateRoutes.has(event.routeKey)).toBe(true);
      const [method, pattern = ""] = event.routeKey.split(" ");
      expect(context.http.method).toBe(method);
      expect(pathMatches(pattern, event.rawPath)).toBe(true);
    }
    // Query and path parameters as API Gateway derives them from the request (lib/http/).
    const derived = gatewayEvent({
      method: context.http.method,
      rawPath: event.rawPath,
      rawQueryString: event.rawQueryString,
      headers: {},
      routeKey: event.routeKey,
      requestId: context.requestId,
      timeEpoch: context.timeEpoch,
    });
    expect(event.pathParameters).toEqual(derived.pathParameters);
    expect(event.queryStringParameters).toEqual(derived.queryStringParameters);
  });
});

describe("every sample event gets the status the README documents from the function it names", () => {
  const harness = useHarness();
  it.each(documented)("$file → $functionName → $status", async ({ file, functionName, status }) => {
    const event = loadEvent(file);
    expect(templateRoutes.get(event.routeKey)?.name).toBe(functionName);
    const handler = await harness.handler(functionName);
    const invocation = await harness.invoke(handler, event, functionName);
    expect(invocation.response.statusCode).toBe(status);
    expectOneLogLine(invocation, event);
  });
});
