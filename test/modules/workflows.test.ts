// Workflows: validation, defaults, reads, pagination, updates, soft delete and tenant isolation.
import { beforeAll, describe, expect, test } from "bun:test";
import { promptTemplates } from "../../src/catalog";
import { createDocumentFromBytes } from "../../src/modules/documents/service";
import { type Harness, harness, type Reply, scenarios, signUp } from "../helpers";

let h: Harness;
let u: Awaited<ReturnType<typeof signUp>>;
let other: Awaited<ReturnType<typeof signUp>>;
let readOnly: string;
let sampleDocId: string;
let wfId: string;

beforeAll(async () => {
  h = await harness();
  u = await signUp(h);
  other = await signUp(h);
  readOnly = (await h.call("POST", "/v1/keys", { token: u.session, body: { name: "ro", scopes: ["workflows:read"] } })).body.token;
  const sample = await createDocumentFromBytes(h.ctx, {
    workspaceId: u.workspaceId,
    filename: "sample.json",
    bytes: new TextEncoder().encode(JSON.stringify({ candidate: "A. Lovelace", score: 87, strengths: ["analysis"], hire: true })),
  });
  sampleDocId = sample.id;
  const wf = await h.call("POST", "/v1/workflows", { token: u.liveKey, body: { product_code: "education", name: "Essays" } });
  wfId = wf.body.id;
});

