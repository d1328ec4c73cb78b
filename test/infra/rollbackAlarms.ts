/**
 * The alarms a function's deployment rolls back on, as infra/template.yaml writes them: those
 * every deployment watches (Globals), then the function's own (SAM appends them).
 */
import type { Json } from "../support/cloudFormation.ts";
import { asArray, isObject } from "../support/cloudFormation.ts";
import { template } from "../support/templateResources.ts";

const globalPreference = template.Globals.Function.DeploymentPreference;

export const stackAlarms: Json[] = asArray(
  isObject(globalPreference) ? globalPreference.Alarms : [],
);

export function ownAlarms(logicalId: string): Json[] {
  const own = template.Resources[logicalId]?.Properties?.DeploymentPreference;
  return asArray(isObject(own) ? own.Alarms : []);
}

export const rollbackAlarms = (logicalId: string): Json[] => [
  ...stackAlarms,
  ...ownAlarms(logicalId),
];
