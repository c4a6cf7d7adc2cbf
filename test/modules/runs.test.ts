// Runs: creation, every state transition, credits (hold, charge, release, refund), idempotency, sync mode,
// restart recovery, outputs, the legacy multipart form and usage.
import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { and, eq, sql } from "drizzle-orm";
import { tx } from "../../src/db/client";
import { creditBalances, creditLedger, documents, events, runs } from "../../src/db/schema";
import { extract } from "../../src/extract";
import { createDocumentFromBytes } from "../../src/modules/documents/service";
import { indexNext } from "../../src/modules/reference-documents/worker";
import { finishRun } from "../../src/modules/runs/service";
import { recoverRuns, runTick } from "../../src/modules/runs/worker";
import { checkBalances, getBalance } from "../../src/modules/usage/service";
import { CORPUS, type Harness, harness, signUp } from "../helpers";

const RUBRIC = `# Persuasive essay rubric

## Thesis (20 points)
A clear, arguable thesis statement about school uniforms in the introduction.

## Evidence (20 points)
Specific evidence, statistics or studies that support each claim.

## Counterargument (10 points)
Acknowledges the opposing view and rebuts it.
`;

const ESSAY = `School uniforms should be required because they reduce bullying and focus students on learning.
My thesis is that uniforms improve school climate. A 2019 study of 40 schools found that bullying reports fell by 23 percent
after uniforms were introduced, and attendance rose. Critics argue that uniforms limit self-expression; however, students can
express themselves through clubs, art and writing, so the opposing view does not outweigh the evidence.`;

type User = Awaited<ReturnType<typeof signUp>>;

async function doc(h: Harness, u: User, filename: string, text: string) {
  return (await createDocumentFromBytes(h.ctx, { workspaceId: u.workspaceId, filename, bytes: new TextEncoder().encode(text) })).id;
}

/** Runs the indexing and run workers until neither has anything left to do (no background scheduler in tests). */
async function drain(h: Harness, max = 30) {
  for (let i = 0; i < max; i++) {
    const indexed = await indexNext(h.ctx);
    const ran = await runTick(h.ctx);
    if (!indexed && !ran) return;
  }
}

async function ledgerSum(h: Harness, workspaceId: string) {
  const rows = await h.ctx.db.select().from(creditLedger).where(eq(creditLedger.workspaceId, workspaceId));
  return rows.reduce((s, r) => s + r.delta, 0);
}

async function eventTypes(h: Harness, runId: string) {
  const rows = await h.ctx.db.select().from(events).where(eq(events.subjectId, runId));
  return rows.map((e) => e.type);
}

let h: Harness;
let u: User;
let wf: string;
let essay: string;

beforeAll(async () => {
  h = await harness({ ASSAY_INITIAL_CREDITS: "50" });
  u = await signUp(h);
  const ref = await h.call("POST", "/v1/reference-documents", {
    token: u.liveKey,
    raw: (() => {
      const f = new FormData();
      f.set("name", "Rubric");
      f.set("file", new File([RUBRIC], "rubric.md", { type: "text/markdown" }));
      return f;
    })(),
  });
  expect(ref.status).toBe(201);
  const created = await h.call("POST", "/v1/workflows", {
    token: u.liveKey,
    body: {
      product_code: "education",
      name: "Essays",
      reference_document_ids: [ref.body.id],
      output_format: "docx",
      user_prompt: "Grade the essay against the rubric.",
    },
  });
  expect(created.status).toBe(201);
  wf = created.body.id;
  essay = await doc(h, u, "essay.txt", ESSAY);
});

