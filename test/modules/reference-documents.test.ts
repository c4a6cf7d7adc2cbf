// Reference documents, on the local and the S3 store: presigned and multipart creation, background indexing to ready/failed, events, lists, deletion, restarts.
import { beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { and, eq, sql } from "drizzle-orm";
import { createContext } from "../../src/create-context";
import { closeDb, exec, tx } from "../../src/db/client";
import { chunks, documents, events, jobs, referenceDocuments } from "../../src/db/schema";
import type { Clock } from "../../src/lib/clock";
import { claimJob } from "../../src/modules/reference-documents/jobs";
import { getReadyReferenceDocuments, INDEX_JOB, referenceStatuses } from "../../src/modules/reference-documents/service";
import { INDEX_LOCK_MS, indexingWorker, indexNext } from "../../src/modules/reference-documents/worker";
import { objectStore } from "../../src/storage";
import { corpusFile, type Harness, harness, scenarios, signUp, TestClock } from "../helpers";
import { BACKENDS, storeBackend } from "../s3-server";

for (const backend of BACKENDS) {
  describe(`${backend} object store`, () => {
    const store = storeBackend(backend);
    /** A harness on this describe's object store. */
    const mk = (env: Record<string, string> = {}, c?: Clock) => harness({ ...store.env(), ...env }, c);
    let h: Harness;
    let u: Awaited<ReturnType<typeof signUp>>;
    const clock = new TestClock(store.clockStart());

    beforeAll(async () => {
      h = await mk({}, clock);
      u = await signUp(h);
    });

    const file = corpusFile;

    /** Runs the indexing worker until it finds nothing due. */
    async function drain(ctx = h.ctx) {
      let n = 0;
      while (await indexNext(ctx)) n++;
      return n;
    }

    function multipart(name: string | null, rel: string | null, filename?: string, type = "application/octet-stream") {
      const form = new FormData();
      if (name !== null) form.set("name", name);
      if (rel !== null) form.set("file", new File([file(rel)], filename ?? path.basename(rel), { type }));
      return form;
    }

    async function createMultipart(name: string, rel: string, hh = h, token = u.liveKey) {
      const r = await hh.call("POST", "/v1/reference-documents", { token, raw: multipart(name, rel) });
      if (r.status !== 201) console.error(r.text);
      expect(r.status).toBe(201);
      return r.body;
    }

    const jobsOf = async (refId: string, hh = h) =>
      hh.ctx.db
        .select()
        .from(jobs)
        .where(and(eq(jobs.kind, INDEX_JOB), eq(jobs.subjectId, refId)));
    const eventsOf = async (refId: string) => h.ctx.db.select().from(events).where(eq(events.subjectId, refId));

    describe("presigned form", () => {
      test("POST → PUT → complete → indexing → ready, with one reference_document.ready event", async () => {
        const pdf = file("pdf/pdfjs-file-pdfjs-test.pdf");
        const created = await h.call("POST", "/v1/reference-documents", {
          token: u.liveKey,
          body: { name: "Testing handbook", filename: "handbook.pdf", mime_type: "application/pdf", size_bytes: pdf.length },
        });
        expect(created.status).toBe(201);
        expect(created.body).toMatchObject({
          object: "reference_document",
          name: "Testing handbook",
          status: "processing",
          upload_content_type: "application/pdf",
        });
        expect(created.body.id).toMatch(/^ref_/);
        expect(created.body.upload_url).toStartWith(store.urlPrefix());
        expect(Date.parse(created.body.expires_at) - clock.now()).toBe(15 * 60_000);
        expect(created.body.failure_reason).toBeUndefined();
        const id = created.body.id;

        const early = await h.call("POST", `/v1/reference-documents/${id}/complete`, { token: u.liveKey });
        expect(early.status).toBe(409);
        expect(early.body.error.code).toBe("invalid_state");
        expect(await jobsOf(id)).toHaveLength(0);

        expect(await store.put(h, created.body.upload_url, pdf, "application/pdf")).toBe(200);
        const done = await h.call("POST", `/v1/reference-documents/${id}/complete`, { token: u.liveKey });
        expect(done.status).toBe(200);
        expect(done.body).toEqual({
          id,
          object: "reference_document",
          name: "Testing handbook",
          status: "processing",
          created_at: created.body.created_at,
        });
        const again = await h.call("POST", `/v1/reference-documents/${id}/complete`, { token: u.liveKey });
        expect(again.body.status).toBe("processing");
        expect(await jobsOf(id)).toHaveLength(1);

        expect(await drain()).toBe(1);
        const got = await h.call("GET", `/v1/reference-documents/${id}`, { token: u.liveKey });
        expect(got.body).toEqual({
          id,
          object: "reference_document",
          name: "Testing handbook",
          status: "ready",
          created_at: created.body.created_at,
        });
        expect((await jobsOf(id))[0]).toMatchObject({ status: "done", attempts: 1 });

        const evts = await eventsOf(id);
        expect(evts).toHaveLength(1);
        expect(evts[0]).toMatchObject({ type: "reference_document.ready", workspaceId: u.workspaceId, data: { reference_document: got.body } });

        const ref = (await h.ctx.db.select().from(referenceDocuments).where(eq(referenceDocuments.id, id)).limit(1))[0]!;
        const doc = (await h.ctx.db.select().from(documents).where(eq(documents.id, ref.documentId)).limit(1))[0]!;
        expect(doc).toMatchObject({ status: "extracted", pageCount: 5, mimeType: "application/pdf" });
        expect((await h.ctx.db.select().from(chunks).where(eq(chunks.documentId, doc.id))).length).toBeGreaterThan(0);

        // Complete after ready changes nothing and queues nothing.
        expect((await h.call("POST", `/v1/reference-documents/${id}/complete`, { token: u.liveKey })).body.status).toBe("ready");
        expect(await drain()).toBe(0);
        expect(await eventsOf(id)).toHaveLength(1);

        const ready = await getReadyReferenceDocuments(h.ctx.db, u.workspaceId, [id, "ref_missing"]);
        expect(ready).toHaveLength(1);
        expect(ready[0]).toMatchObject({ id, name: "Testing handbook", documentId: doc.id, content: { format: "pdf", page_count: 5 } });
        expect(ready[0].content.text).toContain("Mozilla automated testing");
      });

      scenarios(
        () => h,
        [
          {
            name: "name is required",
            method: "POST",
            path: "/v1/reference-documents",
            token: () => u.liveKey,
            body: { filename: "a.pdf" },
            status: 400,
            expect: { error: { code: "validation_error", param: "name" } },
          },
          {
            name: "name over 200",
            method: "POST",
            path: "/v1/reference-documents",
            token: () => u.liveKey,
            body: { name: "x".repeat(201), filename: "a.pdf" },
            status: 400,
            expect: { error: { param: "name" } },
          },
          {
            name: "filename is required",
            method: "POST",
            path: "/v1/reference-documents",
            token: () => u.liveKey,
            body: { name: "a" },
            status: 400,
            expect: { error: { param: "filename" } },
          },
          {
            name: "size_bytes over 50 MB",
            method: "POST",
            path: "/v1/reference-documents",
            token: () => u.liveKey,
            body: { name: "a", filename: "a.pdf", size_bytes: 52428801 },
            status: 413,
            expect: { error: { code: "payload_too_large" } },
          },
          {
            name: "malformed JSON",
            method: "POST",
            path: "/v1/reference-documents",
            token: () => u.liveKey,
            raw: "{nope",
            headers: { "content-type": "application/json" },
            status: 400,
            expect: { error: { code: "invalid_json" } },
          },
          {
            name: "neither JSON nor multipart",
            method: "POST",
            path: "/v1/reference-documents",
            token: () => u.liveKey,
            raw: "name=a",
            headers: { "content-type": "text/plain" },
            status: 415,
            expect: { error: { code: "unsupported_media_type" } },
          },
          {
            name: "no credentials (before the body is looked at)",
            method: "POST",
            path: "/v1/reference-documents",
            raw: "x",
            headers: { "content-type": "text/plain" },
            status: 401,
          },
          {
            name: "multipart without name",
            method: "POST",
            path: "/v1/reference-documents",
            token: () => u.liveKey,
            raw: multipart(null, "txt/tika-udhr-known.txt"),
            status: 400,
            expect: { error: { param: "name" } },
          },
          {
            name: "multipart without file",
            method: "POST",
            path: "/v1/reference-documents",
            token: () => u.liveKey,
            raw: multipart("n", null),
            status: 400,
            expect: { error: { param: "file" } },
          },
          {
            name: "multipart name over 200",
            method: "POST",
            path: "/v1/reference-documents",
            token: () => u.liveKey,
            raw: multipart("x".repeat(201), "txt/tika-udhr-known.txt"),
            status: 400,
            expect: { error: { param: "name" } },
          },
          {
            name: "unknown reference",
            method: "GET",
            path: "/v1/reference-documents/ref_nope",
            token: () => u.liveKey,
            status: 404,
            expect: { error: { code: "not_found" } },
          },
        ],
      );

      test("a multipart file over 50 MB is 413", async () => {
        const form = new FormData();
        form.set("name", "huge");
        form.set("file", new File([new Uint8Array(52_428_801)], "huge.txt", { type: "text/plain" }));
        const r = await h.call("POST", "/v1/reference-documents", { token: u.liveKey, raw: form });
        expect(r.status).toBe(413);
        expect(r.body.error.code).toBe("payload_too_large");
      });
    });

    describe("multipart form", () => {
      test("indexing is queued at once; complete is accepted and returns it; the worker makes it ready", async () => {
        const created = await createMultipart("Planets", "json/corpora-planets.json");
        expect(created).toEqual({
          id: expect.stringMatching(/^ref_/),
          object: "reference_document",
          name: "Planets",
          status: "processing",
          created_at: expect.any(String),
        });
        expect(await jobsOf(created.id)).toHaveLength(1);
        const complete = await h.call("POST", `/v1/reference-documents/${created.id}/complete`, { token: u.liveKey });
        expect(complete.status).toBe(200);
        expect(complete.body).toEqual(created);
        expect(await jobsOf(created.id)).toHaveLength(1);
        await drain();
        expect((await h.call("GET", `/v1/reference-documents/${created.id}`, { token: u.liveKey })).body.status).toBe("ready");
        expect(await eventsOf(created.id)).toHaveLength(1);
      });

      test("a corrupt file ends failed with a readable failure_reason, and no event", async () => {
        const created = await createMultipart("Broken", "bad/truncated-pdfjs-wikipedia.pdf");
        await drain();
        const got = await h.call("GET", `/v1/reference-documents/${created.id}`, { token: u.liveKey });
        expect(got.body).toMatchObject({ status: "failed", failure_reason: "The file could not be read: the PDF file is corrupt or truncated" });
        expect((await jobsOf(created.id))[0].status).toBe("done");
        expect(await eventsOf(created.id)).toHaveLength(0);
        expect((await referenceStatuses(h.ctx.db, u.workspaceId, [created.id])).get(created.id)).toEqual({
          status: "failed",
          failureReason: got.body.failure_reason,
        });
      });

      test("an unsupported format ends failed saying so", async () => {
        const form = new FormData();
        form.set("name", "Image");
        form.set("file", new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0])], "scan.png", { type: "image/png" }));
        const created = await h.call("POST", "/v1/reference-documents", { token: u.liveKey, raw: form });
        await drain();
        const got = await h.call("GET", `/v1/reference-documents/${created.body.id}`, { token: u.liveKey });
        expect(got.body.status).toBe("failed");
        expect(got.body.failure_reason).toStartWith("This file format is not supported");
        // Its text: 409 with why, naming the reference, never the document behind it. (Before: "Document doc_… has no
        // text yet: complete its upload first".)
        const text = await h.call("GET", `/v1/reference-documents/${created.body.id}/text`, { token: u.liveKey });
        expect([text.status, text.body.error.code]).toEqual([409, "invalid_state"]);
        expect(text.body.error.message).toStartWith(`Reference document ${created.body.id} failed: This file format is not supported`);
        expect(text.body.error.message).not.toContain("doc_");
      });
    });

    describe("lists, reads and deletion", () => {
      test("list pages newest first with limit and cursor, and leaves deleted ones out", async () => {
        const hh = await mk({}, new TestClock(store.clockStart()));
        const v = await signUp(hh);
        const ids: string[] = [];
        for (const name of ["one", "two", "three"]) {
          ids.push((await createMultipart(name, "txt/tika-udhr-known.txt", hh, v.liveKey)).id);
          (hh.clock as TestClock).advance(1000);
        }
        const p1 = await hh.call("GET", "/v1/reference-documents?limit=1", { token: v.liveKey });
        expect(p1.status).toBe(200);
        expect(p1.body.data.map((r: any) => r.name)).toEqual(["three"]);
        expect(p1.body.next_cursor).toBeString();
        const p2 = await hh.call("GET", `/v1/reference-documents?limit=1&cursor=${encodeURIComponent(p1.body.next_cursor)}`, { token: v.liveKey });
        expect(p2.body.data.map((r: any) => r.name)).toEqual(["two"]);
        await hh.call("DELETE", `/v1/reference-documents/${ids[0]}`, { token: v.liveKey });
        const p3 = await hh.call("GET", `/v1/reference-documents?limit=1&cursor=${encodeURIComponent(p2.body.next_cursor)}`, { token: v.liveKey });
        expect(p3.body).toEqual({ data: [], next_cursor: null });
        expect((await hh.call("GET", "/v1/reference-documents?limit=101", { token: v.liveKey })).status).toBe(400);
        expect((await hh.call("GET", "/v1/reference-documents?cursor=forged", { token: v.liveKey })).body.error.param).toBe("cursor");
        // Another workspace sees none of them.
        const w = await signUp(hh);
        expect((await hh.call("GET", "/v1/reference-documents", { token: w.liveKey })).body).toEqual({ data: [], next_cursor: null });
      });

      test("DELETE removes the pointer only: the original document and its bytes stay", async () => {
        const created = await createMultipart("Doomed", "md/tika-testMARKDOWN.md");
        await drain();
        const del = await h.call("DELETE", `/v1/reference-documents/${created.id}`, { token: u.liveKey });
        expect(del.status).toBe(200);
        expect(del.body).toEqual({ id: created.id, object: "reference_document", deleted: true });
        expect((await h.call("GET", `/v1/reference-documents/${created.id}`, { token: u.liveKey })).status).toBe(404);
        expect((await h.call("DELETE", `/v1/reference-documents/${created.id}`, { token: u.liveKey })).status).toBe(404);
        const ref = (await h.ctx.db.select().from(referenceDocuments).where(eq(referenceDocuments.id, created.id)).limit(1))[0]!;
        const doc = (await h.ctx.db.select().from(documents).where(eq(documents.id, ref.documentId)).limit(1))[0]!;
        expect(doc.status).toBe("extracted");
        expect(await objectStore(h.ctx).stat(doc.objectKey)).not.toBeNull();
        expect(await getReadyReferenceDocuments(h.ctx.db, u.workspaceId, [created.id])).toEqual([]);
        expect(await referenceStatuses(h.ctx.db, u.workspaceId, [created.id, "ref_x"])).toEqual(
          new Map([
            [created.id, { status: "deleted", failureReason: null }],
            ["ref_x", { status: "missing", failureReason: null }],
          ]),
        );
      });

      test("another workspace's reference is 404 everywhere; scopes are enforced", async () => {
        const created = await createMultipart("Private", "txt/tika-udhr-known.txt");
        const other = await signUp(h);
        for (const [method, p] of [
          ["GET", ""],
          ["DELETE", ""],
          ["POST", "/complete"],
        ]) {
          const r = await h.call(method, `/v1/reference-documents/${created.id}${p}`, { token: other.liveKey });
          expect(r.status).toBe(404);
        }
        expect((await referenceStatuses(h.ctx.db, other.workspaceId, [created.id])).get(created.id)?.status).toBe("missing");
        const ro = (await h.call("POST", "/v1/keys", { token: u.session, body: { name: "ro", scopes: ["reference_documents:read"] } })).body.token;
        expect((await h.call("GET", `/v1/reference-documents/${created.id}`, { token: ro })).status).toBe(200);
        const denied = await h.call("POST", "/v1/reference-documents", { token: ro, raw: multipart("x", "txt/tika-udhr-known.txt") });
        expect(denied.status).toBe(403);
        expect(denied.body.error.message).toContain("reference_documents:write");
        expect((await h.call("DELETE", `/v1/reference-documents/${created.id}`, { token: ro })).status).toBe(403);
        await drain();
      });
    });

    describe("durability", () => {
      test("a job left running by a crash is resumed by a new process once its lock expires", async () => {
        const c1 = new TestClock(store.clockStart());
        const h1 = await mk({}, c1);
        const v = await signUp(h1);
        const created = await createMultipart("Resumed", "pptx/tika-testPPT.pptx", h1, v.liveKey);
        // Process 1 claims the job and dies before finishing.
        expect((await claimJob(h1.ctx.db, INDEX_JOB, c1.now(), INDEX_LOCK_MS))?.subjectId).toBe(created.id);
        expect(await indexNext(h1.ctx)).toBe(false); // locked: nobody else takes it
        await closeDb(h1.ctx.db);

        const c2 = new TestClock(c1.now() + INDEX_LOCK_MS + 1);
        const ctx2 = await createContext(h1.ctx.config, c2);
        expect(await indexNext(ctx2)).toBe(true);
        const ref = (await ctx2.db.select().from(referenceDocuments).where(eq(referenceDocuments.id, created.id)).limit(1))[0]!;
        expect(ref.status).toBe("ready");
        expect((await jobsOf(created.id, { ...h1, ctx: ctx2 }))[0]).toMatchObject({ status: "done", attempts: 2 });
        await closeDb(ctx2.db);
      });

      test("an unexpected error is retried with backoff, then the reference fails after 3 attempts", async () => {
        const c = new TestClock(store.clockStart());
        const hh = await mk({}, c);
        const v = await signUp(hh);
        const created = await createMultipart("Unlucky", "txt/tika-udhr-known.txt", hh, v.liveKey);
        // A real fault: the retrieval table is missing, so indexing throws a database error.
        await tx(hh.ctx.db, (t) => exec(t, sql`ALTER TABLE chunks RENAME TO chunks_away`));
        expect(await indexNext(hh.ctx)).toBe(true);
        expect((await jobsOf(created.id, hh))[0]).toMatchObject({ status: "queued", attempts: 1, nextAttemptAt: c.now() + 30_000 });
        expect(await indexNext(hh.ctx)).toBe(false); // not due yet
        c.advance(30_000);
        expect(await indexNext(hh.ctx)).toBe(true);
        expect((await jobsOf(created.id, hh))[0]).toMatchObject({ status: "queued", attempts: 2, nextAttemptAt: c.now() + 120_000 });
        c.advance(120_000);
        expect(await indexNext(hh.ctx)).toBe(true);
        const job = (await jobsOf(created.id, hh))[0];
        expect(job).toMatchObject({ status: "failed", attempts: 3 });
        expect(job.lastError).toContain("chunks");
        const got = await hh.call("GET", `/v1/reference-documents/${created.id}`, { token: v.liveKey });
        expect(got.body.status).toBe("failed");
        expect(got.body.failure_reason).toContain("internal error");
        expect(got.body.failure_reason).not.toContain("chunks"); // internals stay in the log
        await tx(hh.ctx.db, (t) => exec(t, sql`ALTER TABLE chunks_away RENAME TO chunks`));
      });

      test("with the scheduler running, a new reference becomes ready on its own and GET sees it", async () => {
        const hh = await mk();
        const v = await signUp(hh);
        hh.ctx.runtime.scheduler.add(indexingWorker(hh.ctx)).start();
        try {
          const created = await createMultipart("Live", "xlsx/tika-testEXCEL.xlsx", hh, v.liveKey);
          let status = created.status;
          for (let i = 0; i < 200 && status === "processing"; i++) {
            await Bun.sleep(25);
            status = (await hh.call("GET", `/v1/reference-documents/${created.id}`, { token: v.liveKey })).body.status;
          }
          expect(status).toBe("ready");
        } finally {
          await hh.ctx.runtime.scheduler.stop();
        }
      });
    });
  });
}
