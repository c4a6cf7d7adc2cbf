// The generic layout for outputs with their own output_schema: top-level fields as key/value pairs, arrays of objects as tables.
import { isRecord } from "./common";

export type Scalar = string | number | boolean | null;

export interface GenericTable {
  /** The field the array came from ("items" for a top-level array). */
  key: string;
  /** Union of the objects' keys, in first-seen order. */
  columns: string[];
  rows: Scalar[][];
}

export interface GenericModel {
  /** Top-level scalars as they are; nested objects and arrays of scalars as JSON text. */
  fields: { key: string; value: Scalar }[];
  tables: GenericTable[];
}

/**
 * Lays out any JSON value faithfully: nothing is dropped, and a value that is not a scalar
 * and not an array of objects is printed as compact JSON so it can be read back exactly.
 */
export function toGenericModel(value: unknown): GenericModel {
  const model: GenericModel = { fields: [], tables: [] };
  const top = isObjectArray(value) ? toTable("items", value) : null;
  if (top && top.columns.length > 0) {
    model.tables.push(top);
  } else if (isRecord(value)) {
    for (const [key, v] of Object.entries(value)) {
      const table = isObjectArray(v) ? toTable(key, v) : null;
      // A list of empty objects has no columns to show as a table; keep it as JSON text.
      if (table && table.columns.length > 0) model.tables.push(table);
      else model.fields.push({ key, value: toScalar(v) });
    }
  } else {
    model.fields.push({ key: "value", value: toScalar(value) });
  }
  return model;
}

function toTable(key: string, items: Record<string, unknown>[]): GenericTable {
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    for (const k of Object.keys(item)) {
      if (!seen.has(k)) {
        seen.add(k);
        columns.push(k);
      }
    }
  }
  // A key missing from one object is an empty cell (null), not the text "undefined".
  const rows = items.map((item) => columns.map((c) => (c in item ? toScalar(item[c]) : null)));
  return { key, columns, rows };
}

function isObjectArray(v: unknown): v is Record<string, unknown>[] {
  return Array.isArray(v) && v.length > 0 && v.every(isRecord);
}

/** A cell value: scalars stay typed; everything else becomes compact JSON text. */
function toScalar(v: unknown): Scalar {
  if (v === null || v === undefined) return null;
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "number") return Number.isFinite(v) ? v : String(v);
  return JSON.stringify(v) ?? String(v);
}

/** A scalar as display text: null is an empty cell. */
export function scalarText(v: Scalar): string {
  return v === null ? "" : String(v);
}