describe("creating a run", () => {
  test("202 queued with a quote held from the balance", async () => {
    const before = (await getBalance(h.ctx.db, u.workspaceId)).pro_credits;
    const r = await h.call("POST", `/v1/workflows/${wf}/runs`, { token: u.liveKey, body: { input_documents: [essay], metadata: { student: "A" } } });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({
      object: "run",
      workflow_id: wf,
      status: "queued",
      mode: "async",
      charged_credits: null,
      input_documents: [essay],
      metadata: { student: "A" },
      output: null,
      output_file: null,
      error: null,
      started_at: null,
      finished_at: null,
      livemode: true,
    });
    expect(r.body.result_url).toBe(`http://localhost/v1/runs/${r.body.id}`);
    expect(r.body.quoted_credits).toBeGreaterThan(0);
    expect((await getBalance(h.ctx.db, u.workspaceId)).pro_credits).toBeCloseTo(before - r.body.quoted_credits, 6);
    expect(await ledgerSum(h, u.workspaceId)).toBeCloseTo((await getBalance(h.ctx.db, u.workspaceId)).pro_credits, 6);
  });

  const bad: [string, () => unknown, number, string, string?][] = [
    ["input_documents missing", () => ({}), 400, "validation_error", "input_documents"],
    ["input_documents empty", () => ({ input_documents: [] }), 400, "validation_error", "input_documents"],
    ["unknown document", () => ({ input_documents: ["doc_nope"] }), 400, "validation_error", "input_documents.0"],
    ["metadata not an object", () => ({ input_documents: [essay], metadata: "x" }), 400, "validation_error", "metadata"],
    ["unknown mode", () => ({ input_documents: [essay], mode: "now" }), 400, "validation_error", "mode"],
    ["a document listed twice", () => ({ input_documents: [essay, essay] }), 400, "validation_error", "input_documents.1"],
  ];
  for (const [name, body, status, code, param] of bad) {
    test(`rejects: ${name}`, async () => {
      const r = await h.call("POST", `/v1/workflows/${wf}/runs`, { token: u.liveKey, body: body() });
      expect(r.status).toBe(status);
      expect(r.body.error.code).toBe(code);
      if (param) expect(r.body.error.param).toBe(param);
    });
  }

  test("malformed JSON is 400 invalid_json", async () => {
    const r = await h.call("POST", `/v1/workflows/${wf}/runs`, { token: u.liveKey, raw: "{", headers: { "content-type": "application/json" } });
    expect(r.body.error.code).toBe("invalid_json");
  });

  test("a document that was never completed is refused", async () => {
    const up = await h.call("POST", "/v1/documents", { token: u.liveKey, body: { filename: "later.txt" } });
    const r = await h.call("POST", `/v1/workflows/${wf}/runs`, { token: u.liveKey, body: { input_documents: [up.body.id] } });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe("input_documents.0");
  });

  test("another workspace's document and workflow are invisible", async () => {
    const v = await signUp(h);
    const r = await h.call("POST", `/v1/workflows/${wf}/runs`, { token: v.liveKey, body: { input_documents: [essay] } });
    expect(r.status).toBe(404);
    const theirs = await doc(h, v, "x.txt", "hello");
    const mine = await h.call("POST", `/v1/workflows/${wf}/runs`, { token: u.liveKey, body: { input_documents: [theirs] } });
    expect(mine.status).toBe(400);
  });

  test("paused and archived workflows answer 409 workflow_inactive", async () => {
    for (const status of ["paused", "archived"]) {
      await h.call("PATCH", `/v1/workflows/${wf}`, { token: u.liveKey, body: { status } });
      const r = await h.call("POST", `/v1/workflows/${wf}/runs`, { token: u.liveKey, body: { input_documents: [essay] } });
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe("workflow_inactive");
    }
    await h.call("PATCH", `/v1/workflows/${wf}`, { token: u.liveKey, body: { status: "active" } });
  });

  test("402 insufficient_credits when the quote does not fit; nothing is held", async () => {
    const hp = await harness({ ASSAY_INITIAL_CREDITS: "0" });
    const poor = await signUp(hp);
    const w = await hp.call("POST", "/v1/workflows", { token: poor.liveKey, body: { product_code: "general", name: "x" } });
    const d = await doc(hp, poor, "a.txt", "some text");
    const r = await hp.call("POST", `/v1/workflows/${w.body.id}/runs`, { token: poor.liveKey, body: { input_documents: [d] } });
    expect(r.status).toBe(402);
    expect(r.body.error.code).toBe("insufficient_credits");
    expect(await hp.ctx.db.select().from(runs)).toHaveLength(0);
    // A test key quotes but never holds: it still works.
    const t = await hp.call("POST", `/v1/workflows/${w.body.id}/runs`, { token: poor.testKey, body: { input_documents: [d] } });
    expect(t.status).toBe(202);
    expect(t.body.livemode).toBe(false);
    expect((await getBalance(hp.ctx.db, poor.workspaceId)).pro_credits).toBe(0);
  });

  test("needs runs:write", async () => {
    const k = await h.call("POST", "/v1/keys", { token: u.session, body: { name: "ro", scopes: ["runs:read"] } });
    const r = await h.call("POST", `/v1/workflows/${wf}/runs`, { token: k.body.token, body: { input_documents: [essay] } });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("insufficient_scope");
  });
});

