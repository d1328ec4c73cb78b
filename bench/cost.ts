/**
 * What a million requests cost: Lambda compute and requests, the HTTP API's request charge and
 * DynamoDB's on-demand request units. US dollars, eu-west-1, on-demand, no free tier. NOT read
 * from the live pages for this commit (no internet access here): the published figures as the
 * author knew them in 2025, from
 *   https://aws.amazon.com/lambda/pricing/ (arm64 $0.0000133334 per GB-s, first 7.5 billion GB-s
 *     a month; $0.20 per 1M requests),
 *   https://aws.amazon.com/api-gateway/pricing/ (HTTP API $1.00 per 1M requests, first 300M a
 *     month; the us-east-1 figure, some regions list a little more),
 *   https://aws.amazon.com/dynamodb/pricing/on-demand/ ($0.7068 per 1M write and $0.1415 per 1M
 *     read request units, eu-west-1 after the November 2024 halving of on-demand prices).
 * Check them there before deciding on money; the sizing depends on their ratios, which change far
 * less often than the figures.
 */
export const prices = {
  lambdaGbSecond: 0.0000133334,
  lambdaRequest: 0.2 / 1e6,
  httpApiRequest: 1.0 / 1e6,
  dynamoReadUnit: 0.1415 / 1e6,
  dynamoWriteUnit: 0.7068 / 1e6,
} as const;

export type Units = { readonly readUnits: number; readonly writeUnits: number };
export type Cost = Readonly<Record<"lambda" | "api" | "dynamo" | "total", number>>;

/** Each request billed for its own duration rounded up to the ms (Lambda's rule since 2020). */
export function costPerMillion(memoryMb: number, ms: readonly number[], units: Units): Cost {
  const billedMs = ms.reduce((sum, each) => sum + Math.ceil(each), 0) / ms.length;
  const gbSeconds = (memoryMb / 1024) * (billedMs / 1000);
  const lambda = 1e6 * (gbSeconds * prices.lambdaGbSecond + prices.lambdaRequest);
  const api = 1e6 * prices.httpApiRequest;
  const { readUnits, writeUnits } = units;
  const dynamo = 1e6 * (readUnits * prices.dynamoReadUnit + writeUnits * prices.dynamoWriteUnit);
  const round = (dollars: number): number => Math.round(dollars * 1000) / 1000;
  const total = lambda + api + dynamo;
  return { lambda: round(lambda), api: round(api), dynamo: round(dynamo), total: round(total) };
}
