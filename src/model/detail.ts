import type { BaseField, ScanDetail, TableRow } from "./fields.js";
import type { EntryFields } from "./types.js";

/**
 * How much of each entry a load reads (LoadOptions.detail): "full" (the default), the byte scanner's lighter loads
 * ("skeleton", "spend", "tables", "preview"), or "check" (validate's). See LoadOptions.detail for each.
 */
export type Detail = ScanDetail | "check";

/**
 * The table rows a load of detail D reads: the same choice as fields.ts's inDetail (and CHECK_TABLES for "check"),
 * made on the rows' flags as written.
 */
type RowsIn<D extends Detail> = D extends "full"
  ? TableRow
  : D extends "preview"
    ? Exclude<TableRow, { spend: true }> | Extract<TableRow, { skeleton: true }>
    : D extends "spend" | "tables"
      ? Extract<TableRow, { skeleton: true } | { spend: true }>
      : D extends "check"
        ? Extract<TableRow, { skeleton: true } | { check: true }>
        : Extract<TableRow, { skeleton: true }>;

/**
 * The EntryFields a load of detail D fills: the base fields, the fields of its rows, and for the tables detail a
 * message's body facts (the loader reads them for that detail only). A field is in when some entry type's row fills
 * it: `provider` is in the skeleton (model_change reads it) although an assistant message's is a spend row.
 */
export type DetailField<D extends Detail> = BaseField | RowsIn<D>["field"] | (D extends "tables" ? "body" : never);

/** Marks what a record was loaded with, so that a record of a lighter load is not taken where a fuller one is needed. */
declare const LOADED: unique symbol;

/** A record with the fields F (and only those: another field of EntryFields does not exist on it). */
type RecWith<F extends keyof EntryFields> = Pick<EntryFields, F> & { readonly [LOADED]?: { readonly [K in F]: true } };

/** Each detail's record. An interface, so that Rec<D> for a generic D reads only what every detail loads. */
interface DetailRecs {
  full: RecWith<DetailField<"full">>;
  skeleton: RecWith<DetailField<"skeleton">>;
  spend: RecWith<DetailField<"spend">>;
  tables: RecWith<DetailField<"tables">>;
  preview: RecWith<DetailField<"preview">>;
  check: RecWith<DetailField<"check">>;
}

/**
 * An index record as a load of detail D makes it: only the fields that detail fills exist on it, so code that reads
 * one a lighter load leaves out does not compile. A record of a fuller load may be given where a lighter one's is
 * asked for (every detail's fields include the skeleton's: Rec<"skeleton"> takes the record of any load).
 */
export type Rec<D extends Detail = "full"> = DetailRecs[D];

/**
 * The record of any load: only the fields every detail fills (the skeleton's). Code that reads more names the
 * detail it needs (Rec<"full">, Rec<"spend" | "full">, …) or is generic over it.
 */
export type EntryRec = Rec<Detail>;

/** The details whose records have the fields F. */
export type DetailsWith<F extends keyof EntryFields> = { [D in Detail]: [F] extends [DetailField<D>] ? D : never }[Detail];

/** The record of any load that fills the fields F: what code that reads F of a record takes. */
export type RecHaving<F extends keyof EntryFields> = Rec<DetailsWith<F>>;
