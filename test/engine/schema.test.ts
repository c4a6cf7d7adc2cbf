// Output schemas: compiling user schemas, readable validation errors, inference from JSON and table samples.
import { describe, expect, test } from "bun:test";
import path from "node:path";
import Papa from "papaparse";
import { compileSchema, EVALUATION_SCHEMA, inferSchemaFromJson, inferSchemaFromTable, SchemaError } from "../../src/engine/schema";

import { CORPUS as corpus } from "../helpers";

function schemaError(fn: () => unknown): SchemaError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(SchemaError);
    return e as SchemaError;
  }
  throw new Error("expected a SchemaError");
}

describe("compileSchema", () => {
  test.each([
    ["a wrong type name", { type: "nope" }, "/type"],
    ["a property schema that is not a schema", { type: "object", properties: { a: 5 } }, "/properties/a"],
    ["required that is not an array", { type: "object", required: "a" }, "/required"],
    ["minLength below zero", { type: "string", minLength: -1 }, "/minLength"],
  ])("rejects %s, saying where", (_name, schema, where) => {
    const e = schemaError(() => compileSchema(schema));
    expect(e.path).toBe(where);
    expect(e.message).toContain(where);
  });

  test.each([
    ["a string", "{}"],
    ["an array", [{ type: "string" }]],
    ["null", null],
    ["a boolean schema", true],
  ])("rejects %s as a schema", (_name, schema) => {
    expect(schemaError(() => compileSchema(schema)).message).toContain("must be a JSON object");
  });

  test("rejects a reference to a definition that does not exist and an unsupported $schema", () => {
    expect(schemaError(() => compileSchema({ $ref: "#/$defs/missing" })).message).toContain("#/$defs/missing");
    const old = schemaError(() => compileSchema({ $schema: "http://json-schema.org/draft-04/schema#", type: "string" }));
    expect(old.path).toBe("/$schema");
  });

  test("rejects $ref cycles that could never be checked, instead of overflowing the stack", () => {
    expect(schemaError(() => compileSchema({ $ref: "#", type: "object" })).message).toContain("refers to itself");
    const loop = { $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } }, properties: { x: { $ref: "#/$defs/a" } } };
    expect(schemaError(() => compileSchema(loop)).message).toContain("refers to itself");
    // Recursion through data is fine: a tree.
    const tree = compileSchema({ type: "object", properties: { kids: { type: "array", items: { $ref: "#" } } } });
    expect(tree.validate({ kids: [{ kids: [] }] })).toBeNull();
    expect(tree.validate({ kids: [{ kids: 1 }] })).toContain("/kids/0/kids must be array");
  });

  test("tolerates unknown keywords and formats, and reads draft-07 and 2020-12 schemas", () => {
    const lenient = compileSchema({ type: "string", "x-vendor": true, format: "no-such-format" });
    expect(lenient.validate("anything")).toBeNull();

    const draft07 = compileSchema({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "array",
      items: [{ type: "string" }, { type: "integer" }],
      additionalItems: false,
    });
    expect(draft07.validate(["a", 1])).toBeNull();
    expect(draft07.validate(["a", 1, 2])).not.toBeNull();

    // No $schema, but only meaningful as draft-07 (tuple items): still understood.
    const undeclaredTuple = compileSchema({ type: "array", items: [{ type: "string" }], additionalItems: false });
    expect(undeclaredTuple.validate(["a"])).toBeNull();
    expect(undeclaredTuple.validate([1])).not.toBeNull();

    const draft2020 = compileSchema({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "array",
      prefixItems: [{ type: "string" }],
      items: false,
    });
    expect(draft2020.validate(["a"])).toBeNull();
    expect(draft2020.validate(["a", "b"])).not.toBeNull();
  });

  test("errors name the instance path and what is wrong, all of them", () => {
    const { validate } = compileSchema({
      type: "object",
      properties: {
        name: { type: "string" },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] } },
        when: { type: "string", format: "date-time" },
      },
      required: ["name", "id"],
      additionalProperties: false,
    });
    expect(validate({ name: "x", id: 1, tags: ["a"], when: "2024-05-01T10:00:00Z" })).not.toBeNull(); // id not declared
    const err = validate({ name: 5, tags: ["a", "c"], when: "yesterday", extra: true })!;
    expect(err).toContain("/name must be string");
    expect(err).toContain(`/tags/1 must be one of "a", "b"`);
    expect(err).toContain(`/when must match format "date-time"`);
    expect(err).toContain(`(root) must have required property 'id'`);
    expect(err).toContain(`(root) must not have additional property "extra"`);
  });

  test("decimal multipleOf accepts values a person would call multiples", () => {
    const { validate } = compileSchema({ type: "number", multipleOf: 0.01 });
    expect(validate(0.07)).toBeNull();
    expect(validate(19.99)).toBeNull();
    expect(validate(0.075)).not.toBeNull();
  });

  test("equal schemas share one compiled validator, whatever the key order", () => {
    const a = compileSchema({ type: "object", properties: { x: { type: "integer" } }, required: ["x"] });
    const b = compileSchema({ required: ["x"], properties: { x: { type: "integer" } }, type: "object" });
    expect(b).toBe(a);
  });

  test("schemas with the same $id can be compiled one after the other", () => {
    const first = compileSchema({ $id: "https://example.com/out", type: "string" });
    const second = compileSchema({ $id: "https://example.com/out", type: "integer" });
    expect(first.validate("a")).toBeNull();
    expect(second.validate(3)).toBeNull();
    expect(second.validate("a")).not.toBeNull();
  });
});

