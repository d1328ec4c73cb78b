/**
 * A resource that exists only in the tests: tags, a label and an optional colour. It proves that
 * a resource is a declaration (lib/resource.ts): its store, list cache and idempotent creator are
 * the generic ones, its table keys follow from its name (lib/table/schema.ts), and nothing in
 * lib/ names it. docs/architecture.md ("Adding a resource") lists the files it took.
 */
import type { Resource } from "../../lib/resource.ts";

// Type aliases, not interfaces: a stored resource is a record of its fields' values.
export type NewTag = { readonly label: string; readonly colour?: string | undefined };
export type Tag = { readonly id: number } & NewTag;

const tagFields = ["label", "colour"] as const;

export const tagResource: Resource<NewTag, Tag> = {
  name: "tag",
  fieldNames: tagFields,
  of: (id, input) => ({
    id,
    label: input.label,
    ...(input.colour !== undefined && { colour: input.colour }),
  }),
};