describe("POST /v1/workflows", () => {
  scenarios(
    () => h,
    [
      {
        name: "creates with defaults taken from the product",
        method: "POST",
        path: "/v1/workflows",
        token: () => u.liveKey,
        body: { product_code: "legal", name: "NDA review" },
        status: 201,
        expect: {
          object: "workflow",
          product_code: "legal",
          name: "NDA review",
          status: "active",
          output_format: "json",
          default_mode: "async",
          reference_document_ids: [],
          output_schema: null,
          webhook_endpoint_id: null,
        },
        check: ({ body }: Reply) => {
          expect(body.id).toMatch(/^wf_/);
          expect(["auto", "gemini-file-search", "deepseek-1m-fulltext", "hybrid"]).toContain(body.default_model_policy);
          expect(body.created_at).toBe(body.updated_at);
        },
      },
      {
        name: "a prompt template supplies the prompt and format",
        method: "POST",
        path: "/v1/workflows",
        token: () => u.liveKey,
        body: { product_code: "hr", name: "CV screen", prompt_template_id: "__first_hr_template__" },
        status: 201,
        check: ({ body }: Reply) => {
          const template = promptTemplates.find((t) => t.category === "hr")!;
          expect(body.user_prompt).toBe(template.user_prompt_seed);
          expect(body.output_format).toBe(template.recommended_output_format ?? "json");
        },
      },
      {
        name: "product_code is required",
        method: "POST",
        path: "/v1/workflows",
        token: () => u.liveKey,
        body: { name: "x" },
        status: 400,
        expect: { error: { code: "validation_error", param: "product_code" } },
      },
      {
        name: "unknown product",
        method: "POST",
        path: "/v1/workflows",
        token: () => u.liveKey,
        body: { product_code: "astrology", name: "x" },
        status: 400,
        expect: { error: { code: "validation_error", param: "product_code" } },
      },
      {
        name: "deprecated product",
        method: "POST",
        path: "/v1/workflows",
        token: () => u.liveKey,
        body: { product_code: "__deprecated__", name: "x" },
        status: 400,
        expect: { error: { code: "validation_error", param: "product_code" } },
      },
      {
        name: "name over 200 characters",
        method: "POST",
        path: "/v1/workflows",
        token: () => u.liveKey,
        body: { product_code: "general", name: "n".repeat(201) },
        status: 400,
        expect: { error: { code: "validation_error", param: "name" } },
      },
      {
        name: "unknown output_format",
        method: "POST",
        path: "/v1/workflows",
        token: () => u.liveKey,
        body: { product_code: "general", name: "x", output_format: "pdf" },
        status: 400,
        expect: { error: { code: "validation_error", param: "output_format" } },
      },
      {
        name: "unknown model policy",
        method: "POST",
        path: "/v1/workflows",
        token: () => u.liveKey,
        body: { product_code: "general", name: "x", default_model_policy: "gpt" },
        status: 400,
        expect: { error: { code: "validation_error", param: "default_model_policy" } },
      },
      {
        name: "unknown default_mode",
        method: "POST",
        path: "/v1/workflows",
        token: () => u.liveKey,
        body: { product_code: "general", name: "x", default_mode: "later" },
        status: 400,
        expect: { error: { code: "validation_error", param: "default_mode" } },
      },
      {
        name: "a reference document of nobody",
        method: "POST",
        path: "/v1/workflows",
        token: () => u.liveKey,
        body: { product_code: "general", name: "x", reference_document_ids: ["ref_nope"] },
        status: 400,
        expect: { error: { code: "validation_error", param: "reference_document_ids.0" } },
      },
      {
        name: "unknown prompt template",
        method: "POST",
        path: "/v1/workflows",
        token: () => u.liveKey,
        body: { product_code: "general", name: "x", prompt_template_id: "tpl_nope" },
        status: 400,
        expect: { error: { code: "validation_error", param: "prompt_template_id" } },
      },
      {
        name: "a webhook endpoint of nobody",
        method: "POST",
        path: "/v1/workflows",
        token: () => u.liveKey,
        body: { product_code: "general", name: "x", webhook_endpoint_id: "whk_nope" },
        status: 400,
        expect: { error: { code: "validation_error", param: "webhook_endpoint_id" } },
      },
      {
        name: "an invalid JSON Schema",
        method: "POST",
        path: "/v1/workflows",
        token: () => u.liveKey,
        body: { product_code: "general", name: "x", output_schema: { type: "nope" } },
        status: 400,
        expect: { error: { code: "validation_error", param: "output_schema" } },
      },
      {
        name: "a valid JSON Schema is kept",
        method: "POST",
        path: "/v1/workflows",
        token: () => u.liveKey,
        body: { product_code: "general", name: "x", output_schema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } },
        status: 201,
        expect: { output_schema: { type: "object", required: ["ok"] } },
      },
      {
        name: "a schema is inferred from a sample document",
        method: "POST",
        path: "/v1/workflows",
        token: () => u.liveKey,
        body: { product_code: "hr", name: "typed", output_schema_sample_id: "__sample__" },
        status: 201,
        check: ({ body }: Reply) => {
          expect(body.output_schema_sample_id).toBe(sampleDocId);
          expect(body.output_schema.properties.score.type).toMatch(/integer|number/);
          expect(body.output_schema.properties.hire.type).toBe("boolean");
        },
      },
      {
        name: "a sample of another workspace",
        method: "POST",
        path: "/v1/workflows",
        token: () => other.liveKey,
        body: { product_code: "hr", name: "typed", output_schema_sample_id: "__sample__" },
        status: 400,
        expect: { error: { code: "validation_error", param: "output_schema_sample_id" } },
      },
      {
        name: "needs workflows:write",
        method: "POST",
        path: "/v1/workflows",
        token: () => readOnly,
        body: { product_code: "general", name: "x" },
        status: 403,
        expect: { error: { code: "insufficient_scope" } },
      },
    ].map((row) => ({
      ...row,
      // Placeholders resolved at run time (ids only known after setup).
      get body() {
        const json = JSON.stringify((row as { body?: unknown }).body ?? null)
          .replace("__sample__", sampleDocId)
          .replace("__deprecated__", "essay-v1")
          .replace("__first_hr_template__", promptTemplates.find((t) => t.category === "hr")!.id);
        return JSON.parse(json) ?? undefined;
      },
    })),
  );
});

