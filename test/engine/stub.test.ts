// Test-mode stubs: whatever the output schema, the stub validates against it and is the same for the same seed.
import { describe, expect, test } from "bun:test";
import { compileSchema, EVALUATION_SCHEMA } from "../../src/engine/schema";
import { stubEvaluation, stubFromSchema } from "../../src/engine/stub";
import type { EngineDocument } from "../../src/engine/types";
import { SCHEMAS as schemas } from "./schemas";

describe("stubFromSchema", () => {
  test.each(schemas)("validates: %s", (_name, schema) => {
    const { validate } = compileSchema(schema);
    for (const seed of ["run_1", "run_2", "another seed"]) {
      const value = stubFromSchema(schema, seed);
      expect(validate(value)).toBeNull();
    }
  });

  test("the same seed gives the same value, another seed another one", () => {
    for (const [, schema] of schemas) {
      expect(stubFromSchema(schema, "run_abc")).toEqual(stubFromSchema(schema, "run_abc"));
    }
    const schema = { type: "object", properties: { id: { type: "string", format: "uuid" }, n: { type: "integer" } }, required: ["id", "n"] };
    expect(stubFromSchema(schema, "run_a")).not.toEqual(stubFromSchema(schema, "run_b"));
  });

  test("includes optional properties and respects additionalProperties false", () => {
    const value = stubFromSchema(
      { type: "object", properties: { must: { type: "string" }, may: { type: "integer" } }, required: ["must"], additionalProperties: false },
      "seed",
    ) as Record<string, unknown>;
    expect(Object.keys(value).sort()).toEqual(["may", "must"]);
  });

  test("arrays hold max(minItems, 1) items, capped by maxItems; enums give their first value", () => {
    const value = stubFromSchema(
      {
        type: "object",
        properties: {
          one: { type: "array", items: { enum: ["first", "second"] } },
          four: { type: "array", items: { type: "string" }, minItems: 4 },
          capped: { type: "array", items: { type: "string" }, maxItems: 0 },
        },
      },
      "seed",
    ) as Record<string, unknown[]>;
    expect(value.one).toEqual(["first"]);
    expect(value.four).toHaveLength(4);
    expect(value.capped).toEqual([]);
  });

  test("an invalid schema is refused rather than stubbed", () => {
    expect(() => stubFromSchema({ type: "nope" }, "seed")).toThrow("Invalid JSON Schema");
  });
});

describe("stubEvaluation", () => {
  const { validate } = compileSchema(EVALUATION_SCHEMA);

  test("is a valid evaluation, labelled as test mode, and deterministic", () => {
    const e = stubEvaluation("run_1");
    expect(validate(e)).toBeNull();
    expect(e.summary).toContain("Test mode");
    expect(stubEvaluation("run_1")).toEqual(e);
    const expected = e.score >= 70 ? "pass" : e.score >= 50 ? "needs_review" : "fail";
    expect(e.verdict).toBe(expected);
  });

  test("uses the rubric's criteria and quotes the input verbatim", () => {
    const text = "Title page\n\nThe supplier shall deliver within 30 days.\nSecond line.";
    const doc: EngineDocument = {
      id: "doc_123",
      name: "contract.txt",
      content: {
        format: "txt",
        mime_type: "text/plain",
        text,
        page_count: null,
        sections: [
          { location: {}, text: "   \n" },
          { location: { section: "body" }, text: "The supplier shall deliver within 30 days.\nSecond line." },
        ],
      },
    };
    const e = stubEvaluation("run_2", { criteria: [{ id: "delivery", title: "Delivery terms" }], documents: [doc] });
    expect(validate(e)).toBeNull();
    expect(e.criteria.map((c) => c.id)).toEqual(["delivery"]);
    const ev = e.criteria[0].evidence[0];
    expect(ev).toEqual({ document_id: "doc_123", quote: "The supplier shall deliver within 30 days.", location: { section: "body" } });
    expect(text.includes(ev.quote)).toBe(true);
  });
});
