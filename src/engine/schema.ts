// JSON Schema for output schemas: compile and validate with ajv, infer a schema from a sample (JSON or table), the evaluation schema.

import type { ErrorObject } from "ajv";
import type AjvCore from "ajv/dist/core";
import { canonicalJson } from "../lib/canonical-json";

export type JsonSchema = Record<string, unknown>;

/** The schema itself is unusable: `path` is a JSON pointer into the schema when the fault has a place. */
export class SchemaError extends Error {
  constructor(
    message: string,
    readonly path?: string,
  ) {
    super(message);
    this.name = "SchemaError";
  }
}

export interface CompiledSchema {
  /** null when `value` is valid, else a readable list of what is wrong, each with its instance path. */
  validate: (value: unknown) => string | null;
}

// ---------------------------------------------------------------------------
// Compiling
//
// Schemas without "$schema" are read as draft 2020-12 (what OpenAI-style structured
// output documents); if they only make sense as draft-07 (tuple "items": [...]) they
// are read as draft-07. "$schema" may name 2020-12, 2019-09 or draft-07; draft-04/06
// are refused because ajv 8 dropped them. strict: false so that unknown keywords
// ("title"-like annotations, vendor extensions, unknown formats) are ignored rather
// than refused, while the meta-schema still rejects wrong types and structures.

type Draft = "2020-12" | "2019-09" | "draft-07";
const instances = new Map<Draft, AjvCore>();

function ajvFor(draft: Draft): AjvCore {
  let ajv = instances.get(draft);
  if (!ajv) {
    const options = {
      strict: false,
      allErrors: true, // the repair prompt and users want every problem, not the first
      logger: false as const,
      // multipleOf: 0.01 must accept 0.07 (0.07 / 0.01 is 7.000000000000001 in floating point).
      multipleOfPrecision: 9,
    };
    // Loaded on first use (a schema to check or compile): ajv is several MB that a server without custom schemas,
    // and every start, can do without.
    const Ajv = (draft === "2020-12" ? require("ajv/dist/2020") : draft === "2019-09" ? require("ajv/dist/2019") : require("ajv")) as {
      default: new (o: typeof options) => AjvCore;
    };
    ajv = new Ajv.default(options);
    (require("ajv-formats") as { default: (a: AjvCore) => void }).default(ajv);
    instances.set(draft, ajv);
  }
  return ajv;
}

function draftOf(schema: JsonSchema): Draft | null {
  const declared = schema.$schema;
  if (declared === undefined) return null;
  if (typeof declared === "string") {
    if (declared.includes("draft/2020-12")) return "2020-12";
    if (declared.includes("draft/2019-09")) return "2019-09";
    if (declared.includes("draft-07")) return "draft-07";
  }
  throw new SchemaError(`Unsupported "$schema" ${JSON.stringify(declared)}: use JSON Schema draft 2020-12, 2019-09 or draft-07.`, "/$schema");
}

const CACHE_LIMIT = 256;
// Insertion-ordered Map used as an LRU: a hit is moved to the end, the oldest is evicted.
const cache = new Map<string, CompiledSchema>();

/** Compile a JSON Schema once (cached by its content) and return its validator. Throws SchemaError. */
export function compileSchema(schema: unknown): CompiledSchema {
  if (!isPlainObject(schema)) throw new SchemaError("A JSON Schema must be a JSON object.");
  const key = canonicalJson(schema); // equal schemas share one cache entry
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const compiled = compileUncached(schema);
  cache.set(key, compiled);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  return compiled;
}

function compileUncached(schema: JsonSchema): CompiledSchema {
  const declared = draftOf(schema);
  const drafts: Draft[] = declared ? [declared] : ["2020-12", "draft-07"];
  let firstError: SchemaError | undefined;
  for (const draft of drafts) {
    const ajv = ajvFor(draft);
    if (!ajv.validateSchema(schema)) {
      firstError ??= metaSchemaError(ajv.errors ?? []);
      continue;
    }
    try {
      const fn = ajv.compile(schema);
      const validate = (value: unknown): string | null => {
        try {
          return fn(value) ? null : formatErrors(fn.errors ?? []);
        } catch {
          // Only a $ref cycle with no data in between ("a" -> "b" -> "a") gets here: stack overflow.
          return `(root) cannot be checked: ${CYCLE}`;
        }
      };
      if (validate(null)?.endsWith(CYCLE)) throw new SchemaError(`Invalid JSON Schema: ${CYCLE}`);
      return { validate };
    } catch (e) {
      if (e instanceof SchemaError) throw e;
      // ajv overflows its stack compiling some $ref cycles.
      const reason = e instanceof RangeError ? CYCLE : e instanceof Error ? e.message : String(e);
      throw new SchemaError(`Invalid JSON Schema: ${reason}`);
    } finally {
      // ajv keeps every compiled schema (and registers its $id); the compiled function
      // lives on without it, and our own cache is the bounded one.
      ajv.removeSchema(schema);
    }
  }
  throw firstError ?? new SchemaError("Invalid JSON Schema.");
}