describe("state transitions", () => {
  test("queued → running → succeeded: output, usage, DOCX file, charge and run.succeeded", async () => {
    const created = await h.call("POST", `/v1/workflows/${wf}/runs`, { token: u.liveKey, body: { input_documents: [essay] } });
    const before = await h.call("GET", `/v1/runs/${created.body.id}/output`, { token: u.liveKey });
    expect(before.status).toBe(409);
    expect(before.body.error.code).toBe("invalid_state");
    await drain(h);
    const run = (await h.call("GET", `/v1/runs/${created.body.id}`, { token: u.liveKey })).body;
    expect(run.status).toBe("succeeded");
    expect(run.charged_credits).toBe(run.quoted_credits);
    expect(run.started_at).toBeString();
    expect(Date.parse(run.finished_at)).toBeGreaterThanOrEqual(Date.parse(run.started_at));
    expect(run.usage.model).toBe("local");
    expect(["file_search", "fulltext", "hybrid"]).toContain(run.usage.rag_strategy);
    expect(run.output.format).toBe("docx");
    expect(run.output.summary).toBeString();
    expect(run.output_file.mime_type).toBe("application/vnd.openxmlformats-officedocument.wordprocessingml.document");
    expect(await eventTypes(h, run.id)).toEqual(["run.succeeded"]);
    expect(await ledgerSum(h, u.workspaceId)).toBeCloseTo((await getBalance(h.ctx.db, u.workspaceId)).pro_credits, 6);

    const out = await h.call("GET", `/v1/runs/${run.id}/output`, { token: u.liveKey });
    expect(out.status).toBe(200);
    const url = new URL(out.body.url);
    const file = await h.app.handle(new Request(`http://localhost${url.pathname}${url.search}`));
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toContain("wordprocessingml");
    const back = await extract(new Uint8Array(await file.arrayBuffer()), { filename: "out.docx" });
    expect(back.text).toContain(run.output.summary.slice(0, 40));
    for (const c of run.output.criteria) expect(back.text).toContain(c.title);
  });

  test("queued → canceled releases the hold in full and writes run.canceled; cancel again is 409", async () => {
    const before = (await getBalance(h.ctx.db, u.workspaceId)).pro_credits;
    const r = await h.call("POST", `/v1/workflows/${wf}/runs`, { token: u.liveKey, body: { input_documents: [essay] } });
    const canceled = await h.call("POST", `/v1/runs/${r.body.id}/cancel`, { token: u.liveKey });
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ status: "canceled", charged_credits: 0 });
    expect((await getBalance(h.ctx.db, u.workspaceId)).pro_credits).toBeCloseTo(before, 6);
    expect(await eventTypes(h, r.body.id)).toEqual(["run.canceled"]);
    const again = await h.call("POST", `/v1/runs/${r.body.id}/cancel`, { token: u.liveKey });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("invalid_state");
    await drain(h);
    expect((await h.call("GET", `/v1/runs/${r.body.id}`, { token: u.liveKey })).body.status).toBe("canceled");
  });

  test("a succeeded run cannot be canceled", async () => {
    const r = await h.call("POST", `/v1/workflows/${wf}/runs`, { token: u.liveKey, body: { input_documents: [essay] } });
    await drain(h);
    const c = await h.call("POST", `/v1/runs/${r.body.id}/cancel`, { token: u.liveKey });
    expect(c.status).toBe(409);
  });

  test("→ failed: a workflow schema no output can satisfy fails with output_invalid naming the part, and releases the hold", async () => {
    const w = await h.call("POST", "/v1/workflows", {
      token: u.liveKey,
      body: {
        product_code: "general",
        name: "strict",
        output_schema: {
          type: "object",
          // The local evaluator fills any satisfiable schema; "not": {} admits no value at all.
          properties: { impossible: { not: {} } },
          required: ["impossible"],
          additionalProperties: false,
        },
      },
    });
    const before = (await getBalance(h.ctx.db, u.workspaceId)).pro_credits;
    const r = await h.call("POST", `/v1/workflows/${w.body.id}/runs`, { token: u.liveKey, body: { input_documents: [essay] } });
    await drain(h);
    const run = (await h.call("GET", `/v1/runs/${r.body.id}`, { token: u.liveKey })).body;
    expect(run.status).toBe("failed");
    expect(run.error.code).toBe("output_invalid");
    expect(run.error.message).toContain("/impossible");
    expect(run.charged_credits).toBe(0);
    expect(run.output).toBeNull();
    expect((await getBalance(h.ctx.db, u.workspaceId)).pro_credits).toBeCloseTo(before, 6);
    expect(await eventTypes(h, run.id)).toEqual(["run.failed"]);
  });

  test("→ failed with reference_document_failed when a reference could not be indexed", async () => {
    const f = new FormData();
    f.set("name", "Broken rubric");
    f.set("file", new File([readFileSync(path.join(CORPUS, "bad/truncated-pdfjs-wikipedia.pdf"))], "rubric.pdf", { type: "application/pdf" }));
    const ref = await h.call("POST", "/v1/reference-documents", { token: u.liveKey, raw: f });
    const w = await h.call("POST", "/v1/workflows", {
      token: u.liveKey,
      body: { product_code: "general", name: "broken", reference_document_ids: [ref.body.id] },
    });
    const r = await h.call("POST", `/v1/workflows/${w.body.id}/runs`, { token: u.liveKey, body: { input_documents: [essay] } });
    await drain(h);
    const run = (await h.call("GET", `/v1/runs/${r.body.id}`, { token: u.liveKey })).body;
    expect(run.status).toBe("failed");
    expect(run.error.code).toBe("reference_document_failed");
  });

  test("deleting a reference removes its pointer only: the workflow keeps evaluating against the original", async () => {
    const f = new FormData();
    f.set("name", "Soon deleted");
    f.set("file", new File([RUBRIC], "rubric2.md", { type: "text/markdown" }));
    const ref = await h.call("POST", "/v1/reference-documents", { token: u.liveKey, raw: f });
    const w = await h.call("POST", "/v1/workflows", {
      token: u.liveKey,
      body: { product_code: "education", name: "keeps", reference_document_ids: [ref.body.id] },
    });
    await drain(h);
    expect((await h.call("DELETE", `/v1/reference-documents/${ref.body.id}`, { token: u.liveKey })).status).toBe(200);
    const r = await h.call("POST", `/v1/workflows/${w.body.id}/runs`, { token: u.liveKey, body: { input_documents: [essay] } });
    await drain(h);
    const run = (await h.call("GET", `/v1/runs/${r.body.id}`, { token: u.liveKey })).body;
    expect(run.status).toBe("succeeded");
    expect(run.output.criteria.map((c: any) => c.title)).toEqual(expect.arrayContaining(["Thesis", "Evidence", "Counterargument"]));
  });

  test("succeeded → refunded by an admin; twice is 409; members cannot", async () => {
    const admin = await signUp(h, undefined, "admin");
    const r = await h.call("POST", `/v1/workflows/${wf}/runs`, { token: u.liveKey, body: { input_documents: [essay] } });
    await drain(h);
    const before = (await getBalance(h.ctx.db, u.workspaceId)).pro_credits;
    expect((await h.call("POST", `/v1/admin/runs/${r.body.id}/refund`, { token: u.session })).status).toBe(403);
    expect((await h.call("POST", `/v1/admin/runs/${r.body.id}/refund`, { token: admin.liveKey })).body.error.code).toBe("session_required");
    const refunded = await h.call("POST", `/v1/admin/runs/${r.body.id}/refund`, { token: admin.session });
    expect(refunded.status).toBe(200);
    expect(refunded.body.status).toBe("refunded");
    expect((await getBalance(h.ctx.db, u.workspaceId)).pro_credits).toBeCloseTo(before + r.body.quoted_credits, 6);
    const twice = await h.call("POST", `/v1/admin/runs/${r.body.id}/refund`, { token: admin.session });
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe("invalid_state");
    expect((await h.call("GET", `/v1/runs/${r.body.id}/output`, { token: u.liveKey })).status).toBe(200);
    expect(await ledgerSum(h, u.workspaceId)).toBeCloseTo((await getBalance(h.ctx.db, u.workspaceId)).pro_credits, 6);
  });

  test("test-key runs succeed with stub output and never touch the ledger", async () => {
    const rows = async () => (await h.ctx.db.select().from(creditLedger).where(eq(creditLedger.workspaceId, u.workspaceId))).length;
    const before = await rows();
    const r = await h.call("POST", `/v1/workflows/${wf}/runs`, { token: u.testKey, body: { input_documents: [essay] } });
    expect(r.body.quoted_credits).toBeGreaterThan(0);
    await drain(h);
    const run = (await h.call("GET", `/v1/runs/${r.body.id}`, { token: u.testKey })).body;
    expect(run.status).toBe("succeeded");
    expect(run.charged_credits).toBe(0);
    expect(run.usage.model).toBe("test");
    expect(await rows()).toBe(before);
  });
});

