// The output schema of a workflow: a given JSON Schema checked, or one inferred from a sample document (JSON, CSV, XLSX/XLS).
import Papa from "papaparse";
import safeRegex from "safe-regex2";
import type { ExtractedDocument } from "../extract/types";
import { compileSchema, inferSchemaFromJson, inferSchemaFromTable, isPlainObject, type JsonSchema, SchemaError } from "./schema";

export interface ResolveOutputSchemaInput {
  /** A schema given by the client: checked and returned as is. */
  outputSchema?: object | null;
  /**
   * A sample document; `originalText` is the file's own text (a CSV re-parsed as written, a JSON
   * file read exactly). The extracted document alone is accepted too.
   */
  sample?: { doc: ExtractedDocument; originalText?: string } | ExtractedDocument;
}

/**
 * The schema a workflow's output must match, or null when there is none. Throws SchemaError (the
 * workflows module answers 400 validation_error) when the schema is invalid, does not describe a
 * JSON object (a run's output is an object), or the sample cannot give one. A JSON sample that is
 * an array gives {items: [...]}; a table gives {rows: [{column: value}]}.
 */
export function resolveOutputSchema(input: ResolveOutputSchemaInput): JsonSchema | null {
  if (input.outputSchema !== undefined && input.outputSchema !== null) {
    const schema = input.outputSchema as JsonSchema;
    compileSchema(schema);
    checkBounds(schema);
    if (!describesObject(schema)) {
      throw new SchemaError('The output schema must describe a JSON object (type "object"): a run\'s output is an object.', "/type");
    }
    return schema;
  }
  if (!input.sample) return null;
  const sample = "doc" in input.sample ? input.sample : { doc: input.sample, originalText: undefined };
  const schema = inferFromSample(sample.doc, sample.originalText);
  compileSchema(schema);
  return schema;
}

/**
 * What an output schema may ask for. Outputs (test-mode stubs among them) are generated and validated against it, so
 * a schema asking for a 100-million-character string or a catastrophic pattern would stall the server for everyone.
 */
const BOUNDS = { depth: 16, properties: 200, minLength: 2_000, minItems: 1_000, minProperties: 200, patternLength: 500 };

function checkBounds(schema: JsonSchema): void {
  let properties = 0;
  const visit = (node: unknown, path: string, depth: number): void => {
    if (Array.isArray(node)) {
      for (const [i, child] of node.entries()) visit(child, `${path}/${i}`, depth);
      return;
    }
    if (!isPlainObject(node)) return;
    if (depth > BOUNDS.depth) throw new SchemaError(`The output schema nests deeper than ${BOUNDS.depth} levels`, path);
    const over = (key: "minLength" | "minItems" | "minProperties") => {
      const value = node[key];
      if (typeof value === "number" && value > BOUNDS[key]) throw new SchemaError(`${key} may be at most ${BOUNDS[key]}`, `${path}/${key}`);
    };
    over("minLength");
    over("minItems");
    over("minProperties");
    const patterns = [
      ...(typeof node.pattern === "string" ? [[node.pattern, `${path}/pattern`]] : []),
      ...(isPlainObject(node.patternProperties) ? Object.keys(node.patternProperties).map((p) => [p, `${path}/patternProperties`]) : []),
    ];
    for (const [pattern, at] of patterns) {
      if (pattern.length > BOUNDS.patternLength || !safeRegex(pattern)) {
        throw new SchemaError(`the pattern ${JSON.stringify(pattern.slice(0, 60))} is too long or could take exponential time to match`, at);
      }
    }
    if (isPlainObject(node.properties)) {
      properties += Object.keys(node.properties).length;
      if (properties > BOUNDS.properties)
        throw new SchemaError(`The output schema may name at most ${BOUNDS.properties} properties in all`, `${path}/properties`);
    }
    for (const [key, child] of Object.entries(node)) {
      if (key === "enum" || key === "const" || key === "default" || key === "examples") continue; // values, not schemas
      const nested = key === "properties" || key === "patternProperties" || key === "$defs" || key === "definitions";
      if (nested && isPlainObject(child)) for (const [name, sub] of Object.entries(child)) visit(sub, `${path}/${key}/${name}`, depth + 1);
      else visit(child, `${path}/${key}`, depth + 1);
    }
  };
  visit(schema, "", 0);
}

