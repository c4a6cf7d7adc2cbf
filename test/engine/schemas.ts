// A table of varied output schemas (formats, enums, bounds, tuples, nested objects, combinators, $ref, nullable
// types, closed objects, draft-07, inferred ones): every output Assay writes for a workflow's own schema must validate
// against each, the test-mode stub (stub.test.ts) and the local evaluator's offline filling (schema-fill.test.ts).
import { EVALUATION_SCHEMA, inferSchemaFromJson, inferSchemaFromTable } from "../../src/engine/schema";

export const SCHEMAS: [string, object][] = [
  ["the standard evaluation", EVALUATION_SCHEMA],
  [
    "formats, enums and const",
    {
      type: "object",
      properties: {
        id: { type: "string", format: "uuid" },
        at: { type: "string", format: "date-time" },
        on: { type: "string", format: "date" },
        mail: { type: "string", format: "email" },
        link: { type: "string", format: "uri" },
        status: { enum: ["open", "closed"] },
        kind: { const: "invoice" },
      },
      required: ["id", "status"],
      additionalProperties: false,
    },
  ],
  [
    "string lengths and patterns",
    {
      type: "object",
      properties: {
        short: { type: "string", maxLength: 3 },
        long: { type: "string", minLength: 40 },
        exact: { type: "string", minLength: 5, maxLength: 5 },
        code: { type: "string", pattern: "^[A-Z]{3}-\\d{4}$" },
        phone: { type: "string", pattern: "^\\+?[0-9]{2,3}( [0-9]{3}){2}$" },
        choice: { type: "string", pattern: "^(yes|no)$" },
        slug: { type: "string", pattern: "^[a-z0-9]+(?:-[a-z0-9]+)*$", maxLength: 12 },
      },
      required: ["short", "long", "exact", "code", "phone", "choice", "slug"],
    },
  ],
  [
    "numeric bounds and multiples",
    {
      type: "object",
      properties: {
        pct: { type: "number", minimum: 0, maximum: 100 },
        open: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 },
        tight: { type: "integer", minimum: 7, maximum: 7 },
        even: { type: "integer", multipleOf: 2, minimum: 3, maximum: 9 },
        cents: { type: "number", multipleOf: 0.01, minimum: 0.001, maximum: 0.05 },
        negative: { type: "integer", exclusiveMaximum: -10 },
      },
      required: ["pct", "open", "tight", "even", "cents", "negative"],
    },
  ],
  [
    "arrays with item counts and tuples",
    {
      type: "object",
      properties: {
        three: { type: "array", items: { type: "integer" }, minItems: 3 },
        none: { type: "array", items: { type: "string" }, maxItems: 0 },
        pair: { type: "array", prefixItems: [{ type: "string" }, { type: "boolean" }], items: false },
        unique: { type: "array", items: { enum: ["a", "b", "c"] }, minItems: 2, uniqueItems: true },
        tagged: { type: "array", contains: { const: "must" }, items: { type: "string" } },
      },
      required: ["three", "none", "pair", "unique", "tagged"],
    },
  ],
  [
    "arrays of nested objects",
    {
      type: "object",
      properties: {
        orders: {
          type: "array",
          minItems: 2,
          maxItems: 2,
          items: {
            type: "object",
            properties: {
              customer: {
                type: "object",
                properties: { name: { type: "string" }, address: { type: "object", properties: { city: { type: "string" } } } },
                required: ["name", "address"],
                additionalProperties: false,
              },
              lines: { type: "array", items: { type: "object", properties: { qty: { type: "integer", minimum: 1 } }, required: ["qty"] } },
            },
            required: ["customer", "lines"],
            additionalProperties: false,
          },
        },
      },
      required: ["orders"],
      additionalProperties: false,
    },
  ],
  [
    "anyOf, oneOf that needs the right branch, and allOf",
    {
      type: "object",
      properties: {
        either: { anyOf: [{ type: "string", format: "email" }, { type: "integer" }] },
        number_not_integer: { oneOf: [{ type: "number" }, { type: "integer" }] },
        exactly_one: { oneOf: [{ type: "integer" }, { type: "number" }] },
        merged: {
          allOf: [
            { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
            { properties: { b: { type: "integer", minimum: 10 } }, required: ["b"] },
            { properties: { a: { minLength: 12 } } },
          ],
        },
      },
      required: ["either", "number_not_integer", "exactly_one", "merged"],
    },
  ],
  [
    "local $ref to $defs and definitions, and a recursive tree",
    {
      $defs: {
        money: { type: "object", properties: { amount: { type: "number" }, currency: { enum: ["EUR", "USD"] } }, required: ["amount", "currency"] },
        node: {
          type: "object",
          properties: { label: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/node" } } },
          required: ["label"],
        },
      },
      definitions: { id: { type: "string", pattern: "^doc_[a-z0-9]{6}$" } },
      type: "object",
      properties: {
        price: { $ref: "#/$defs/money" },
        doc: { $ref: "#/definitions/id" },
        tree: { $ref: "#/$defs/node" },
      },
      required: ["price", "doc", "tree"],
    },
  ],
  [
    "nullable type arrays",
    {
      type: "object",
      properties: {
        maybe_text: { type: ["string", "null"], minLength: 2 },
        maybe_count: { type: ["null", "integer"], minimum: 5 },
        only_null: { type: "null" },
      },
      required: ["maybe_text", "maybe_count", "only_null"],
    },
  ],
  [
    "additionalProperties false with required keys and minProperties",
    {
      type: "object",
      properties: { a: { type: "string" } },
      required: ["a"],
      additionalProperties: false,
    },
  ],
  ["an open map that needs entries", { type: "object", additionalProperties: { type: "integer" }, minProperties: 2 }],
  [
    "draft-07 with definitions and tuple items",
    {
      $schema: "http://json-schema.org/draft-07/schema#",
      definitions: { flag: { type: "boolean" } },
      type: "object",
      properties: {
        point: { type: "array", items: [{ type: "number" }, { type: "number" }], additionalItems: false },
        on: { $ref: "#/definitions/flag" },
      },
      required: ["point", "on"],
    },
  ],
  [
    "if/then/else: the grade a score allows",
    {
      type: "object",
      properties: { score: { type: "number", minimum: 0, maximum: 100 }, grade: { type: "string" } },
      required: ["score", "grade"],
      if: { properties: { score: { minimum: 50 } } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's own if/then/else keyword
      then: { properties: { grade: { enum: ["pass", "merit"] } } },
      else: { properties: { grade: { const: "fail" } } },
    },
  ],
  [
    "dependentSchemas and dependentRequired",
    {
      type: "object",
      properties: { passed: { type: "boolean" }, reason: { type: "string" } },
      required: ["passed"],
      dependentRequired: { passed: ["reason"] },
      dependentSchemas: { passed: { properties: { certificate: { type: "string", minLength: 3 } }, required: ["certificate"] } },
    },
  ],
  [
    "patternProperties only, with minProperties",
    { type: "object", patternProperties: { "^crit_": { type: "integer", minimum: 0, maximum: 5 } }, additionalProperties: false, minProperties: 2 },
  ],
  [
    "propertyNames with minProperties",
    { type: "object", propertyNames: { pattern: "^[a-z]+$" }, additionalProperties: { type: "string" }, minProperties: 2 },
  ],
  [
    "propertyNames as an enum of names, with minProperties as many",
    {
      type: "object",
      propertyNames: { enum: ["Thesis", "Evidence", "Style"] },
      additionalProperties: { type: "string", minLength: 10 },
      minProperties: 3,
    },
  ],
  [
    "optional properties no value satisfies (a reserved list, a field refused by then: false)",
    {
      type: "object",
      required: ["summary"],
      properties: {
        summary: { type: "string" },
        late_penalties: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 0 },
        legacyRiskBand: { type: "string" },
      },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's own if/then/else keyword
      allOf: [{ if: { required: ["legacyRiskBand"] }, then: false }],
    },
  ],
  ["an empty schema", {}],
  ["an object with no properties named", { type: "object" }],
  [
    "a schema inferred from a JSON sample",
    inferSchemaFromJson({ name: "x", when: "2024-01-01T00:00:00Z", items: [{ a: 1 }, { a: 2.5, b: null }], ok: true }),
  ],
  [
    "a schema inferred from a table",
    inferSchemaFromTable([
      ["Number", "Square", "Label"],
      ["1", "1", "one"],
      ["2", "", "two"],
    ]),
  ],
];