describe("EVALUATION_SCHEMA", () => {
  const { validate } = compileSchema(EVALUATION_SCHEMA);
  const good = {
    summary: "The contract covers most requirements.",
    score: 72.5,
    verdict: "pass",
    criteria: [
      {
        id: "c1",
        title: "Termination clause",
        score: 8,
        max_score: 10,
        rationale: "Present and clear.",
        evidence: [{ document_id: "doc_1", quote: "Either party may terminate", location: { page: 3 } }],
      },
    ],
  };

  test("accepts a complete evaluation", () => {
    expect(validate(good)).toBeNull();
  });

  test.each([
    ["a score above 100", { ...good, score: 101 }, "/score"],
    ["an unknown verdict", { ...good, verdict: "maybe" }, "/verdict"],
    ["a criterion without evidence", { ...good, criteria: [{ ...good.criteria[0], evidence: undefined }] }, "/criteria/0"],
    [
      "evidence without a quote",
      { ...good, criteria: [{ ...good.criteria[0], evidence: [{ document_id: "doc_1", location: {} }] }] },
      "/criteria/0/evidence/0",
    ],
    [
      "a location field that does not exist",
      { ...good, criteria: [{ ...good.criteria[0], evidence: [{ ...good.criteria[0].evidence[0], location: { line: 4 } }] }] },
      "/criteria/0/evidence/0/location",
    ],
  ])("rejects %s", (_name, value, where) => {
    expect(validate(JSON.parse(JSON.stringify(value)))).toContain(where);
  });
});

describe("inferSchemaFromJson", () => {
  const sample = {
    invoice_id: "INV-001",
    issued_at: "2024-05-01T10:00:00Z",
    due: "2024-05-31",
    contact: { email: "billing@example.com", website: "https://example.com/billing" },
    total: 1234.5,
    paid: false,
    note: null,
    lines: [
      { sku: "A-1", quantity: 2, price: 10 },
      { sku: "B-2", quantity: 1, price: 9.99, discount: 0.1 },
    ],
    tags: [],
  };
  const schema = inferSchemaFromJson(sample);
  const { validate } = compileSchema(schema);

  test("the sample validates against the schema inferred from it", () => {
    expect(validate(sample)).toBeNull();
  });

  test("types, integers, formats and required keys follow the sample", () => {
    const props = schema.properties as Record<string, Record<string, unknown>>;
    expect(props.issued_at).toEqual({ type: "string", format: "date-time" });
    expect(props.due).toEqual({ type: "string", format: "date" });
    expect(props.invoice_id).toEqual({ type: "string" }); // no enum guessed, no format
    expect((props.contact.properties as Record<string, unknown>).email).toEqual({ type: "string", format: "email" });
    expect((props.contact.properties as Record<string, unknown>).website).toEqual({ type: "string", format: "uri" });
    expect(props.paid).toEqual({ type: "boolean" });
    expect(props.note).toEqual({ type: "null" });
    const line = (props.lines.items as Record<string, Record<string, unknown>>).properties;
    expect(line.quantity).toEqual({ type: "integer" });
    expect(line.price).toEqual({ type: "number" }); // 10 and 9.99: number covers both
    expect((props.lines.items as Record<string, unknown>).required).toEqual(["sku", "quantity", "price"]); // discount only in one
    expect(schema.required).toEqual(Object.keys(sample));
  });

  test.each([
    ["a wrong-typed total", { ...sample, total: "1234.50" }, "/total must be number"],
    ["a fractional quantity", { ...sample, lines: [{ sku: "A", quantity: 1.5, price: 1 }] }, "/lines/0/quantity must be integer"],
    ["a missing nested key", { ...sample, contact: { email: "a@b.co" } }, "/contact must have required property 'website'"],
    ["a malformed date", { ...sample, due: "31/05/2024" }, `/due must match format "date"`],
    ["an unexpected key", { ...sample, surprise: 1 }, `must not have additional property "surprise"`],
  ])("rejects %s", (_name, value, message) => {
    expect(validate(value)).toContain(message);
  });

  test("elements of different shapes widen the item schema", () => {
    const s = inferSchemaFromJson({ values: [1, "two", null, 3.5] });
    const items = (s.properties as Record<string, Record<string, unknown>>).values.items;
    expect(items).toEqual({ type: ["string", "number", "null"] });
  });
});

