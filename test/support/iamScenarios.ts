/**
 * Representative requests for every route, for the IAM cross-check's recording
 * (iamRecording.ts): success, each kind of refusal, idempotent retries.
 */
import { randomBytes } from "node:crypto";

export interface Scenario {
  readonly route: string;
  readonly method: string;
  readonly path: string;
  readonly key?: "valid" | "unknown";
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** Checked in the normal round only, to show the scenario does what it says. */
  readonly expect?: number;
}

/** Representative requests for every route: success, each kind of refusal, retries. */
export function scenarios(round: string): Scenario[] {
  const idempotencyKey = `iam-check-${round}-${randomBytes(4).toString("hex")}`;
  const json = { "content-type": "application/json" };
  const list = { route: "GET /v1/categories", method: "GET", path: "/v1/categories" };
  const create = { route: "POST /v1/categories", method: "POST", path: "/v1/categories" };
  return [
    { ...list, key: "valid", expect: 200 },
    { ...list, expect: 401 },
    { ...list, key: "unknown", expect: 401 },
    { ...create, key: "valid", headers: json, body: '{"name":"iam check"}', expect: 201 },
    {
      ...create,
      key: "valid",
      body: '{"name":"iam check","description":"no content type: read as JSON"}',
      expect: 201,
    },
    {
      ...create,
      key: "valid",
      headers: { ...json, "idempotency-key": idempotencyKey },
      body: '{"name":"iam idempotent"}',
    },
    {
      ...create,
      key: "valid",
      headers: { ...json, "idempotency-key": idempotencyKey },
      body: '{"name":"iam idempotent"}',
    },
    {
      ...create,
      key: "valid",
      headers: { ...json, "idempotency-key": idempotencyKey },
      body: '{"name":"iam idempotent, other body"}',
    },
    { ...create, key: "valid", headers: json, body: "{}", expect: 400 },
    { ...create, key: "valid", headers: json, body: '{"name":', expect: 400 },
    { ...create, key: "valid", headers: { "content-type": "text/plain" }, body: "x", expect: 415 },
    { ...create, headers: json, body: '{"name":"no key"}', expect: 401 },
    { ...create, key: "unknown", headers: json, body: '{"name":"bad key"}', expect: 401 },
    { ...list, key: "valid", expect: 200 },
    { route: "GET /v1/pets/{petId}", method: "GET", path: "/v1/pets/7", key: "valid", expect: 501 },
    { route: "GET /v1/pets/{petId}", method: "GET", path: "/v1/pets/7", expect: 401 },
    {
      route: "GET /v1/store/orders",
      method: "GET",
      path: "/v1/store/orders",
      key: "valid",
      expect: 501,
    },
    {
      route: "GET /v1/store/orders",
      method: "GET",
      path: "/v1/store/orders",
      key: "unknown",
      expect: 401,
    },
    { route: "$default", method: "GET", path: "/v1/no-such-route", key: "valid", expect: 404 },
    { route: "$default", method: "DELETE", path: "/v1/categories", key: "valid", expect: 405 },
  ];
}