const CYCLE = "the schema refers to itself without end.";

function metaSchemaError(errors: ErrorObject[]): SchemaError {
  const e = errors[0];
  if (!e) return new SchemaError("Invalid JSON Schema.");
  return new SchemaError(`Invalid JSON Schema at ${e.instancePath || "(root)"}: ${describeError(e)}`, e.instancePath);
}

const MAX_LISTED_ERRORS = 6;

function formatErrors(errors: ErrorObject[]): string {
  const lines = [...new Set(errors.map((e) => `${e.instancePath || "(root)"} ${describeError(e)}`))];
  const shown = lines.slice(0, MAX_LISTED_ERRORS).join("; ");
  return lines.length > MAX_LISTED_ERRORS ? `${shown}; and ${lines.length - MAX_LISTED_ERRORS} more` : shown;
}

function describeError(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "additionalProperties":
      return `must not have additional property ${JSON.stringify(p.additionalProperty)}`;
    case "enum":
      return `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "const":
      return `must be ${JSON.stringify(p.allowedValue)}`;
    default:
      return e.message ?? `fails "${e.keyword}"`;
  }
}

// ---------------------------------------------------------------------------
// The standard evaluation object (CONTRACT.md "Output", type Evaluation in ./types).

const LOCATION_SCHEMA = {
  type: "object",
  description: "Where the quote is in its document; only the fields that make sense for the format.",
  properties: {
    page: { type: "integer", minimum: 1 },
    slide: { type: "integer", minimum: 1 },
    sheet: { type: "string" },
    row: { type: "integer", minimum: 1 },
    heading: { type: "string" },
    section: { type: "string" },
  },
  additionalProperties: false,
};

export const EVALUATION_SCHEMA: JsonSchema = deepFreeze({
  $schema: "https://json-schema.org/draft/2020-12/schema",
  title: "Evaluation",
  type: "object",
  properties: {
    summary: { type: "string", minLength: 1 },
    score: { type: "number", minimum: 0, maximum: 100 },
    verdict: { type: "string", enum: ["pass", "fail", "needs_review"] },
    criteria: {
      type: "array",
      items: {
        type: "object",
        properties: {
          id: { type: "string", minLength: 1 },
          title: { type: "string", minLength: 1 },
          score: { type: "number", minimum: 0 },
          max_score: { type: "number", minimum: 0 },
          rationale: { type: "string" },
          evidence: {
            type: "array",
            items: {
              type: "object",
              properties: {
                document_id: { type: "string", minLength: 1 },
                quote: { type: "string", minLength: 1, description: "Verbatim text from the document." },
                location: LOCATION_SCHEMA,
              },
              required: ["document_id", "quote", "location"],
              additionalProperties: false,
            },
          },
        },
        required: ["id", "title", "score", "max_score", "rationale", "evidence"],
        additionalProperties: false,
      },
    },
  },
  required: ["summary", "score", "verdict", "criteria"],
  additionalProperties: false,
});

// ---------------------------------------------------------------------------
// Inference from a sample JSON value.
//
// The sample shows the shape the output must have: every key seen is required,
// extra keys are refused (additionalProperties: false), integers stay integers,
// arrays take the union of their elements' shapes (a key missing from some elements
// becomes optional), enums are never guessed from single values, and a string
// format is kept only when every string seen at that place obviously has it.

const MAX_INFER_DEPTH = 64;

interface Shape {
  types: Set<string>;
  props?: Map<string, Shape>;
  required?: Set<string>;
  items?: Shape; // undefined: only empty arrays seen (any items)
  format?: string | null; // null: strings seen without one common format
}

export function inferSchemaFromJson(sample: unknown): JsonSchema {
  return { $schema: "https://json-schema.org/draft/2020-12/schema", ...shapeToSchema(shapeOf(sample, 0)) };
}

function shapeOf(value: unknown, depth: number): Shape {
  if (depth > MAX_INFER_DEPTH) return { types: new Set() }; // absurdly deep: accept anything there
  if (value === null) return { types: new Set(["null"]) };
  if (typeof value === "boolean") return { types: new Set(["boolean"]) };
  if (typeof value === "number") return { types: new Set([Number.isInteger(value) ? "integer" : "number"]) };
  if (typeof value === "string") return { types: new Set(["string"]), format: stringFormat(value) };
  if (Array.isArray(value)) {
    let items: Shape | undefined;
    for (const el of value) items = items ? mergeShapes(items, shapeOf(el, depth + 1)) : shapeOf(el, depth + 1);
    return { types: new Set(["array"]), items };
  }
  if (typeof value === "object") {
    const props = new Map<string, Shape>();
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) props.set(k, shapeOf(v, depth + 1));
    return { types: new Set(["object"]), props, required: new Set(props.keys()) };
  }
  return { types: new Set() };
}

function mergeShapes(a: Shape, b: Shape): Shape {
  const types = new Set([...a.types, ...b.types]);
  const out: Shape = { types };
  if (a.props || b.props) {
    const props = new Map(a.props ?? []);
    for (const [k, s] of b.props ?? []) {
      const seen = props.get(k);
      props.set(k, seen ? mergeShapes(seen, s) : s);
    }
    out.props = props;
    // A key is required only if every object seen here had it.
    const both = a.required && b.required ? b.required : null;
    out.required = both ? new Set([...(a.required ?? [])].filter((k) => both.has(k))) : new Set(a.required ?? b.required ?? []);
  }
  if (a.items && b.items) out.items = mergeShapes(a.items, b.items);
  else out.items = a.items ?? b.items;
  if (a.types.has("string") && b.types.has("string")) out.format = a.format && a.format === b.format ? a.format : null;
  else out.format = a.types.has("string") ? a.format : b.format;
  return out;
}

const TYPE_ORDER = ["object", "array", "string", "number", "integer", "boolean", "null"];

function shapeToSchema(s: Shape): JsonSchema {
  const types = [...s.types].filter((t) => !(t === "integer" && s.types.has("number"))); // number covers integer
  types.sort((x, y) => TYPE_ORDER.indexOf(x) - TYPE_ORDER.indexOf(y));
  if (types.length === 0) return {};
  const out: JsonSchema = { type: types.length === 1 ? types[0] : types };
  if (s.props) {
    out.properties = Object.fromEntries([...s.props].map(([k, v]) => [k, shapeToSchema(v)]));
    out.required = [...(s.required ?? [])];
    out.additionalProperties = false;
  }
  if (s.types.has("array") && s.items) out.items = shapeToSchema(s.items);
  if (s.types.has("string") && s.format) out.format = s.format;
  return out;
}

// Only formats a person would recognise at a glance, confirmed by ajv-formats' own
// checks so that the inferred schema always accepts the sample it came from.
function stringFormat(s: string): string | null {
  const check = (name: "date-time" | "date" | "email" | "uri") => {
    const f = (require("ajv-formats/dist/formats") as { fullFormats: Record<string, unknown> }).fullFormats[name];
    if (f instanceof RegExp) return f.test(s);
    if (typeof f === "function") return Boolean(f(s));
    const v = (f as { validate?: unknown }).validate;
    return v instanceof RegExp ? v.test(s) : typeof v === "function" ? Boolean(v(s)) : false;
  };
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(s) && check("date-time")) return "date-time";
  if (/^\d{4}-\d{2}-\d{2}$/.test(s) && check("date")) return "date";
  if (/^[^\s@]+@[^\s@]+\.[a-z]{2,}$/i.test(s) && check("email")) return "email";
  if (/^https?:\/\/[^\s/]+\.[^\s]*$/i.test(s) && check("uri")) return "uri";
  return null;
}

// ---------------------------------------------------------------------------
// Inference from a table (a CSV/XLSX sample).
//
// Decision: a tabular sample means "the output is a table with these columns", so
// the schema is {rows: [{<column>: value, ...}]}. Every column is required in every
// row; a column's type is integer, number or boolean when every non-empty sample
// cell is one (else string), and such a column also accepts null when the sample
// has blanks in it. Numbers with leading zeros ("008") stay strings: they are codes.

export type TableCell = string | number | boolean | Date | null | undefined;

export interface TableInferenceOptions {
  /** 0-based index of the header row in a string[][] sample; found automatically when omitted. */
  headerRow?: number;
}

export function inferSchemaFromTable(rows: Record<string, TableCell>[] | TableCell[][], opts: TableInferenceOptions = {}): JsonSchema {
  const { headers, data } =
    Array.isArray(rows[0]) || rows.length === 0
      ? splitHeader(rows as TableCell[][], opts.headerRow)
      : fromRecords(rows as Record<string, TableCell>[]);
  const columns = headers.map((name, index) => ({ name: name.trim(), index })).filter((c) => c.name !== ""); // a column the sample does not name cannot become a property
  if (columns.length === 0) throw new SchemaError("The sample table has no header row with column names.");

  const seen = new Map<string, number>();
  const properties: Record<string, JsonSchema> = {};
  const kept = data.filter((r) => columns.some((c) => cellText(r[c.index]) !== ""));
  for (const c of columns) {
    const n = (seen.get(c.name) ?? 0) + 1;
    seen.set(c.name, n);
    const name = n === 1 ? c.name : `${c.name}_${n}`; // duplicate headers stay distinct columns
    properties[name] = columnSchema(kept.map((r) => r[c.index]));
  }
  const names = Object.keys(properties);
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: {
      rows: {
        type: "array",
        description: `One object per table row, with the columns ${names.map((n) => JSON.stringify(n)).join(", ")}.`,
        items: { type: "object", properties, required: names, additionalProperties: false },
      },
    },
    required: ["rows"],
    additionalProperties: false,
  };
}

function fromRecords(records: Record<string, TableCell>[]): { headers: string[]; data: TableCell[][] } {
  const headers = [...new Set(records.flatMap((r) => Object.keys(r)))];
  return { headers, data: records.map((r) => headers.map((h) => r[h])) };
}

// Spreadsheets often carry a title line or blank lines above the header. The header
// is the first row filled at least half as much as the fullest row (and in at least
// two cells when the table has two or more columns).
function splitHeader(rows: TableCell[][], headerRow?: number): { headers: string[]; data: TableCell[][] } {
  if (headerRow !== undefined) {
    if (!rows[headerRow]) throw new SchemaError(`The sample table has no row ${headerRow + 1}.`);
    return { headers: rows[headerRow].map(cellText), data: rows.slice(headerRow + 1) };
  }
  const filled = (r: TableCell[]) => r.filter((c) => cellText(c) !== "").length;
  const head = rows.slice(0, 20);
  const fullest = Math.max(0, ...head.map(filled));
  const threshold = Math.max(Math.min(2, fullest), Math.ceil(fullest / 2));
  const at = head.findIndex((r) => fullest > 0 && filled(r) >= threshold);
  if (at < 0) return { headers: [], data: [] };
  return { headers: rows[at].map(cellText), data: rows.slice(at + 1) };
}

function cellText(c: TableCell): string {
  if (c === null || c === undefined) return "";
  if (c instanceof Date) return c.toISOString();
  return String(c).trim();
}

const INTEGER = /^[+-]?(?:0|[1-9]\d*)$/;
const NUMBER = /^[+-]?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const BOOLEAN = /^(?:true|false)$/i;

function columnSchema(cells: TableCell[]): JsonSchema {
  const values = cells.map((c) => ({ raw: c, text: cellText(c) })).filter((v) => v.text !== "");
  const hasBlanks = values.length < cells.length;
  const all = (test: (raw: TableCell, text: string) => boolean) => values.length > 0 && values.every((v) => test(v.raw, v.text));
  let type = "string";
  if (all((r, t) => (typeof r === "number" ? Number.isInteger(r) : INTEGER.test(t)))) type = "integer";
  else if (all((r, t) => (typeof r === "number" ? Number.isFinite(r) : NUMBER.test(t)))) type = "number";
  else if (all((r, t) => typeof r === "boolean" || BOOLEAN.test(t))) type = "boolean";
  return { type: hasBlanks && type !== "string" ? [type, "null"] : type };
}

// ---------------------------------------------------------------------------
// Small helpers

export function isPlainObject(v: unknown): v is JsonSchema {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function deepFreeze<T>(v: T): T {
  if (typeof v === "object" && v !== null) {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}
