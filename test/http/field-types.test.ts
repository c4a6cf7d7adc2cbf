// Every field of every JSON body, from the OpenAPI document itself: a value of the wrong JSON type is 400
// validation_error naming the field, never accepted, never coerced, never a 500. A new body field is covered the day
// it is added; a new body, the day it gets its OpenAPI example.
import { beforeAll, describe, expect, test } from "bun:test";
import { createDocumentFromBytes } from "../../src/modules/documents/service";
import { type Harness, harness, signUp } from "../helpers";

type Schema = {
  type?: string | string[];
  anyOf?: Schema[];
  const?: unknown;
  enum?: unknown[];
  multipleOf?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
};
type Json = string | number | boolean | null | Json[] | { [k: string]: Json };
type Operation = { key: string; method: string; path: string; properties: Record<string, Schema>; example: Record<string, Json> | undefined };

let h: Harness;
let admin: Awaited<ReturnType<typeof signUp>>;
let doc: { paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Schema; example?: unknown }> } }>> };
const ids: Record<string, string> = {};

/**
 * Fields that accept more than one JSON type, each with its reason. The table checks this list against the document:
 * a field whose schema admits several types and is not here fails, so no union widens a field unnoticed.
 */
const SEVERAL_TYPES: Record<string, string> = {
  "POST /v1/keys rate_limit_rpm": "null = the server's ASSAY_DEFAULT_RPM",
  "POST /v1/keys expires_at": "null = the key never expires",
  "POST /v1/workflows output_schema": "null = no output schema (as if omitted)",
  "PATCH /v1/workflows/{workflow_id} user_prompt": "null clears the prompt",
  "PATCH /v1/workflows/{workflow_id} output_schema": "null removes the output schema",
};

/**
 * The OpenAPI examples name resources that do not exist here (and a past expiry, a placeholder URL): these fields
 * take real values of this workspace instead, so the example is a body the server accepts.
 */
const REAL: Record<string, () => Json> = {
  email: () => admin.email,
  password: () => admin.password,
  url: () => "https://hooks.example.com/assay",
  expires_at: () => "2099-01-01T00:00:00Z",
  prompt_template_id: () => ids.template,
  reference_document_ids: () => [ids.reference],
  webhook_endpoint_id: () => ids.endpoint,
  output_schema_sample_id: () => ids.sample,
  input_documents: () => [ids.document],
  workspace_id: () => admin.workspaceId,
};

/** Fields of one body that exclude each other: a baseline keeps one of them (each in turn, see the baseline test). */
const EXCLUSIVE: Record<string, [string, string]> = {
  "POST /v1/workflows": ["output_schema", "output_schema_sample_id"],
  "POST /v1/admin/credits": ["workspace_id", "email"],
};

const PATH_IDS: Record<string, () => string> = {
  "{whk_id}": () => ids.endpoint,
  "{workflow_id}": () => ids.workflow,
  "{user_id}": () => admin.user.id,
};

/** Wrong values to try per declared type; those a field admits after all (a union, null) are skipped, see typesOf. */
const WRONG: Record<string, Json[]> = {
  string: [123, true, { value: "x" }, ["x"]],
  number: ["5", true, { value: 5 }, [5]],
  integer: ["5", 1.5, true, [5]],
  boolean: ["true", 1, [true]],
  array: ["x", 123, { 0: "x" }],
  object: ["x", 123, true, [], [{ type: "object" }]],
};

beforeAll(async () => {
  h = await harness({ ASSAY_DEFAULT_RPM: "100000" });
  admin = await signUp(h, undefined, "admin");
  doc = (await h.call("GET", "/v1/openapi.json")).body;
  const form = new FormData();
  form.set("name", "Rubric");
  form.set("file", new File(["# Rubric\n\n1. Clarity (5 points)"], "rubric.md", { type: "text/markdown" }));
  ids.reference = (await h.call("POST", "/v1/reference-documents", { token: admin.session, raw: form })).body.id;
  ids.endpoint = (await h.call("POST", "/v1/webhook-endpoints", { token: admin.session, body: { url: "https://hooks.example.com/a" } })).body.id;
  ids.workflow = (await h.call("POST", "/v1/workflows", { token: admin.session, body: { product_code: "general", name: "Types" } })).body.id;
  ids.template = (await h.call("GET", "/v1/prompt-templates", { token: admin.session })).body.data[0].id;
  const bytes = (text: string) => new TextEncoder().encode(text);
  ids.document = (await createDocumentFromBytes(h.ctx, { workspaceId: admin.workspaceId, filename: "essay.txt", bytes: bytes("An essay.") })).id;
  ids.sample = (await createDocumentFromBytes(h.ctx, { workspaceId: admin.workspaceId, filename: "s.json", bytes: bytes('{"grade": "A"}') })).id;
  for (const id of Object.values(ids)) expect(id).toBeString();
});