describe("credits", () => {
  test("bonus credits are spent first; the ledger always sums to the balance", async () => {
    const hc = await harness({ ASSAY_INITIAL_CREDITS: "10" });
    const v = await signUp(hc);
    const admin = await signUp(hc, undefined, "admin");
    const grant = await hc.call("POST", "/v1/admin/credits", { token: admin.session, body: { email: v.email, amount: 0.5, kind: "bonus" } });
    expect(grant.status).toBe(200);
    expect(grant.body).toEqual({ pro_credits: 10.5, bonus_pro: 0.5, regular_pro: 10, basic_credits_excluded: true });
    const w = await hc.call("POST", "/v1/workflows", { token: v.liveKey, body: { product_code: "general", name: "g" } });
    const d = await doc(hc, v, "a.txt", "x".repeat(2500));
    const r = await hc.call("POST", `/v1/workflows/${w.body.id}/runs`, { token: v.liveKey, body: { input_documents: [d] } });
    const q = r.body.quoted_credits;
    expect(q).toBeGreaterThan(0.5);
    const held = await getBalance(hc.ctx.db, v.workspaceId);
    expect(held.bonus_pro).toBe(0);
    expect(held.regular_pro).toBeCloseTo(10.5 - q, 6);
    await hc.call("POST", `/v1/runs/${r.body.id}/cancel`, { token: v.liveKey });
    expect(await getBalance(hc.ctx.db, v.workspaceId)).toMatchObject({ bonus_pro: 0.5, regular_pro: 10 });
    expect(await ledgerSum(hc, v.workspaceId)).toBeCloseTo(10.5, 6);
    const debit = await hc.call("POST", "/v1/admin/credits", { token: admin.session, body: { workspace_id: v.workspaceId, amount: -100 } });
    expect(debit.status).toBe(400);
    const bal = await hc.call("GET", "/v1/usage/balance", { token: v.liveKey });
    expect(bal.body).toEqual({ pro_credits: 10.5, bonus_pro: 0.5, regular_pro: 10, basic_credits_excluded: true });
    expect(await checkBalances(hc.ctx.db)).toEqual([]);
  });

  test("the balance rows agree with the ledger after every kind of movement, and a drift is reported", async () => {
    // The shared harness has seen holds, charges, releases, cancels, refunds and grants by now.
    await drain(h);
    expect(await checkBalances(h.ctx.db)).toEqual([]);
    expect((await getBalance(h.ctx.db, u.workspaceId)).pro_credits).toBeCloseTo(await ledgerSum(h, u.workspaceId), 6);
    const drift = (by: number) =>
      tx(h.ctx.db, (t) =>
        t
          .update(creditBalances)
          .set({ balance: sql`${creditBalances.balance} + ${by}` })
          .where(and(eq(creditBalances.workspaceId, u.workspaceId), eq(creditBalances.kind, "regular"))),
      );
    await drift(1);
    expect(await checkBalances(h.ctx.db)).toEqual([expect.objectContaining({ workspace_id: u.workspaceId, kind: "regular" })]);
    await drift(-1);
  });
});

