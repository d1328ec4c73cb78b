/**
 * `npm run dynamodb-local:fetch`: downloads AWS's DynamoDB Local jar into .cache/dynamodb-local/
 * (see local/dynamodbLocalJar.ts), verifying its pinned checksum. Idempotent; starting the store
 * with PETSTORE_STORE=dynamodb-local or `npm start -- --dynamodb-local` fetches it too.
 */
import { relative } from "node:path";
import { findJava } from "../local/dynamodbLocal.ts";
import { ensureDynamodbLocalJar } from "../local/dynamodbLocalJar.ts";
import { SetupError } from "../local/setupError.ts";
import { projectRoot } from "../local/template.ts";

try {
  const dir = await ensureDynamodbLocalJar();
  process.stdout.write(`DynamoDB Local is in ${relative(projectRoot, dir)}\n`);
  if (!findJava()) {
    process.stderr.write("it needs Java 17 or later: apt-get install -y openjdk-17-jre-headless\n");
  }
} catch (error) {
  if (!(error instanceof SetupError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exitCode = 1;
}
