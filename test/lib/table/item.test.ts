/**
 * Marshalling (lib/table/item.ts): strings as S, numbers as N; a field left undefined is left out
 * of the item, never stored as null.
 */
import { describe, expect, it } from "vitest";
import { keyItem, num, text, toAttribute, toItem } from "../../../lib/table/item.ts";

describe("a number is stored as N (its decimal text), a string as S", () => {
  it("marshals each scalar by its type, numbers in DynamoDB's string form", () => {
    expect(toAttribute(12.5)).toEqual({ N: "12.5" });
    expect(toAttribute(0)).toEqual({ N: "0" });
    expect(toAttribute("12")).toEqual({ S: "12" });
    expect(toAttribute("")).toEqual({ S: "" });
  });
});

describe("an undefined field is left out of the item (optional fields stay optional)", () => {
  it("stores only the defined fields, keeping falsy values such as 0 and ''", () => {
    expect(toItem({ a: 0, b: "", c: undefined })).toEqual({ a: { N: "0" }, b: { S: "" } });
    expect(Object.keys(toItem({ c: undefined }))).toEqual([]);
  });
});

describe("keys are the string attributes pk and sk", () => {
  it("marshals a key as two S attributes", () => {
    expect(keyItem({ pk: "P", sk: "s" })).toEqual({ pk: { S: "P" }, sk: { S: "s" } });
  });
});

describe("an attribute the item lacks, or of the other type, reads as undefined", () => {
  it("reads S as text and N as a number, and nothing across types", () => {
    const item = { s: { S: "7" }, n: { N: "7" }, z: { N: "0" } };
    expect(text(item, "s")).toBe("7");
    expect(text(item, "n")).toBeUndefined();
    expect(num(item, "n")).toBe(7);
    expect(num(item, "z")).toBe(0);
    expect(num(item, "s")).toBeUndefined();
    expect(num(item, "absent")).toBeUndefined();
  });
});
