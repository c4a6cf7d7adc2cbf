// The whole product on an S3-compatible store (test/s3-server.ts): presigned upload straight to the bucket → complete
// → extraction → run → output downloaded through a presigned GET; references; the checks `complete` makes; webhook
// links re-presigned; the server refusing to start on a bad bucket.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { indexNext } from "../../src/modules/reference-documents/worker";
import { runTick } from "../../src/modules/runs/worker";
import { bytesStream, objectStore, resignDownloadUrls, S3ObjectStore, signedDownloadUrl } from "../../src/storage";
import { corpusFile, freePort, type Harness, harness, signUp, spawnServer, tempDir } from "../helpers";
import { type S3TestServer, startS3 } from "../s3-server";

let s3: S3TestServer;
let h: Harness;
let u: Awaited<ReturnType<typeof signUp>>;
const prefix = `flow${Math.random().toString(36).slice(2, 8)}`;

beforeAll(async () => {
  s3 = await startS3();
  h = await harness(s3.env(prefix));
  u = await signUp(h);
});
afterAll(async () => {
  await s3.stop();
});

async function declare(body: Record<string, unknown>, route = "/v1/documents") {
  const r = await h.call("POST", route, { token: u.liveKey, body });
  expect(r.status).toBeLessThan(300);
  return r.body as { id: string; upload_url: string; expires_at: string };
}

const put = (url: string, body: Uint8Array, contentType: string) => fetch(url, { method: "PUT", headers: { "content-type": contentType }, body });

async function drain(max = 30) {
  for (let i = 0; i < max; i++) {
    const indexed = await indexNext(h.ctx);
    const ran = await runTick(h.ctx);
    if (!indexed && !ran) return;
  }
}

