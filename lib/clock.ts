/**
 * The service's one notion of time: epoch milliseconds. A container creates one clock (lib/deps.ts)
 * and hands the same one to the DynamoDB client, the repositories, the idempotency orchestration,
 * authentication and the middlewares, so deadlines, TTLs and log times never disagree and a test
 * can move time for all of them at once.
 */
export type Clock = () => number;

export const systemClock: Clock = Date.now;