describe("idempotency", () => {
  test("same key and body replay the first answer; a different body is 409 conflict", async () => {
    const headers = { "idempotency-key": crypto.randomUUID() };
    const a = await h.call("POST", `/v1/workflows/${wf}/runs`, {
      token: u.liveKey,
      headers,
      body: { input_documents: [essay], metadata: { a: 1, b: 2 } },
    });
    const b = await h.call("POST", `/v1/workflows/${wf}/runs`, {
      token: u.liveKey,
      headers,
      body: { metadata: { b: 2, a: 1 }, input_documents: [essay] },
    });
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(b.body.id).toBe(a.body.id);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(a.headers.get("idempotent-replayed")).toBeNull();
    const c = await h.call("POST", `/v1/workflows/${wf}/runs`, { token: u.liveKey, headers, body: { input_documents: [essay] } });
    expect(c.status).toBe(409);
    expect(c.body.error.code).toBe("conflict");
    // Scoped per key: another key may use the same Idempotency-Key.
    const other = await h.call("POST", `/v1/workflows/${wf}/runs`, { token: u.testKey, headers, body: { input_documents: [essay] } });
    expect(other.status).toBe(202);
    expect(other.body.id).not.toBe(a.body.id);
  });

  test("two concurrent requests with one key create one run", async () => {
    const headers = { "idempotency-key": crypto.randomUUID() };
    const count = async () => (await h.ctx.db.select().from(runs)).length;
    const before = await count();
    const replies = await Promise.all(
      Array.from({ length: 5 }, () => h.call("POST", `/v1/workflows/${wf}/runs`, { token: u.liveKey, headers, body: { input_documents: [essay] } })),
    );
    expect(await count()).toBe(before + 1);
    const ids = new Set(replies.filter((r) => r.status === 202).map((r) => r.body.id));
    expect(ids.size).toBe(1);
    for (const r of replies) if (r.status !== 202) expect(r.body.error.code).toBe("idempotency_in_progress");
  });
});

describe("sync mode", () => {
  test("with the scheduler running, mode sync answers 200 with the finished run", async () => {
    const hs = await harness({ ASSAY_SYNC_TIMEOUT_MS: "20000" });
    const v = await signUp(hs);
    const { runWorker } = await import("../../src/modules/runs/worker");
    hs.ctx.runtime.scheduler.add(runWorker(hs.ctx)).start();
    try {
      const w = await hs.call("POST", "/v1/workflows", { token: v.liveKey, body: { product_code: "general", name: "s", default_mode: "sync" } });
      const d = await doc(hs, v, "a.txt", ESSAY);
      const r = await hs.call("POST", `/v1/workflows/${w.body.id}/runs`, { token: v.liveKey, body: { input_documents: [d] } });
      expect(r.status).toBe(200);
      expect(r.body.status).toBe("succeeded");
      expect(r.body.mode).toBe("sync");
    } finally {
      await hs.ctx.runtime.scheduler.stop();
    }
  });

  test("when time runs out: 202 with the run as it stands", async () => {
    const hs = await harness({ ASSAY_SYNC_TIMEOUT_MS: "200" });
    const v = await signUp(hs);
    const w = await hs.call("POST", "/v1/workflows", { token: v.liveKey, body: { product_code: "general", name: "s" } });
    const d = await doc(hs, v, "a.txt", ESSAY);
    const r = await hs.call("POST", `/v1/workflows/${w.body.id}/runs`, { token: v.liveKey, body: { input_documents: [d], mode: "sync" } });
    expect(r.status).toBe(202);
    expect(r.body.status).toBe("queued");
  });

  test("sync disabled (ASSAY_SYNC_TIMEOUT_MS=0): 409 use_async, nothing created", async () => {
    const hs = await harness({ ASSAY_SYNC_TIMEOUT_MS: "0" });
    const v = await signUp(hs);
    const w = await hs.call("POST", "/v1/workflows", { token: v.liveKey, body: { product_code: "general", name: "s" } });
    const d = await doc(hs, v, "a.txt", ESSAY);
    const r = await hs.call("POST", `/v1/workflows/${w.body.id}/runs`, { token: v.liveKey, body: { input_documents: [d], mode: "sync" } });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe("use_async");
    expect(await hs.ctx.db.select().from(runs)).toHaveLength(0);
  });
});