/** Every operation whose request body the document lists as application/json. */
function jsonOperations(): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const media = op.requestBody?.content?.["application/json"];
      if (!media?.schema) continue;
      out.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path: path.replace(/\{\w+\}/g, (p) => (PATH_IDS[p] ?? (() => p))()),
        properties: media.schema.properties ?? {},
        example: media.example as Record<string, Json> | undefined,
      });
    }
  }
  return out;
}

/** The operation's OpenAPI example with real values in place of made-up ones, keeping `keep` of an exclusive pair. */
function baseline(op: Operation, keep?: string): Record<string, Json> {
  const body: Record<string, Json> = structuredClone(op.example ?? {});
  for (const field of Object.keys(body)) if (REAL[field]) body[field] = REAL[field]();
  // A user to create must be a new one each time.
  if (op.key === "POST /v1/admin/users") body.email = `u${Math.random().toString(36).slice(2, 10)}@example.org`;
  const pair = EXCLUSIVE[op.key];
  if (pair) delete body[pair.find((f) => f !== (keep && pair.includes(keep) ? keep : pair[0])) as string];
  return body;
}

/** The JSON types a schema admits ("integer" where only whole numbers are). */
function typesOf(s: Schema): Set<string> {
  if (s.anyOf) return new Set(s.anyOf.flatMap((b) => [...typesOf(b)]));
  if (s.const !== undefined) return new Set([jsonType(s.const as Json)]);
  if (s.enum) return new Set(s.enum.map((v) => jsonType(v as Json)));
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  return new Set(types.map((x) => (x === "number" && s.multipleOf === 1 ? "integer" : x)));
}

function jsonType(v: Json): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

const admits = (types: Set<string>, v: Json) => types.has(jsonType(v)) || (jsonType(v) === "integer" && types.has("number"));

/** Values of a JSON type the schema refuses: the declared types' wrong values, and null unless it is admitted. */
function wrongValues(s: Schema): Json[] {
  const types = typesOf(s);
  const values = [...types].flatMap((type) => WRONG[type] ?? []);
  if (!types.has("null")) values.push(null);
  return values.filter((v, i) => !admits(types, v) && values.findIndex((w) => JSON.stringify(w) === JSON.stringify(v)) === i);
}

/** One row per wrong value of each field, plus one per wrong item type of each array field (`[123]` for strings). */
function rows(): { op: Operation; field: string; value: Json }[] {
  const out: { op: Operation; field: string; value: Json }[] = [];
  for (const op of jsonOperations()) {
    for (const [field, schema] of Object.entries(op.properties)) {
      for (const value of wrongValues(schema)) out.push({ op, field, value });
      if (schema.items && typesOf(schema).has("array")) for (const item of wrongValues(schema.items)) out.push({ op, field, value: [item] });
    }
  }
  return out;
}

const tokenFor = (op: Operation) => (op.key === "POST /v1/auth/login" || op.key === "POST /v1/auth/setup" ? undefined : admin.session);

describe("the table is built from the document", () => {
  test("every JSON body has an example, and lists its fields", () => {
    const ops = jsonOperations();
    expect(ops.length).toBeGreaterThanOrEqual(11);
    for (const op of ops) {
      expect(op.example, `${op.key} has no example`).toBeObject();
      expect(Object.keys(op.properties).length, op.key).toBeGreaterThan(0);
    }
  });

  test("a field admitting several JSON types is one of SEVERAL_TYPES, with its reason; the list has no stale entry", () => {
    const several: string[] = [];
    for (const op of jsonOperations()) {
      for (const [field, schema] of Object.entries(op.properties)) {
        const types = [...typesOf(schema)];
        expect(types.length, `${op.key} ${field}: the document gives it no type`).toBeGreaterThan(0);
        if (types.length > 1) several.push(`${op.key} ${field}`);
      }
    }
    expect(several.sort()).toEqual(Object.keys(SEVERAL_TYPES).sort());
  });

  test("the helpers find wrong values for every type (so a row cannot go missing unnoticed)", () => {
    expect(wrongValues({ type: "string" })).toEqual([123, true, { value: "x" }, ["x"], null]);
    expect(wrongValues({ type: "boolean" })).toEqual(["true", 1, [true], null]);
    expect(wrongValues({ type: "number", multipleOf: 1 })).toEqual(["5", 1.5, true, [5], null]);
    expect(wrongValues({ type: ["object", "null"] })).toEqual(["x", 123, true, [], [{ type: "object" }]]);
    expect(wrongValues({ anyOf: [{ const: "a", type: "string" }, { type: "null" }] })).toEqual([123, true, { value: "x" }, ["x"]]);
  });
});