describe("reading, updating and deleting", () => {
  test("GET answers the workflow; another workspace gets 404", async () => {
    expect((await h.call("GET", `/v1/workflows/${wfId}`, { token: readOnly })).body).toMatchObject({ id: wfId, name: "Essays" });
    const r = await h.call("GET", `/v1/workflows/${wfId}`, { token: other.liveKey });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe("not_found");
  });

  test("list is newest first and pages with a cursor", async () => {
    const all = await h.call("GET", "/v1/workflows?limit=100", { token: u.liveKey });
    expect(all.body.data.length).toBeGreaterThanOrEqual(3);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await h.call("GET", `/v1/workflows?limit=1${cursor ? `&cursor=${cursor}` : ""}`, { token: u.liveKey });
      expect(page.body.data).toHaveLength(1);
      seen.push(page.body.data[0].id);
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all.body.data.map((w: any) => w.id));
    expect((await h.call("GET", "/v1/workflows", { token: other.liveKey })).body.data).toEqual([]);
    expect((await h.call("GET", "/v1/workflows?limit=0", { token: u.liveKey })).status).toBe(400);
    // Said in words, not as the validator's branches. (Before: "should be one of: 'integer', 'integer'".)
    expect((await h.call("GET", "/v1/workflows?limit=abc", { token: u.liveKey })).body.error.message).toBe("limit: must be an integer from 1 to 100");
    expect((await h.call("GET", "/v1/workflows?limit=101", { token: u.liveKey })).body.error.param).toBe("limit");
    expect((await h.call("GET", "/v1/workflows?cursor=forged", { token: u.liveKey })).body.error.param).toBe("cursor");
    // Another list's cursor is no position here. (Before: 200, a page placed by a run's time and id.)
    const firstPage = await h.call("GET", "/v1/workflows?limit=1", { token: u.liveKey });
    const workflowsCursor = firstPage.body.next_cursor as string;
    expect((await h.call("GET", `/v1/reference-documents?cursor=${workflowsCursor}`, { token: u.liveKey })).body.error.param).toBe("cursor");
  });

  test("a reference listed twice is kept once (a set, unlike a run's input_documents)", async () => {
    const f = new FormData();
    f.set("name", "Rubric");
    f.set("file", new File(["# Rubric\n\n- Clarity: the essay is clear.\n"], "rubric.md", { type: "text/markdown" }));
    const ref = await h.call("POST", "/v1/reference-documents", { token: u.liveKey, raw: f });
    expect(ref.status).toBe(201);
    const ids = [ref.body.id, ref.body.id];
    const created = await h.call("POST", "/v1/workflows", {
      token: u.liveKey,
      body: { product_code: "education", name: "Twice", reference_document_ids: ids },
    });
    expect(created.status).toBe(201);
    expect(created.body.reference_document_ids).toEqual([ref.body.id]);
    expect((await h.call("GET", `/v1/workflows/${created.body.id}`, { token: u.liveKey })).body.reference_document_ids).toEqual([ref.body.id]);
  });

  test("PATCH moves between every status and renames", async () => {
    for (const status of ["paused", "archived", "active", "archived", "paused", "active"]) {
      const r = await h.call("PATCH", `/v1/workflows/${wfId}`, { token: u.liveKey, body: { status } });
      expect(r.status).toBe(200);
      expect(r.body.status).toBe(status);
    }
    const renamed = await h.call("PATCH", `/v1/workflows/${wfId}`, { token: u.liveKey, body: { name: "Essays v2", user_prompt: "Be strict." } });
    expect(renamed.body).toMatchObject({ name: "Essays v2", user_prompt: "Be strict." });
    expect(Date.parse(renamed.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(renamed.body.created_at));
    expect((await h.call("PATCH", `/v1/workflows/${wfId}`, { token: u.liveKey, body: { name: "n".repeat(201) } })).body.error.param).toBe("name");
    expect((await h.call("PATCH", `/v1/workflows/${wfId}`, { token: u.liveKey, body: { status: "deleted" } })).body.error.param).toBe("status");
    // A field PATCH does not change is refused by name, not answered 200 as if it were applied. (Before: 200, unchanged.)
    const unchangeable = await h.call("PATCH", `/v1/workflows/${wfId}`, { token: u.liveKey, body: { output_format: "docx" } });
    expect([unchangeable.status, unchangeable.body.error.code, unchangeable.body.error.param]).toEqual([400, "validation_error", "output_format"]);
    // And so is a field a webhook endpoint does not take: "event" for "events" subscribed it to every event.
    const typo = await h.call("POST", "/v1/webhook-endpoints", {
      token: u.liveKey,
      body: { url: "https://example.com/hook", event: ["run.failed"] },
    });
    expect([typo.status, typo.body.error.param]).toEqual([400, "event"]);
    expect((await h.call("PATCH", `/v1/workflows/${wfId}`, { token: other.liveKey, body: { name: "mine" } })).status).toBe(404);
  });

  test("DELETE answers deleted and the workflow is gone", async () => {
    const wf = await h.call("POST", "/v1/workflows", { token: u.liveKey, body: { product_code: "general", name: "temp" } });
    expect((await h.call("DELETE", `/v1/workflows/${wf.body.id}`, { token: other.liveKey })).status).toBe(404);
    const del = await h.call("DELETE", `/v1/workflows/${wf.body.id}`, { token: u.liveKey });
    expect(del.body).toEqual({ id: wf.body.id, object: "workflow", deleted: true });
    expect((await h.call("GET", `/v1/workflows/${wf.body.id}`, { token: u.liveKey })).status).toBe(404);
    expect((await h.call("DELETE", `/v1/workflows/${wf.body.id}`, { token: u.liveKey })).status).toBe(404);
  });
});