describe("documents on S3", () => {
  test("the store is the S3 one, and upload_url is a presigned PUT on the bucket (15 minutes), not /v1/objects", async () => {
    expect(objectStore(h.ctx)).toBeInstanceOf(S3ObjectStore);
    const up = await declare({ filename: "a.pdf", mime_type: "application/pdf", size_bytes: 1000 });
    const url = new URL(up.upload_url);
    expect(up.upload_url).toStartWith(`${s3.endpoint}/assay/${prefix}/${u.workspaceId}/documents/${up.id}?`);
    expect(url.searchParams.get("X-Amz-Expires")).toBe("900");
    expect(url.searchParams.get("X-Amz-SignedHeaders")).toBe("content-length;content-type;host");
  });

  test("PUT straight to the store, then complete: extracted from the bucket (PDF, 5 pages)", async () => {
    const bytes = corpusFile("pdf/pdfjs-file-pdfjs-test.pdf");
    const up = await declare({ filename: "test.pdf", mime_type: "application/pdf", size_bytes: bytes.length });
    const before = s3.log.length;
    expect((await put(up.upload_url, bytes, "application/pdf")).status).toBe(200);
    expect(s3.log.slice(before)).toEqual([`PUT /assay/${prefix}/${u.workspaceId}/documents/${up.id}${new URL(up.upload_url).search}`]);
    const done = await h.call("POST", `/v1/documents/${up.id}/complete`, { token: u.liveKey });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ id: up.id, size_bytes: bytes.length, page_count: 5, extracted: true, mime_type: "application/pdf" });
    // Completing again answers from the database, even with the object gone.
    await objectStore(h.ctx).delete(`${u.workspaceId}/documents/${up.id}`);
    expect((await h.call("POST", `/v1/documents/${up.id}/complete`, { token: u.liveKey })).body).toEqual(done.body);
  });

  for (const [rel, mime, pages] of [
    ["pptx/tika-testPPT.pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation", 3],
    ["xlsx/tika-testEXCEL.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", 3],
    ["docx/tika-testWORD.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", null],
    ["bad/truncated-pdfjs-wikipedia.pdf", "application/pdf", 422],
  ] as const) {
    test(`${rel}: presigned PUT to the bucket, then complete reads it back from there`, async () => {
      const bytes = corpusFile(rel);
      const up = await declare({ filename: path.basename(rel), mime_type: mime, size_bytes: bytes.length });
      expect((await put(up.upload_url, bytes, mime)).status).toBe(200);
      const done = await h.call("POST", `/v1/documents/${up.id}/complete`, { token: u.liveKey });
      if (pages === 422) {
        expect(done.status).toBe(422);
        expect(done.body.error.code).toBe("unprocessable_document");
      } else {
        expect(done.status).toBe(200);
        expect(done.body).toMatchObject({ size_bytes: bytes.length, page_count: pages, extracted: true, mime_type: mime });
      }
    });
  }

  test("a PUT with another Content-Type is refused by the store (403), nothing is stored, complete stays 409; the right PUT works", async () => {
    const csv = corpusFile("csv/tika-testCSV.csv");
    const up = await declare({ filename: "list.csv" });
    expect((await h.call("POST", `/v1/documents/${up.id}/complete`, { token: u.liveKey })).status).toBe(409);
    const wrong = await put(up.upload_url, csv, "application/octet-stream");
    expect(wrong.status).toBe(403);
    expect(await wrong.text()).toContain("SignatureDoesNotMatch");
    const early = await h.call("POST", `/v1/documents/${up.id}/complete`, { token: u.liveKey });
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe("invalid_state");
    expect((await put(up.upload_url, csv, "text/csv")).status).toBe(200);
    const done = await h.call("POST", `/v1/documents/${up.id}/complete`, { token: u.liveKey });
    expect(done.body).toMatchObject({ extracted: true, mime_type: "text/csv", size_bytes: csv.length });
  });

  test("an undeclared upload over 50 MB reaches the bucket, but complete refuses it (413) and deletes it; a right file can follow", async () => {
    const up = await declare({ filename: "huge.txt", mime_type: "text/plain" });
    const huge = new Uint8Array(52_428_801).fill(0x61);
    expect((await put(up.upload_url, huge, "text/plain")).status).toBe(200);
    const r = await h.call("POST", `/v1/documents/${up.id}/complete`, { token: u.liveKey });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe("payload_too_large");
    expect(await objectStore(h.ctx).stat(`${u.workspaceId}/documents/${up.id}`)).toBeNull();
    expect((await put(up.upload_url, new TextEncoder().encode("a small text file after all"), "text/plain")).status).toBe(200);
    expect((await h.call("POST", `/v1/documents/${up.id}/complete`, { token: u.liveKey })).body).toMatchObject({ extracted: true });
  });

  test("an object of another type or size than declared (a store that ignores signed headers) is refused at complete: 415 / 409", async () => {
    const store = objectStore(h.ctx);
    const typed = await declare({ filename: "t.csv", mime_type: "text/csv", size_bytes: 4 });
    // put() stores no Content-Type: the store answers its default (binary/octet-stream), not text/csv.
    await store.put(`${u.workspaceId}/documents/${typed.id}`, bytesStream(new TextEncoder().encode("a,b\n")), { maxBytes: 100 });
    const r = await h.call("POST", `/v1/documents/${typed.id}/complete`, { token: u.liveKey });
    expect(r.status).toBe(415);
    expect(r.body.error.code).toBe("unsupported_media_type");
    expect(await store.stat(`${u.workspaceId}/documents/${typed.id}`)).toBeNull();
    const sized = await declare({ filename: "s.txt", mime_type: "text/plain", size_bytes: 100 });
    const short = await fetch(
      (store as S3ObjectStore).presignUpload(`${u.workspaceId}/documents/${sized.id}`, {
        contentType: "text/plain",
        nowMs: Date.now(),
        expiresS: 60,
      }),
      { method: "PUT", headers: { "content-type": "text/plain" }, body: "only ten b" },
    );
    expect(short.status).toBe(200);
    const r2 = await h.call("POST", `/v1/documents/${sized.id}/complete`, { token: u.liveKey });
    expect(r2.status).toBe(409);
    expect(r2.body.error.message).toContain("not the 100 declared");
  });
});