describe("a wrong JSON type in any field is 400 validation_error naming it", () => {
  test("…for every field of every operation, and every item of its arrays", async () => {
    const refused: string[] = [];
    const all = rows();
    for (const { op, field, value } of all) {
      const pair = EXCLUSIVE[op.key];
      const body = { ...baseline(op, pair?.includes(field) ? field : undefined), [field]: value };
      const r = await h.call(op.method, op.path, { token: tokenFor(op), body });
      const param = r.body?.error?.param as string | undefined;
      const ok = r.status === 400 && r.body.error.code === "validation_error" && (param === field || param?.startsWith(`${field}.`) === true);
      if (!ok) refused.push(`${op.key} ${field}=${JSON.stringify(value)} → ${r.status} ${r.text.slice(0, 160)}`);
    }
    expect(refused).toEqual([]);
    // 11 bodies, 45 fields, 243 rows at the time of writing: the counts only grow.
    expect(new Set(all.map((r) => r.op.key)).size).toBeGreaterThanOrEqual(11);
    expect(new Set(all.map((r) => `${r.op.key} ${r.field}`)).size).toBeGreaterThanOrEqual(45);
    expect(all.length).toBeGreaterThanOrEqual(243);
  }, 60_000);

  test("…and each baseline itself is accepted, with either field of an exclusive pair (so each 400 is about its field)", async () => {
    for (const op of jsonOperations()) {
      for (const keep of EXCLUSIVE[op.key] ?? [undefined]) {
        const r = await h.call(op.method, op.path, { token: tokenFor(op), body: baseline(op, keep) });
        // Setup needs a server without users; here a valid body passes validation and meets that rule instead.
        if (op.key === "POST /v1/auth/setup") expect(r.body.error?.code).toBe("setup_closed");
        else expect(r.status, `${op.key} keeping ${keep}: ${r.text.slice(0, 200)}`).toBeLessThan(300);
      }
    }
  }, 30_000);
});

describe("output_schema must be a JSON object that is a JSON Schema", () => {
  const notSchemas: Json[] = ["a string", 5, true, ["x"], { type: "nonsense" }, { properties: 5 }, { type: "string" }];

  test("on create: anything else is 400 naming it; a draft-07 schema and null are accepted", async () => {
    for (const output_schema of notSchemas) {
      const r = await h.call("POST", "/v1/workflows", { token: admin.session, body: { product_code: "general", name: "s", output_schema } });
      expect(r.status, JSON.stringify(output_schema)).toBe(400);
      expect(r.body.error).toMatchObject({ code: "validation_error", param: "output_schema" });
    }
    const draft7 = { $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: { grade: { type: "string" } } };
    const ok = await h.call("POST", "/v1/workflows", { token: admin.session, body: { product_code: "general", name: "s", output_schema: draft7 } });
    expect(ok.status).toBe(201);
    expect(ok.body.output_schema).toEqual(draft7);
    const none = await h.call("POST", "/v1/workflows", { token: admin.session, body: { product_code: "general", name: "s", output_schema: null } });
    expect(none.status).toBe(201);
    expect(none.body.output_schema).toBeNull();
  });

  test("on PATCH: the same check; a valid schema replaces the inferred one, null removes it", async () => {
    const created = await h.call("POST", "/v1/workflows", {
      token: admin.session,
      body: { product_code: "general", name: "from a sample", output_schema_sample_id: ids.sample },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const inferred = created.body.output_schema;
    expect(inferred).toBeObject();
    for (const output_schema of notSchemas) {
      const r = await h.call("PATCH", `/v1/workflows/${id}`, { token: admin.session, body: { output_schema } });
      expect(r.status, JSON.stringify(output_schema)).toBe(400);
      expect(r.body.error).toMatchObject({ code: "validation_error", param: "output_schema" });
    }
    expect((await h.call("GET", `/v1/workflows/${id}`, { token: admin.session })).body.output_schema).toEqual(inferred);

    const schema = { type: "object", required: ["ok"], properties: { ok: { type: "boolean" } } };
    const replaced = await h.call("PATCH", `/v1/workflows/${id}`, { token: admin.session, body: { output_schema: schema } });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ output_schema: schema, output_schema_sample_id: null });
    const removed = await h.call("PATCH", `/v1/workflows/${id}`, { token: admin.session, body: { output_schema: null } });
    expect(removed.body).toMatchObject({ output_schema: null, output_schema_sample_id: null });
    const renamed = await h.call("PATCH", `/v1/workflows/${id}`, { token: admin.session, body: { name: "kept" } });
    expect(renamed.body.output_schema).toBeNull();
  });
});
