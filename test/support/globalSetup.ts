import type { TestProject } from "vitest/node";
import { startEmbeddedDynamo, storeEngineOf } from "../../local/embeddedDynamo.ts";
import { requireJava } from "../../local/dynamodbLocal.ts";
import { ensureDynamodbLocalJar } from "../../local/dynamodbLocalJar.ts";
import { buildFunctions } from "../../scripts/build.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /**
     * The run's one DynamoDB Local, when PETSTORE_STORE=dynamodb-local: every file's
     * useEmbeddedDynamo() makes its tables there (test/support/dynamo.ts) instead of starting a
     * JVM of its own. Unset on dynalite, which starts in the test's own process in milliseconds.
     */
    sharedStoreEndpoint: string | undefined;
  }
}

export default async function setup(
  project: TestProject,
): Promise<(() => Promise<void>) | undefined> {
  // On DynamoDB Local, fail once with the missing tool's name rather than in every test file;
  // fetching the jar here also keeps the workers from fetching it side by side.
  const engine = storeEngineOf();
  if (engine === "dynamodb-local") {
    requireJava();
    await ensureDynamodbLocalJar();
  }
  // The build and the store's JVM start side by side: both take seconds.
  const [, shared] = await Promise.all([
    buildFunctions(),
    engine === "dynamodb-local" ? startEmbeddedDynamo({ engine }) : undefined,
  ]);
  project.provide("sharedStoreEndpoint", shared?.endpoint);
  return shared && (() => shared.close());
}
