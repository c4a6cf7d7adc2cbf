// Every field of every JSON body, from the OpenAPI document itself: a value of the wrong JSON type is 400
// validation_error naming the field, never accepted, never a 500. A new body field is covered the day it is added.
import { beforeAll, describe, expect, test } from "bun:test";
import { createDocumentFromBytes } from "../../src/modules/documents/service";
import { type Harness, harness, signUp } from "../helpers";

type Schema = { type?: string | string[]; anyOf?: Schema[]; const?: unknown; enum?: unknown[]; properties?: Record<string, Schema> };
type Json = string | number | boolean | null | Json[] | { [k: string]: Json };

let h: Harness;
let admin: Awaited<ReturnType<typeof signUp>>;
let doc: Record<string, unknown>;
const ids: Record<string, string> = {};

/** A body each operation accepts (the test checks it does), built on real resources of this workspace. */
const BASELINES: Record<string, () => Record<string, Json>> = {
  "POST /v1/auth/login": () => ({ email: admin.email, password: admin.password }),
  "POST /v1/keys": () => ({ name: "k", mode: "test", scopes: ["runs:read"], rate_limit_rpm: 60, expires_at: "2099-01-01T00:00:00Z" }),
  "POST /v1/prompt-templates/generate": () => ({ goal: "Grade persuasive essays against the rubric", category: "education", output_format: "json" }),
  "POST /v1/webhook-endpoints": () => ({ url: "https://hooks.example.com/assay", events: ["run.succeeded"] }),
  "PATCH /v1/webhook-endpoints/{whk_id}": () => ({ url: "https://hooks.example.com/other", events: ["run.failed"], status: "active" }),
  "POST /v1/documents": () => ({ filename: "essay.txt", mime_type: "text/plain", size_bytes: 100 }),
  "POST /v1/reference-documents": () => ({ name: "Rubric", filename: "rubric.md", mime_type: "text/markdown", size_bytes: 100 }),
  "POST /v1/workflows": () => ({
    product_code: "education",
    name: "Essays",
    prompt_template_id: ids.template,
    user_prompt: "Grade the essay.",
    reference_document_ids: [ids.reference],
    output_format: "json",
    output_schema: { type: "object", properties: { grade: { type: "string" } } },
    default_mode: "async",
    default_model_policy: "auto",
    webhook_endpoint_id: ids.endpoint,
  }),
  "PATCH /v1/workflows/{workflow_id}": () => ({ name: "Renamed", status: "active", user_prompt: "Grade it." }),
  "POST /v1/workflows/{workflow_id}/runs": () => ({ mode: "async", input_documents: [ids.document], metadata: { student: "A" } }),
  "POST /v1/admin/credits": () => ({ workspace_id: admin.workspaceId, email: admin.email, amount: 1, kind: "bonus", note: "test" }),
};

/** Fields that exclude each other in one body: dropped from the baseline when the other one is the field under test. */
const EXCLUSIVE: Record<string, string[]> = {
  "POST /v1/workflows": ["output_schema", "output_schema_sample_id"],
  "POST /v1/admin/credits": ["workspace_id", "email"],
};

const pathOf = (template: string) => template.replace("{whk_id}", ids.endpoint).replace("{workflow_id}", ids.workflow);

/** The JSON types a schema admits. */
function typesOf(s: Schema): Set<string> {
  if (s.anyOf) return new Set(s.anyOf.flatMap((b) => [...typesOf(b)]));
  if (s.const !== undefined || s.enum) return new Set([s.type ? String(s.type) : typeof (s.const ?? s.enum?.[0])]);
  const t = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  return new Set(t.map((x) => (x === "integer" ? "number" : x)));
}

/** A value of a JSON type the schema refuses. */
function wrongValue(s: Schema): Json {
  const allowed = typesOf(s);
  const candidates: [string, Json][] = [
    ["number", 123],
    ["string", "5"],
    ["boolean", true],
    ["object", { a: 1 }],
    ["array", ["x"]],
  ];
  for (const [type, value] of candidates) if (!allowed.has(type)) return value;
  throw new Error(`no wrong type for ${JSON.stringify(s)}`);
}