describe("restart recovery", () => {
  test("a run left running by a dead process is re-queued and finished by the next one; after 3 attempts it fails", async () => {
    const r = await h.call("POST", `/v1/workflows/${wf}/runs`, { token: u.liveKey, body: { input_documents: [essay] } });
    // Simulate a process that claimed the run and died: running, lease expired.
    await tx(h.ctx.db, (t) =>
      t
        .update(runs)
        .set({ status: "running", attempts: 1, startedAt: Date.now() - 120_000, lockedUntil: Date.now() - 1 })
        .where(eq(runs.id, r.body.id)),
    );
    const { createContext } = await import("../../src/create-context");
    const next = await createContext(h.ctx.config);
    expect((await recoverRuns(next)).requeued).toBeGreaterThanOrEqual(1);
    // Back to waiting as if never started: started_at belongs to the attempt that will run it.
    expect((await h.call("GET", `/v1/runs/${r.body.id}`, { token: u.liveKey })).body).toMatchObject({ status: "queued", started_at: null });
    for (let i = 0; i < 20 && ((await indexNext(next)) || (await runTick(next))); i++);
    expect((await h.call("GET", `/v1/runs/${r.body.id}`, { token: u.liveKey })).body.status).toBe("succeeded");

    const dead = await h.call("POST", `/v1/workflows/${wf}/runs`, { token: u.liveKey, body: { input_documents: [essay] } });
    const before = (await getBalance(h.ctx.db, u.workspaceId)).pro_credits;
    await tx(h.ctx.db, (t) =>
      t
        .update(runs)
        .set({ status: "running", attempts: 3, lockedUntil: Date.now() - 1 })
        .where(eq(runs.id, dead.body.id)),
    );
    expect((await recoverRuns(next)).failed).toBe(1);
    const failed = (await h.call("GET", `/v1/runs/${dead.body.id}`, { token: u.liveKey })).body;
    expect(failed.status).toBe("failed");
    expect(failed.error.code).toBe("worker_crashed");
    expect((await getBalance(h.ctx.db, u.workspaceId)).pro_credits).toBeCloseTo(before + dead.body.quoted_credits, 6);
  });

  test("a worker that lost its run to recovery does not finish it: only the attempt that runs it may", async () => {
    const r = await h.call("POST", `/v1/workflows/${wf}/runs`, { token: u.liveKey, body: { input_documents: [essay] } });
    await tx(h.ctx.db, (t) =>
      t
        .update(runs)
        .set({ status: "running", attempts: 2, lockedUntil: Date.now() + 60_000 })
        .where(eq(runs.id, r.body.id)),
    );
    expect(await finishRun(h.ctx, r.body.id, "running", "failed", { error: { code: "x", message: "stale worker" } }, 1)).toBeNull();
    expect((await h.call("GET", `/v1/runs/${r.body.id}`, { token: u.liveKey })).body.status).toBe("running");
    expect((await finishRun(h.ctx, r.body.id, "running", "canceled", {}, 2))?.status).toBe("canceled");
  });
});

describe("caps", () => {
  test("a workspace has at most 1000 runs waiting; the next is 429 with Retry-After, and nothing is held for it", async () => {
    const hq = await harness({ ASSAY_INITIAL_CREDITS: "100000", ASSAY_DEFAULT_RPM: "100000" });
    const v = await signUp(hq);
    const w = await hq.call("POST", "/v1/workflows", { token: v.liveKey, body: { product_code: "general", name: "cap" } });
    const d = await doc(hq, v, "a.txt", "a short input");
    const create = () => hq.call("POST", `/v1/workflows/${w.body.id}/runs`, { token: v.liveKey, body: { input_documents: [d] } });
    for (let i = 0; i < 1000; i++) expect((await create()).status).toBe(202);
    const balance = (await getBalance(hq.ctx.db, v.workspaceId)).pro_credits;
    const over = await create();
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe("rate_limited");
    expect(over.headers.get("retry-after")).toBe("60");
    expect((await getBalance(hq.ctx.db, v.workspaceId)).pro_credits).toBe(balance);
    const [first] = await hq.ctx.db.select().from(runs).where(eq(runs.workspaceId, v.workspaceId)).limit(1);
    await hq.call("POST", `/v1/runs/${first?.id}/cancel`, { token: v.liveKey });
    expect((await create()).status).toBe(202);
  }, 30_000);
});

describe("fair claims", () => {
  test("500 queued runs of workspace A: workspace B's single run starts within the next two claims", async () => {
    const hf = await harness({ ASSAY_INITIAL_CREDITS: "100000" });
    const [a, b] = [await signUp(hf), await signUp(hf)];
    const flood = async (who: User, n: number) => {
      const w = await hf.call("POST", "/v1/workflows", { token: who.liveKey, body: { product_code: "general", name: "fair" } });
      const d = await doc(hf, who, "a.txt", "a short input to evaluate");
      const ids: string[] = [];
      for (let i = 0; i < n; i++)
        ids.push((await hf.call("POST", `/v1/workflows/${w.body.id}/runs`, { token: who.liveKey, body: { input_documents: [d] } })).body.id);
      return ids;
    };
    await flood(a, 500);
    const [single] = await flood(b, 1);
    const status = async () => (await hf.ctx.db.select({ status: runs.status }).from(runs).where(eq(runs.id, single)).limit(1))[0]?.status;
    expect(await runTick(hf.ctx)).toBe(true);
    if ((await status()) === "queued") expect(await runTick(hf.ctx)).toBe(true);
    expect(await status()).not.toBe("queued");
    // And A is served again right after: round-robin, not B-first forever.
    const startedA = async () =>
      (await hf.ctx.db.select().from(runs).where(eq(runs.workspaceId, a.workspaceId))).filter((x) => x.startedAt !== null).length;
    const before = await startedA();
    expect(await runTick(hf.ctx)).toBe(true);
    expect(await startedA()).toBe(before + 1);
  });
});