function describesObject(schema: JsonSchema): boolean {
  const type = schema.type;
  if (type === undefined) return true; // properties/anyOf/$ref: ajv decides per value
  return type === "object" || (Array.isArray(type) && type.includes("object"));
}

function inferFromSample(doc: ExtractedDocument, originalText?: string): JsonSchema {
  switch (doc.format) {
    case "json": {
      let value: unknown;
      try {
        value = originalText !== undefined ? JSON.parse(originalText) : unflatten(doc);
      } catch {
        throw new SchemaError("The sample document's JSON could not be read back; upload it again as a JSON file.");
      }
      if (Array.isArray(value)) {
        const items = inferSchemaFromJson(value);
        delete items.$schema;
        return {
          $schema: "https://json-schema.org/draft/2020-12/schema",
          type: "object",
          properties: { items },
          required: ["items"],
          additionalProperties: false,
        };
      }
      if (!isPlainObject(value)) throw new SchemaError("The sample JSON must be an object or an array of objects.");
      return inferSchemaFromJson(value);
    }
    case "csv": {
      const rows = originalText
        ? Papa.parse<string[]>(originalText.replace(/\r\n?/g, "\n"), { skipEmptyLines: "greedy", header: false }).data
        : tableRows(doc.sections.map((s) => s.text).join("\n"));
      return inferSchemaFromTable(rows);
    }
    case "xlsx":
    case "xls": {
      // The first sheet with a table is the sample; the extractor writes each row as cells joined by " | ".
      const sheet = doc.sections.find((s) => s.text.includes(" | ")) ?? doc.sections[0];
      if (!sheet) throw new SchemaError("The sample spreadsheet is empty.");
      return inferSchemaFromTable(tableRows(sheet.text));
    }
    default:
      throw new SchemaError(`A ${doc.format.toUpperCase()} document cannot be an output sample: use a JSON, CSV or XLSX file.`);
  }
}

function tableRows(text: string): string[][] {
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => l.split(" | ").map((c) => c.trim()));
}

/**
 * Rebuilds a JSON value from the extractor's "path: value" lines (src/extract/json.ts), for a sample
 * whose original text is not at hand. Scalars are read as JSON when they parse as a number, boolean,
 * null, [] or {}, else as strings, so a string that looks like a number comes back as a number.
 */
function unflatten(doc: ExtractedDocument): unknown {
  const first = doc.sections[0];
  if (doc.sections.length === 1 && first && !first.location.section) return scalarOf(first.text);
  let root: unknown;
  let last: { set: (v: unknown) => void; text: string } | null = null;
  const lines = doc.sections.flatMap((sec) => sec.text.split("\n").map((line, i) => ({ line, first: i === 0 })));
  for (const { line, first } of lines) {
    const m = /^(\S+?):(?: (.*))?$/u.exec(line);
    // A key with a dot in it reads as nesting: the flattened form cannot tell them apart.
    if (!m || !/^(?:[^.[\]]+|\[\d+\])(?:\.+[^.[\]]+|\[\d+\])*$/u.test(m[1])) {
      // A string value with line breaks continues on the following lines of its section.
      if (last && !first) {
        last.text += `\n${line}`;
        last.set(last.text);
      }
      continue;
    }
    const keys = [...m[1].matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((k) => (k[2] !== undefined ? Number(k[2]) : k[1]));
    root ??= typeof keys[0] === "number" ? [] : {};
    let node = root as Record<string | number, unknown>;
    for (let i = 0; i < keys.length - 1; i++) {
      const key = keys[i];
      node[key] ??= typeof keys[i + 1] === "number" ? [] : {};
      node = node[key] as Record<string | number, unknown>;
    }
    const target = node;
    const key = keys[keys.length - 1];
    const raw = m[2] ?? "";
    target[key] = scalarOf(raw);
    last = typeof target[key] === "string" ? { set: (v) => (target[key] = v), text: raw } : null;
  }
  if (root === undefined) throw new SchemaError("The sample JSON is empty.");
  return root;
}

function scalarOf(text: string): unknown {
  const t = text.trim();
  if (/^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|\[\]|\{\})$/.test(t)) return JSON.parse(t);
  return text;
}
