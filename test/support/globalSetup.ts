import { storeEngineOf } from "../../local/embeddedDynamo.ts";
import { requireJava } from "../../local/dynamodbLocal.ts";
import { ensureDynamodbLocalJar } from "../../local/dynamodbLocalJar.ts";
import { buildFunctions } from "../../scripts/build.ts";

export default async function setup(): Promise<void> {
  // On DynamoDB Local, fail once with the missing tool's name rather than in every test file;
  // fetching the jar here also keeps the workers from fetching it side by side.
  if (storeEngineOf() === "dynamodb-local") {
    requireJava();
    await ensureDynamodbLocalJar();
  }
  await buildFunctions();
}