describe("listing", () => {
  test("filters by workflow and status, newest first, with cursors", async () => {
    const all = await h.call("GET", "/v1/runs?limit=100", { token: u.liveKey });
    expect(all.body.data.length).toBeGreaterThan(5);
    const times = all.body.data.map((r: any) => r.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    const canceled = await h.call("GET", "/v1/runs?status=canceled", { token: u.liveKey });
    expect(canceled.body.data.length).toBeGreaterThan(0);
    expect(canceled.body.data.every((r: any) => r.status === "canceled")).toBe(true);
    const mine = await h.call("GET", `/v1/runs?workflow_id=${wf}&limit=2`, { token: u.liveKey });
    expect(mine.body.data.every((r: any) => r.workflow_id === wf)).toBe(true);
    expect(mine.body.next_cursor).toBeString();
    const page2 = await h.call("GET", `/v1/runs?workflow_id=${wf}&limit=2&cursor=${mine.body.next_cursor}`, { token: u.liveKey });
    expect(page2.body.data[0].id).not.toBe(mine.body.data[1].id);
    expect((await h.call("GET", "/v1/runs?status=lost", { token: u.liveKey })).body.error.param).toBe("status");
    const v = await signUp(h);
    expect((await h.call("GET", "/v1/runs", { token: v.liveKey })).body.data).toEqual([]);
    expect((await h.call("GET", `/v1/runs/${all.body.data[0].id}`, { token: v.liveKey })).status).toBe(404);
  });

  test("test and live runs stay apart: a key sees only its own mode's runs, a session both, filtered by mode", async () => {
    const hm = await harness();
    const m = await signUp(hm);
    const w = await hm.call("POST", "/v1/workflows", { token: m.liveKey, body: { product_code: "general", name: "modes" } });
    const d = await doc(hm, m, "a.txt", "some text to evaluate");
    const live = (await hm.call("POST", `/v1/workflows/${w.body.id}/runs`, { token: m.liveKey, body: { input_documents: [d] } })).body;
    const test_ = (await hm.call("POST", `/v1/workflows/${w.body.id}/runs`, { token: m.testKey, body: { input_documents: [d] } })).body;
    expect([live.livemode, test_.livemode]).toEqual([true, false]);
    const ids = async (token: string, query = "") => (await hm.call("GET", `/v1/runs${query}`, { token })).body.data.map((r: any) => r.id);
    expect(await ids(m.testKey)).toEqual([test_.id]);
    expect(await ids(m.liveKey)).toEqual([live.id]);
    expect(await ids(m.testKey, "?mode=live")).toEqual([]); // a key's own mode always applies
    expect((await ids(m.session)).sort()).toEqual([test_.id, live.id].sort()); // created in one millisecond: either order
    expect(await ids(m.session, "?mode=test")).toEqual([test_.id]);
    expect(await ids(m.session, "?mode=live")).toEqual([live.id]);
    expect((await hm.call("GET", "/v1/runs?mode=sandbox", { token: m.session })).body.error.param).toBe("mode");
    // Another mode's run is not found: not readable, not cancelable, no output.
    for (const [token, other] of [
      [m.testKey, live.id],
      [m.liveKey, test_.id],
    ]) {
      expect((await hm.call("GET", `/v1/runs/${other}`, { token })).status).toBe(404);
      expect((await hm.call("POST", `/v1/runs/${other}/cancel`, { token })).status).toBe(404);
      expect((await hm.call("GET", `/v1/runs/${other}/output`, { token })).status).toBe(404);
    }
    expect((await hm.call("GET", `/v1/runs/${live.id}`, { token: m.session })).status).toBe(200);
    expect((await hm.call("POST", `/v1/runs/${test_.id}/cancel`, { token: m.session })).body.status).toBe("canceled");
    expect((await hm.call("POST", `/v1/runs/${live.id}/cancel`, { token: m.liveKey })).body.status).toBe("canceled");
  });
});

describe("legacy multipart form", () => {
  test("files[] become documents extracted inline; metadata and input_documents are JSON strings", async () => {
    const f = new FormData();
    f.append("files[]", new File([ESSAY], "essay-inline.txt", { type: "text/plain" }));
    f.set("metadata", JSON.stringify({ via: "multipart" }));
    f.set("input_documents", JSON.stringify([essay]));
    const r = await h.call("POST", `/v1/workflows/${wf}/runs`, { token: u.liveKey, raw: f });
    expect(r.status).toBe(202);
    expect(r.body.input_documents).toHaveLength(2);
    expect(r.body.input_documents[0]).toBe(essay);
    expect(r.body.metadata).toEqual({ via: "multipart" });
  });

  test("the same parts with another boundary and the same Idempotency-Key replay the first answer", async () => {
    const headers = { "idempotency-key": crypto.randomUUID() };
    const form = () => {
      const f = new FormData();
      f.append("files[]", new File([ESSAY], "essay-again.txt", { type: "text/plain" }));
      f.set("metadata", JSON.stringify({ try: 1 }));
      return f;
    };
    const a = await h.call("POST", `/v1/workflows/${wf}/runs`, { token: u.liveKey, headers, raw: form() });
    const b = await h.call("POST", `/v1/workflows/${wf}/runs`, { token: u.liveKey, headers, raw: form() });
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(b.body.id).toBe(a.body.id);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
  });

  test("a request that fails keeps none of its inline files", async () => {
    const count = async () => (await h.ctx.db.select().from(documents)).length;
    const before = await count();
    const f = () => {
      const form = new FormData();
      form.append("files[]", new File([ESSAY], "x.txt", { type: "text/plain" }));
      return form;
    };
    expect((await h.call("POST", "/v1/workflows/wf_missing/runs", { token: u.liveKey, raw: f() })).status).toBe(404);
    const poor = await harness({ ASSAY_INITIAL_CREDITS: "0" });
    const p = await signUp(poor);
    const w = await poor.call("POST", "/v1/workflows", { token: p.liveKey, body: { product_code: "general", name: "x" } });
    const r = await poor.call("POST", `/v1/workflows/${w.body.id}/runs`, { token: p.liveKey, raw: f() });
    expect(r.status).toBe(402);
    expect(await poor.ctx.db.select().from(documents)).toHaveLength(0);
    expect(await count()).toBe(before);
  });

  test("over 4 MB in all is 413 payload_too_large", async () => {
    const f = new FormData();
    f.append("files[]", new File(["a".repeat(4 * 1024 * 1024 + 10)], "big.txt", { type: "text/plain" }));
    const r = await h.call("POST", `/v1/workflows/${wf}/runs`, { token: u.liveKey, raw: f });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe("payload_too_large");
  });

  test("a corrupt inline file is 422 unprocessable_document", async () => {
    const f = new FormData();
    f.append("files[]", new File([readFileSync(path.join(CORPUS, "bad/tika-testWORD-truncated.docx"))], "cv.docx"));
    const r = await h.call("POST", `/v1/workflows/${wf}/runs`, { token: u.liveKey, raw: f });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("unprocessable_document");
  });
});

describe("usage", () => {
  test("totals match the ledger, by workflow with names; test-key runs are left out", async () => {
    const report = await h.call("GET", "/v1/usage?group_by=workflow", { token: u.liveKey });
    expect(report.status).toBe(200);
    const month = new Date().toISOString().slice(0, 7);
    expect(report.body.period.from).toBe(`${month}-01`);
    const live = (await h.ctx.db.select().from(runs).where(eq(runs.workspaceId, u.workspaceId))).filter((r) => r.keyMode === "live");
    expect(report.body.total_runs).toBe(live.length);
    const charges = (await h.ctx.db.select().from(creditLedger).where(eq(creditLedger.workspaceId, u.workspaceId)))
      .filter((r) => r.reason === "charge" || r.reason === "refund")
      .reduce((s, r) => s - r.delta, 0);
    expect(report.body.total_credits).toBeCloseTo(charges, 6);
    const essays = report.body.by_workflow.find((w: any) => w.workflow_id === wf);
    expect(essays.name).toBe("Essays");
    expect(report.body.by_workflow.reduce((s: number, w: any) => s + w.runs, 0)).toBe(report.body.total_runs);
    const empty = await h.call("GET", "/v1/usage?from=2020-01-01&to=2020-01-31", { token: u.liveKey });
    expect(empty.body).toEqual({ period: { from: "2020-01-01", to: "2020-01-31" }, total_runs: 0, total_credits: 0, by_workflow: [] });
    expect((await h.call("GET", "/v1/usage?from=2026-13-01", { token: u.liveKey })).body.error.param).toBe("from");
    expect((await h.call("GET", "/v1/usage?from=2026-02-01&to=2026-01-01", { token: u.liveKey })).status).toBe(400);
  });

  test("a missing bound of the period comes from the given one, never from today", async () => {
    const period = async (q: string) => (await h.call("GET", `/v1/usage?${q}`, { token: u.liveKey })).body.period;
    expect(await period("to=2020-02-10")).toEqual({ from: "2020-02-01", to: "2020-02-10" });
    expect(await period("from=2020-02-10")).toEqual({ from: "2020-02-10", to: "2020-02-29" });
    expect(await period("from=2099-12-31")).toEqual({ from: "2099-12-31", to: "2099-12-31" });
    const bad = await h.call("GET", "/v1/usage?to=2020-02-30", { token: u.liveKey });
    expect(bad.body.error.param).toBe("to");
  });
});
