// resolveOutputSchema: a workflow's given schema checked, or one inferred from a sample document (JSON, CSV, XLSX).
import { describe, expect, test } from "bun:test";
import path from "node:path";
import { resolveOutputSchema } from "../../src/engine";
import { compileSchema, SchemaError } from "../../src/engine/schema";
import { CORPUS, corpusDoc, textDoc } from "./fixtures";

describe("a given schema", () => {
  test("a valid object schema is returned as given; none gives null", () => {
    const schema = { type: "object", properties: { grade: { type: "string" } }, required: ["grade"] };
    expect(resolveOutputSchema({ outputSchema: schema })).toBe(schema);
    expect(resolveOutputSchema({})).toBeNull();
  });

  test("an invalid schema, or one whose root is not an object, is a SchemaError", () => {
    expect(() => resolveOutputSchema({ outputSchema: { type: "objekt" } })).toThrow(SchemaError);
    expect(() => resolveOutputSchema({ outputSchema: { type: "array", items: { type: "string" } } })).toThrow(/JSON object/);
  });
});

describe("a sample document", () => {
  test("JSON: the schema accepts the sample it came from (read back from the extracted text)", async () => {
    const file = "json/corpora-planets.json";
    const doc = await corpusDoc("doc_sample", file);
    const schema = resolveOutputSchema({ sample: { doc: doc.content } })!;
    const original = JSON.parse(await Bun.file(path.join(CORPUS, file)).text());
    expect(compileSchema(schema).validate(original)).toBeNull();
    expect(compileSchema(schema).validate({ description: "x" })).not.toBeNull(); // planets is required
  });

  test("a JSON array becomes {items: [...]}, since a run's output is an object", async () => {
    const doc = await textDoc(
      "doc_sample",
      "sample.json",
      JSON.stringify([
        { name: "Thesis", score: 4 },
        { name: "Evidence", score: 3 },
      ]),
    );
    const schema = resolveOutputSchema({ sample: { doc: doc.content } })!;
    const { validate } = compileSchema(schema);
    expect(validate({ items: [{ name: "Style", score: 2 }] })).toBeNull();
    expect(validate({ items: [{ name: "Style", score: "two" }] })).not.toBeNull();
  });

  test("CSV and XLSX: {rows: [{column: value}]} with the header's columns and typed cells", async () => {
    const csv = await textDoc("doc_csv", "scores.csv", 'student,score,passed\nAda,18,true\n"Lovelace, A.",12,false\n');
    const fromCsv = compileSchema(resolveOutputSchema({ sample: { doc: csv.content } })!);
    expect(fromCsv.validate({ rows: [{ student: "Bo", score: 9, passed: false }] })).toBeNull();
    expect(fromCsv.validate({ rows: [{ student: "Bo", score: "nine", passed: false }] })).not.toBeNull();
    // The extracted document may be passed on its own.
    expect(resolveOutputSchema({ sample: csv.content })).toEqual(resolveOutputSchema({ sample: { doc: csv.content } }));
    // The original text, when at hand, is re-parsed as written.
    const original = compileSchema(resolveOutputSchema({ sample: { doc: csv.content, originalText: "student,score,passed\nAda,18,true\n" } })!);
    expect(original.validate({ rows: [{ student: "Bo", score: 9, passed: true }] })).toBeNull();

    const xlsx = await corpusDoc("doc_xlsx", "xlsx/tika-test-columnar.xlsx");
    const fromXlsx = resolveOutputSchema({ sample: { doc: xlsx.content } })!;
    const items = (fromXlsx.properties as { rows: { items: { required: string[] } } }).rows.items;
    expect(items.required).toContain("Description of the Row");
    expect(items.required).toContain("Percent Done");
  });

  test("a format that cannot be a sample is a SchemaError", async () => {
    const doc = await corpusDoc("doc_pdf", "pdf/tika-testPDF.pdf");
    expect(() => resolveOutputSchema({ sample: { doc: doc.content } })).toThrow(SchemaError);
  });
});