describe("inferSchemaFromTable", () => {
  test("a CSV sample with a title line above its header becomes a table of its columns", async () => {
    const csv = await Bun.file(path.join(corpus, "csv/tika-testCSV.csv")).text();
    const rows = Papa.parse<string[]>(csv, { skipEmptyLines: false }).data;
    const schema = inferSchemaFromTable(rows);
    const items = ((schema.properties as Record<string, Record<string, unknown>>).rows.items ?? {}) as Record<string, unknown>;
    expect(items.properties).toEqual({ Number: { type: "integer" }, Square: { type: "integer" } });
    expect(items.required).toEqual(["Number", "Square"]);

    const { validate } = compileSchema(schema);
    expect(
      validate({
        rows: [
          { Number: 16, Square: 256 },
          { Number: 17, Square: 289 },
        ],
      }),
    ).toBeNull();
    expect(validate({ rows: [] })).toBeNull();
    expect(validate({ rows: [{ Number: 16 }] })).toContain("/rows/0 must have required property 'Square'");
    expect(validate({ rows: [{ Number: "16", Square: 256 }] })).toContain("/rows/0/Number must be integer");
    expect(validate([{ Number: 16, Square: 256 }])).not.toBeNull();
  });

  test("column types: numbers, booleans, codes with leading zeros and blanks", async () => {
    const csv = await Bun.file(path.join(corpus, "csv/countrycodes-country-codes.csv")).text();
    const rows = Papa.parse<Record<string, string>>(csv, { header: true, skipEmptyLines: true }).data.slice(0, 40);
    const schema = inferSchemaFromTable(rows);
    const props = ((schema.properties as Record<string, Record<string, unknown>>).rows.items as Record<string, unknown>).properties as Record<
      string,
      unknown
    >;
    expect(props.Dial).toEqual({ type: "string" }); // "1-684": not a number
    expect(props["ISO3166-1-numeric"]).toEqual({ type: "integer" });
    expect(props["ISO4217-currency_numeric_code"]).toEqual({ type: "string" }); // "008", "356,064": codes
    expect(props["Geoname ID"]).toEqual({ type: "integer" });
    expect(props.Capital).toEqual({ type: "string" });
    const { validate } = compileSchema(schema);
    const asOutput = rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, coerce(v, props[k])])));
    expect(validate({ rows: asOutput })).toBeNull();
  });

  test("codes with leading zeros stay strings; blanks make a typed column nullable", () => {
    const schema = inferSchemaFromTable([
      ["code", "amount", "active", "ratio", "comment"],
      ["008", "12", "TRUE", "0.5", "fine"],
      ["012", "", "false", "1e3", ""],
    ]);
    const items = (schema.properties as Record<string, Record<string, unknown>>).rows.items as Record<string, unknown>;
    expect(items.properties).toEqual({
      code: { type: "string" },
      amount: { type: ["integer", "null"] },
      active: { type: "boolean" },
      ratio: { type: "number" },
      comment: { type: "string" },
    });
    const { validate } = compileSchema(schema);
    expect(validate({ rows: [{ code: "008", amount: null, active: true, ratio: 0.5, comment: "" }] })).toBeNull();
    expect(validate({ rows: [{ code: "008", amount: 1, active: true, ratio: 0.5, comment: "", other: 1 }] })).toContain(
      `must not have additional property "other"`,
    );
  });

  test("a table without any header is refused", () => {
    expect(() =>
      inferSchemaFromTable([
        ["", ""],
        ["", ""],
      ]),
    ).toThrow(SchemaError);
  });
});

// Turn a CSV cell into the JSON value the inferred column type asks for.
function coerce(cell: string, schema: unknown): unknown {
  const type = (schema as { type: string | string[] }).type;
  const types = Array.isArray(type) ? type : [type];
  if (cell.trim() === "" && types.includes("null")) return null;
  if (types.includes("integer") || types.includes("number")) return Number(cell);
  if (types.includes("boolean")) return cell.toLowerCase() === "true";
  return cell;
}