describe("references and a run on S3", () => {
  test("presigned reference → complete → indexed ready; multipart reference stored through Assay into the bucket → ready", async () => {
    const pdf = corpusFile("pdf/tika-testPDF.pdf");
    const created = await declare(
      { name: "Rubric PDF", filename: "r.pdf", mime_type: "application/pdf", size_bytes: pdf.length },
      "/v1/reference-documents",
    );
    expect((await put(created.upload_url, pdf, "application/pdf")).status).toBe(200);
    expect((await h.call("POST", `/v1/reference-documents/${created.id}/complete`, { token: u.liveKey })).status).toBe(200);
    const form = new FormData();
    form.set("name", "Rubric MD");
    form.set("file", new File(["# Rubric\n\n## Thesis (10 points)\nA clear claim.\n"], "rubric.md", { type: "text/markdown" }));
    const multipart = await h.call("POST", "/v1/reference-documents", { token: u.liveKey, raw: form });
    expect(multipart.status).toBe(201);
    await drain();
    for (const id of [created.id, multipart.body.id]) {
      const got = await h.call("GET", `/v1/reference-documents/${id}`, { token: u.liveKey });
      expect(got.body.status, id).toBe("ready");
    }
  });

  test("full flow: presigned upload → complete → run → DOCX downloaded from the bucket through a presigned GET", async () => {
    const form = new FormData();
    form.set("name", "Essay rubric");
    form.set(
      "file",
      new File(["# Rubric\n\n## Thesis (10 points)\nA clear, arguable claim.\n\n## Evidence (20 points)\nSpecific evidence.\n"], "rubric.md"),
    );
    const ref = await h.call("POST", "/v1/reference-documents", { token: u.liveKey, raw: form });
    const wf = await h.call("POST", "/v1/workflows", {
      token: u.liveKey,
      body: {
        product_code: "education",
        name: "Essays",
        reference_document_ids: [ref.body.id],
        output_format: "docx",
        user_prompt: "Grade the essay.",
      },
    });
    expect(wf.status).toBe(201);
    const essay = new TextEncoder().encode("Uniforms should be required. A 2019 study of 40 schools found bullying fell by 23 percent.");
    const up = await declare({ filename: "essay.txt", mime_type: "text/plain", size_bytes: essay.length });
    expect((await put(up.upload_url, essay, "text/plain")).status).toBe(200);
    expect((await h.call("POST", `/v1/documents/${up.id}/complete`, { token: u.liveKey })).status).toBe(200);
    const run = await h.call("POST", `/v1/workflows/${wf.body.id}/runs`, { token: u.liveKey, body: { input_documents: [up.id] } });
    expect(run.status).toBe(202);
    await drain();
    const done = await h.call("GET", `/v1/runs/${run.body.id}`, { token: u.liveKey });
    expect(done.body.status).toBe("succeeded");
    const file = done.body.output_file as { url: string; expires_at: string; mime_type: string };
    expect(file.url).toStartWith(`${s3.endpoint}/assay/${prefix}/`);
    expect(new URL(file.url).searchParams.get("X-Amz-Expires")).toBe("3600");
    expect(Date.parse(file.expires_at) - Date.now()).toBeGreaterThan(3590_000);
    const res = await fetch(file.url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/vnd.openxmlformats-officedocument.wordprocessingml.document");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${run.body.id}.docx"`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([bytes[0], bytes[1]]).toEqual([0x50, 0x4b]); // a ZIP: a real DOCX
    const output = await h.call("GET", `/v1/runs/${run.body.id}/output`, { token: u.liveKey });
    expect(output.body.url).toStartWith(`${s3.endpoint}/assay/${prefix}/`);
  });

  test("webhook links: an expired presigned GET is re-presigned from its key at each attempt; others are left alone", async () => {
    const key = `${u.workspaceId}/runs/run_hook/output.md`;
    await objectStore(h.ctx).put(key, bytesStream(new TextEncoder().encode("# Evaluation")), { maxBytes: 100 });
    const then = Date.now() - 3 * 3600_000;
    const old = signedDownloadUrl({ config: h.ctx.config, clock: { now: () => then } }, key, {
      filename: "run_hook.md",
      contentType: "text/markdown",
    });
    expect((await fetch(old.url)).status).toBe(403); // expired
    const forged = { url: old.url.replace(/X-Amz-Signature=[0-9a-f]+/, `X-Amz-Signature=${"0".repeat(64)}`), expires_at: old.expires_at };
    const payload = JSON.stringify({ data: { run: { output_file: { ...old, mime_type: "text/markdown" }, metadata: { forged } } } });
    const now = Date.now();
    const sent = JSON.parse(resignDownloadUrls(payload, h.ctx.config, now)).data.run;
    expect(sent.output_file.url).not.toBe(old.url);
    expect(Date.parse(sent.output_file.expires_at)).toBe(Math.floor(now / 1000) * 1000 + 3600_000);
    const res = await fetch(sent.output_file.url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="run_hook.md"');
    expect(await res.text()).toBe("# Evaluation");
    expect(sent.metadata.forged).toEqual(forged);
  });
});

describe("the store failing under a running server", () => {
  test("refused credentials on complete answer 500 internal_error with the request id (not the store's 403); the upload stays pending", async () => {
    const bad = await harness({ ...s3.env(prefix), ASSAY_S3_SECRET_ACCESS_KEY: "not-the-secret" });
    const v = await signUp(bad);
    const up = await bad.call("POST", "/v1/documents", { token: v.liveKey, body: { filename: "a.txt", mime_type: "text/plain" } });
    expect(up.status).toBe(200);
    const r = await bad.call("POST", `/v1/documents/${up.body.id}/complete`, { token: v.liveKey });
    expect(r.status).toBe(500);
    expect(r.body.error.code).toBe("internal_error");
    expect(r.text).not.toContain("not-the-secret");
    expect((await bad.call("GET", `/v1/documents/${up.body.id}`, { token: v.liveKey })).body.extracted).toBe(false);
  });

  test("/v1/objects links issued before the switch keep working: Assay serves them from the bucket", async () => {
    const key = `${u.workspaceId}/runs/run_old/output.csv`;
    await objectStore(h.ctx).put(key, bytesStream(new TextEncoder().encode("a,b\n")), { maxBytes: 100 });
    const local = await harness({ ASSAY_SECRET: h.ctx.config.secret });
    const link = signedDownloadUrl(local.ctx, key, { filename: "old.csv", contentType: "text/csv" });
    expect(link.url).toStartWith("http://localhost/v1/objects/");
    const res = await h.call("GET", new URL(link.url).pathname + new URL(link.url).search);
    expect(res.status).toBe(200);
    expect(res.text).toBe("a,b\n");
  });
});

describe("the server process", () => {
  test("serves with ASSAY_OBJECT_STORE set; a missing bucket stops it at start with one line naming the setting (exit 2)", async () => {
    const port = freePort();
    const env = { ASSAY_DATA_DIR: tempDir(), ASSAY_LOG_LEVEL: "silent", ...s3.env(prefix) };
    const child = await spawnServer(port, env);
    try {
      expect((await fetch(`http://127.0.0.1:${port}/v1/health`)).status).toBe(200);
    } finally {
      child.kill();
      await child.exited;
    }
    const bad = Bun.spawn([process.execPath, "src/main.ts", "serve"], {
      cwd: path.resolve(import.meta.dir, "../.."),
      env: { ...process.env, ...env, ASSAY_PORT: String(port + 1), ASSAY_OBJECT_STORE: "s3://no-such-bucket" },
      stdout: "ignore",
      stderr: "pipe",
    });
    expect(await bad.exited).toBe(2);
    const stderr = (await new Response(bad.stderr).text()).trim();
    expect(stderr).toStartWith('assay: ASSAY_OBJECT_STORE: there is no bucket "no-such-bucket"');
    expect(stderr.split("\n")).toHaveLength(1);
  }, 60_000);
});
