/**
 * The typical stack: what most teams ship for these two operations. @middy/core with
 * @middy/http-json-body-parser and the AWS SDK v3 document client (its marshalling and
 * paginator), built at module load as their docs show, running handlers.ts. Never shipped.
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { GetCommandInput, PutCommandInput, QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import type { UpdateCommandInput } from "@aws-sdk/lib-dynamodb";
import { DynamoDBDocumentClient, paginateQuery } from "@aws-sdk/lib-dynamodb";
import { GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import middy from "@middy/core";
import httpJsonBodyParser from "@middy/http-json-body-parser";
import type { Event, Input, Item, NewCategory, Result } from "./handlers.ts";
import { comparisonHandlers } from "./handlers.ts";

const endpoint = process.env.DYNAMODB_ENDPOINT;
const client = DynamoDBDocumentClient.from(new DynamoDBClient(endpoint ? { endpoint } : {}));
const commands = {
  GetItem: (input: Input) => client.send(new GetCommand(input as GetCommandInput)),
  UpdateItem: (input: Input) => client.send(new UpdateCommand(input as UpdateCommandInput)),
  PutItem: (input: Input) => client.send(new PutCommand(input as PutCommandInput)),
};
async function query(input: Input): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of paginateQuery({ client }, input as QueryCommandInput))
    items.push(...((page.Items ?? []) as Item[]));
  return items;
}

const handlers = comparisonHandlers(
  { send: (operation, input) => commands[operation](input), query },
  process.env.TABLE_NAME ?? "",
);
export const listCategories = middy<Event, Result>().handler((event) => handlers.list(event));
export const createCategory = middy<Event, Result>()
  .use(httpJsonBodyParser())
  .handler((event) => handlers.create(event, event.body as unknown as NewCategory));