beforeAll(async () => {
  h = harness({ ASSAY_DEFAULT_RPM: "100000" });
  admin = await signUp(h, undefined, "admin");
  doc = (await h.call("GET", "/v1/openapi.json")).body;
  const form = new FormData();
  form.set("name", "Rubric");
  form.set("file", new File(["# Rubric\n\n1. Clarity (5 points)"], "rubric.md", { type: "text/markdown" }));
  ids.reference = (await h.call("POST", "/v1/reference-documents", { token: admin.session, raw: form })).body.id;
  ids.endpoint = (await h.call("POST", "/v1/webhook-endpoints", { token: admin.session, body: { url: "https://hooks.example.com/a" } })).body.id;
  ids.workflow = (await h.call("POST", "/v1/workflows", { token: admin.session, body: { product_code: "general", name: "Types" } })).body.id;
  ids.template = (await h.call("GET", "/v1/prompt-templates", { token: admin.session })).body.data[0].id;
  const bytes = new TextEncoder().encode("An essay to evaluate.");
  ids.document = (await createDocumentFromBytes(h.ctx, { workspaceId: admin.workspaceId, filename: "essay.txt", bytes })).id;
});

function jsonOperations(): [string, Record<string, Schema>][] {
  const out: [string, Record<string, Schema>][] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(item)) {
      const schema = op.requestBody?.content?.["application/json"]?.schema as Schema | undefined;
      if (schema) out.push([`${method.toUpperCase()} ${path}`, schema.properties ?? {}]);
    }
  }
  return out;
}

test("every JSON body in the OpenAPI document has a baseline here, and the document lists their fields", () => {
  const ops = jsonOperations();
  expect(ops.length).toBeGreaterThanOrEqual(Object.keys(BASELINES).length);
  for (const [op, props] of ops) {
    expect(BASELINES[op], `add a baseline body for ${op}`).toBeDefined();
    expect(Object.keys(props).length).toBeGreaterThan(0);
  }
});

describe("a wrong JSON type in any field is 400 validation_error naming it", () => {
  test("…for every field of every operation", async () => {
    let rows = 0;
    const accepted: string[] = [];
    for (const [op, props] of jsonOperations()) {
      const [method, template] = op.split(" ");
      for (const [field, schema] of Object.entries(props)) {
        const body: Record<string, Json> = { ...BASELINES[op]() };
        for (const other of EXCLUSIVE[op] ?? []) if (other !== field && (EXCLUSIVE[op] ?? []).includes(field)) delete body[other];
        body[field] = wrongValue(schema);
        const token = op.startsWith("POST /v1/auth/login") ? undefined : admin.session;
        const r = await h.call(method, pathOf(template), { token, body });
        rows++;
        const param = r.body?.error?.param as string | undefined;
        const ok = r.status === 400 && r.body.error.code === "validation_error" && (param === field || param?.startsWith(`${field}.`) === true);
        if (!ok) accepted.push(`${op} ${field}=${JSON.stringify(body[field])} → ${r.status} ${r.text.slice(0, 160)}`);
      }
    }
    expect(accepted).toEqual([]);
    expect(rows).toBeGreaterThan(40);
  }, 30_000);

  test("…and each baseline itself is accepted (so the 400s above are about the one field)", async () => {
    for (const [op] of jsonOperations()) {
      const [method, template] = op.split(" ");
      const body: Record<string, Json> = { ...BASELINES[op]() };
      const [keep, drop] = EXCLUSIVE[op] ?? [];
      if (keep && drop) delete body[drop];
      const token = op.startsWith("POST /v1/auth/login") ? undefined : admin.session;
      const r = await h.call(method, pathOf(template), { token, body });
      expect(r.status, `${op}: ${r.text.slice(0, 200)}`).toBeLessThan(300);
    }
  }, 30_000);
});

test("output_schema must be a JSON Schema object: a string, an array or an invalid schema is 400 naming it", async () => {
  for (const output_schema of ["a string", ["x"], { type: "nonsense" }, { properties: 5 }]) {
    const r = await h.call("POST", "/v1/workflows", { token: admin.session, body: { product_code: "general", name: "s", output_schema } });
    expect(r.status, JSON.stringify(output_schema)).toBe(400);
    expect(r.body.error).toMatchObject({ code: "validation_error", param: "output_schema" });
  }
  const ok = await h.call("POST", "/v1/workflows", {
    token: admin.session,
    body: { product_code: "general", name: "s", output_schema: { $schema: "http://json-schema.org/draft-07/schema#", type: "object" } },
  });
  expect(ok.status).toBe(201);
});
