/**
 * What the generic parts take of a resource's model (lib/category.ts is today's only one): the
 * store and its id counter and withdrawals (lib/repositories/categories.ts), the list cache
 * (lib/categoryList/) and the idempotent creator (lib/idempotency/creator.ts). A resource is
 * declared by its model; its table keys follow from its name (lib/table/schema.ts).
 */

/** What every stored resource is: the id its counter handed out, and its fields' values. */
export type Identified = { readonly id: number } & Readonly<
  Record<string, string | number | undefined>
>;

export interface Resource<New, Stored extends Identified> {
  /** Lower-case letters ("category"): names its partition, its counter and its withdrawals. */
  readonly name: string;
  /** Its fields in the model's order: what is stored, listed and answered besides `id`. */
  readonly fieldNames: readonly string[];
  /** What is stored and answered for `input` under `id`: its fields present, in model order. */
  of(id: number, input: New): Stored;
}
