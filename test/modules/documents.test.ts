// Input documents: the presigned flow (POST → PUT → complete) with real corpus files, its failure modes, and the service helpers.
import { beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import { documents } from "../../src/db/schema";
import { ApiError } from "../../src/http/errors";
import { createDocumentFromBytes, getCompletedDocument, toDocumentJson } from "../../src/modules/documents/service";
import { indexNext } from "../../src/modules/reference-documents/worker";
import { objectStore } from "../../src/storage";
import { CORPUS, corpusFile, type Harness, harness, localPath, scenarios, signUp, TestClock } from "../helpers";

let h: Harness;
let u: Awaited<ReturnType<typeof signUp>>;
const clock = new TestClock();

beforeAll(async () => {
  h = await harness({}, clock);
  u = await signUp(h);
});

const file = corpusFile;
const local = localPath;
// The smallest valid PNG signature + IHDR start: enough for a format check.
const PNG = new Uint8Array([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0,
]);

async function start(body: Record<string, unknown>, token = u.liveKey) {
  const r = await h.call("POST", "/v1/documents", { token, body });
  expect(r.status).toBe(200);
  return r.body as { id: string; upload_url: string; expires_at: string; upload_content_type: string };
}

async function put(upload: { upload_url: string }, bytes: Uint8Array, contentType: string) {
  return h.call("PUT", local(upload.upload_url), { raw: bytes, headers: { "content-type": contentType } });
}

async function uploadAndComplete(rel: string, mime: string) {
  const bytes = file(rel);
  const upload = await start({ filename: path.basename(rel), mime_type: mime, size_bytes: bytes.length });
  const p = await put(upload, bytes, mime);
  expect(p.status).toBe(200);
  expect(p.body).toEqual({ key: expect.stringContaining(upload.id), size_bytes: bytes.length });
  return { upload, done: await h.call("POST", `/v1/documents/${upload.id}/complete`, { token: u.liveKey }) };
}

describe("the presigned flow", () => {
  test("POST answers 200 DocumentUpload with a signed URL on ASSAY_PUBLIC_URL valid 15 minutes", async () => {
    const r = await h.call("POST", "/v1/documents", {
      token: u.liveKey,
      body: { filename: "a.pdf", mime_type: "application/pdf", size_bytes: 1000 },
    });
    expect(r.status).toBe(200);
    expect(r.body.id).toMatch(/^doc_[0-9A-Za-z]{24}$/);
    expect(r.body.upload_url).toStartWith(`http://localhost/v1/objects/${u.workspaceId}/documents/${r.body.id}?expires=`);
    expect(r.body.upload_url).toContain("&sig=");
    expect(Date.parse(r.body.expires_at) - clock.now()).toBe(15 * 60_000);
    expect(r.body.upload_content_type).toBe("application/pdf");
  });

  for (const [rel, mime, pages] of [
    ["pdf/pdfjs-file-pdfjs-test.pdf", "application/pdf", 5],
    ["pptx/tika-testPPT.pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation", 3],
    ["xlsx/tika-testEXCEL.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", 3],
    ["docx/tika-testWORD.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", null],
  ] as const) {
    test(`${rel}: PUT then complete gives an extracted Document with page_count ${pages}`, async () => {
      const { upload, done } = await uploadAndComplete(rel, mime);
      expect(done.status).toBe(200);
      expect(done.body).toEqual({
        id: upload.id,
        object: "document",
        filename: path.basename(rel),
        mime_type: mime,
        size_bytes: file(rel).length,
        page_count: pages,
        extracted: true,
        created_at: new Date(clock.now()).toISOString(),
      });
      const row = (await h.ctx.db.select().from(documents).where(eq(documents.id, upload.id)).limit(1))[0]!;
      expect(row.status).toBe("extracted");
      expect(row.textChars).toBeGreaterThan(100);
      expect((row.extracted as any).text.length).toBe(row.textChars);
      const got = await h.call("GET", `/v1/documents/${upload.id}`, { token: u.liveKey });
      expect(got.body).toEqual(done.body);
    });
  }

  test("completing twice returns the same Document without extracting again", async () => {
    const { upload, done } = await uploadAndComplete("pdf/tika-testPDF.pdf", "application/pdf");
    expect(done.status).toBe(200);
    // With the original gone, only the stored extraction can answer.
    const row = (await h.ctx.db.select().from(documents).where(eq(documents.id, upload.id)).limit(1))[0]!;
    await objectStore(h.ctx).delete(row.objectKey);
    const again = await h.call("POST", `/v1/documents/${upload.id}/complete`, { token: u.liveKey });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(done.body);
  });

  test("without mime_type the type comes from the extension (else application/octet-stream) and the PUT must carry it", async () => {
    const csv = await start({ filename: "list.csv" });
    expect(csv.upload_content_type).toBe("text/csv");
    expect((await put(csv, file("csv/tika-testCSV.csv"), "application/octet-stream")).status).toBe(415);
    // Parameters and case do not matter, only the media type.
    expect((await put(csv, file("csv/tika-testCSV.csv"), "Text/CSV; charset=utf-8")).status).toBe(200);
    const done = await h.call("POST", `/v1/documents/${csv.id}/complete`, { token: u.liveKey });
    expect(done.body).toMatchObject({ extracted: true, mime_type: "text/csv", page_count: null });
    const odd = await start({ filename: "notes" });
    expect(odd.upload_content_type).toBe("application/octet-stream");
    expect((await put(odd, file("txt/tika-udhr-known.txt"), "application/octet-stream")).status).toBe(200);
    const oddDone = await h.call("POST", `/v1/documents/${odd.id}/complete`, { token: u.liveKey });
    expect(oddDone.body).toMatchObject({ extracted: true, mime_type: "text/plain" });
  });

  test("complete before the bytes arrived is 409 invalid_state; GET shows it not extracted", async () => {
    const upload = await start({ filename: "later.pdf", mime_type: "application/pdf" });
    const r = await h.call("POST", `/v1/documents/${upload.id}/complete`, { token: u.liveKey });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe("invalid_state");
    const got = await h.call("GET", `/v1/documents/${upload.id}`, { token: u.liveKey });
    expect(got.body).toMatchObject({ extracted: false, page_count: null, mime_type: "application/pdf", size_bytes: null });
  });

  test("PUT errors: wrong or missing Content-Type 415, over size_bytes 413, tampered 403 signature_invalid, late 403 url_expired", async () => {
    const bytes = file("pdf/tika-testPDF.pdf");
    const upload = await start({ filename: "t.pdf", mime_type: "application/pdf", size_bytes: bytes.length - 1 });
    const wrongType = await put(upload, bytes, "text/plain");
    expect(wrongType.status).toBe(415);
    expect(wrongType.body.error).toMatchObject({ code: "unsupported_media_type" });
    expect(wrongType.body.error.message).toContain("application/pdf");
    const noType = await h.call("PUT", local(upload.upload_url), { raw: bytes });
    expect(noType.status).toBe(415);
    const tooBig = await put(upload, bytes, "application/pdf");
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error.code).toBe("payload_too_large");
    // Without Content-Length the cap is enforced while streaming.
    const streamed = await h.call("PUT", local(upload.upload_url), {
      raw: new ReadableStream({
        start: (c) => {
          c.enqueue(bytes);
          c.close();
        },
      }),
      headers: { "content-type": "application/pdf" },
    });
    expect(streamed.status).toBe(413);
    expect(await objectStore(h.ctx).stat(`${u.workspaceId}/documents/${upload.id}`)).toBeNull();
    const tampered = new URL(upload.upload_url);
    tampered.searchParams.set("max", String(bytes.length * 2));
    const forged = await h.call("PUT", local(tampered.toString()), { raw: bytes, headers: { "content-type": "application/pdf" } });
    expect(forged.status).toBe(403);
    expect(forged.body.error.code).toBe("signature_invalid");
    const wrongSig = new URL(upload.upload_url);
    wrongSig.searchParams.set("sig", "A".repeat(43));
    expect((await h.call("PUT", local(wrongSig.toString()), { raw: bytes, headers: { "content-type": "application/pdf" } })).body.error.code).toBe(
      "signature_invalid",
    );
    clock.advance(15 * 60_000);
    try {
      const late = await put(upload, bytes.subarray(0, 100), "application/pdf");
      expect(late.status).toBe(403);
      expect(late.body.error.code).toBe("url_expired");
    } finally {
      clock.advance(-15 * 60_000);
    }
  });

  describe("content is judged at complete", () => {
    for (const name of readdirSync(path.join(CORPUS, "bad"))) {
      test(`bad/${name} → 422 unprocessable_document, and again on a second complete`, async () => {
        const mime = name.endsWith(".pdf") ? "application/pdf" : "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
        const { upload, done } = await uploadAndComplete(`bad/${name}`, mime);
        expect(done.status).toBe(422);
        expect(done.body.error.code).toBe("unprocessable_document");
        expect(done.body.error.message).not.toMatch(/\/|at .*:\d+/); // no paths, no stack
        const again = await h.call("POST", `/v1/documents/${upload.id}/complete`, { token: u.liveKey });
        expect(again.status).toBe(422);
        expect(again.body.error.message).toBe(done.body.error.message);
        expect((await h.ctx.db.select().from(documents).where(eq(documents.id, upload.id)).limit(1))[0]!.status).toBe("failed");
      });
    }

    test("a PNG is 415 unsupported_media_type: at once when declared, at complete when named otherwise", async () => {
      // (Before: 200 and an upload URL for a picture, refused only after its bytes were sent.)
      for (const declared of [{ filename: "scan.png" }, { filename: "scan", mime_type: "image/png" }, { filename: "setup.exe" }]) {
        const refused = await h.call("POST", "/v1/documents", { token: u.liveKey, body: declared });
        expect([refused.status, refused.body.error.code]).toEqual([415, "unsupported_media_type"]);
      }
      const upload = await start({ filename: "scan.pdf" });
      expect((await put(upload, PNG, "application/pdf")).status).toBe(200);
      const r = await h.call("POST", `/v1/documents/${upload.id}/complete`, { token: u.liveKey });
      expect(r.status).toBe(415);
      expect(r.body.error.code).toBe("unsupported_media_type");
    });
  });
});

describe("POST /v1/documents validation and access", () => {
  scenarios(
    () => h,
    [
      {
        name: "filename is required",
        method: "POST",
        path: "/v1/documents",
        token: () => u.liveKey,
        body: {},
        status: 400,
        expect: { error: { code: "validation_error", param: "filename" } },
      },
      {
        name: "filename of blanks",
        method: "POST",
        path: "/v1/documents",
        token: () => u.liveKey,
        body: { filename: "  " },
        status: 400,
        expect: { error: { param: "filename" } },
      },
      {
        name: "filename over 255",
        method: "POST",
        path: "/v1/documents",
        token: () => u.liveKey,
        body: { filename: "x".repeat(256) },
        status: 400,
        expect: { error: { param: "filename" } },
      },
      {
        name: "size_bytes 0",
        method: "POST",
        path: "/v1/documents",
        token: () => u.liveKey,
        body: { filename: "a.pdf", size_bytes: 0 },
        status: 400,
        expect: { error: { code: "validation_error", param: "size_bytes" } },
      },
      {
        name: "size_bytes not an integer",
        method: "POST",
        path: "/v1/documents",
        token: () => u.liveKey,
        body: { filename: "a.pdf", size_bytes: 1.5 },
        status: 400,
        expect: { error: { param: "size_bytes" } },
      },
      {
        name: "size_bytes 52428800 is allowed",
        method: "POST",
        path: "/v1/documents",
        token: () => u.liveKey,
        body: { filename: "a.pdf", size_bytes: 52428800 },
        status: 200,
      },
      {
        name: "size_bytes over 50 MB is 413",
        method: "POST",
        path: "/v1/documents",
        token: () => u.liveKey,
        body: { filename: "a.pdf", size_bytes: 52428801 },
        status: 413,
        expect: { error: { code: "payload_too_large", param: "size_bytes" } },
      },
      {
        name: "mime_type that is not a media type",
        method: "POST",
        path: "/v1/documents",
        token: () => u.liveKey,
        body: { filename: "a.pdf", mime_type: "pdf" },
        status: 400,
        expect: { error: { param: "mime_type" } },
      },
      {
        name: "no credentials",
        method: "POST",
        path: "/v1/documents",
        body: { filename: "a.pdf" },
        status: 401,
        expect: { error: { code: "unauthenticated" } },
      },
      {
        name: "unknown document",
        method: "GET",
        path: "/v1/documents/doc_nope",
        token: () => u.liveKey,
        status: 404,
        expect: { error: { code: "not_found" } },
      },
    ],
  );

  test("a key without documents:write gets 403 insufficient_scope", async () => {
    const ro = await h.call("POST", "/v1/keys", { token: u.session, body: { name: "ro", scopes: ["runs:read"] } });
    const r = await h.call("POST", "/v1/documents", { token: ro.body.token, body: { filename: "a.pdf" } });
    expect(r.status).toBe(403);
    expect(r.body.error.message).toContain("documents:write");
  });

  test("another workspace's document is 404 to read and to complete", async () => {
    const { upload } = await uploadAndComplete("txt/tika-udhr-known.txt", "text/plain");
    const other = await signUp(h);
    for (const [method, p] of [
      ["GET", `/v1/documents/${upload.id}`],
      ["POST", `/v1/documents/${upload.id}/complete`],
    ]) {
      const r = await h.call(method, p, { token: other.liveKey });
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe("not_found");
    }
    expect(await getCompletedDocument(h.ctx.db, other.workspaceId, upload.id)).toBeNull();
    expect((await getCompletedDocument(h.ctx.db, u.workspaceId, upload.id))?.id).toBe(upload.id);
  });
});

describe("service helpers for runs", () => {
  test("createDocumentFromBytes stores and extracts at once", async () => {
    const row = await createDocumentFromBytes(h.ctx, {
      workspaceId: u.workspaceId,
      filename: "doc.pdf",
      mimeType: "application/pdf",
      bytes: file("pdf/pdfjs-file-pdfjs-test.pdf"),
    });
    expect(toDocumentJson(row)).toMatchObject({ extracted: true, page_count: 5, mime_type: "application/pdf" });
    expect(await objectStore(h.ctx).stat(row.objectKey)).toEqual({ size: file("pdf/pdfjs-file-pdfjs-test.pdf").length });
    expect((await getCompletedDocument(h.ctx.db, u.workspaceId, row.id))?.id).toBe(row.id);
  });

  test("createDocumentFromBytes answers 422 naming the file for a corrupt one, 415 for an unsupported one", async () => {
    const bad = await createDocumentFromBytes(h.ctx, {
      workspaceId: u.workspaceId,
      filename: "broken.pdf",
      mimeType: "application/pdf",
      bytes: file("bad/truncated-pdfjs-wikipedia.pdf"),
    }).catch((e) => e);
    expect(bad).toBeInstanceOf(ApiError);
    expect(bad).toMatchObject({ status: 422, code: "unprocessable_document" });
    expect(bad.message).toStartWith("broken.pdf: ");
    const png = await createDocumentFromBytes(h.ctx, { workspaceId: u.workspaceId, filename: "x.png", mimeType: "", bytes: PNG }).catch((e) => e);
    expect(png).toMatchObject({ status: 415, code: "unsupported_media_type" });
  });
});

describe("GET /v1/documents/:id/text (an Assay extension)", () => {
  test("answers the extracted text by page, so a quote can be found at its place", async () => {
    const rel = `pdf/${readdirSync(path.join(CORPUS, "pdf")).filter((f) => f.endsWith(".pdf"))[0]}`;
    const { upload, done } = await uploadAndComplete(rel, "application/pdf");
    expect(done.status).toBe(200);
    const r = await h.call("GET", `/v1/documents/${upload.id}/text`, { token: u.liveKey });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ object: "document_text", document_id: upload.id, format: "pdf", page_count: done.body.page_count });
    expect(r.body.sections.length).toBeGreaterThan(0);
    expect(r.body.sections.every((s: { location: { page?: number } }) => Number.isInteger(s.location.page))).toBe(true);
    // The text is the one runs read: it matches what extraction stored.
    const stored = (await h.ctx.db.select().from(documents).where(eq(documents.id, upload.id)).limit(1))[0];
    expect(r.body.sections.map((s: { text: string }) => s.text).join("\n\n")).toBe((stored?.extracted as { text: string } | undefined)?.text);
  });

  test("409 before complete, 404 for another workspace's document", async () => {
    const upload = await start({ filename: "a.txt", mime_type: "text/plain" });
    const early = await h.call("GET", `/v1/documents/${upload.id}/text`, { token: u.liveKey });
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe("invalid_state");
    const other = await signUp(h);
    const foreign = await h.call("GET", `/v1/documents/${upload.id}/text`, { token: other.liveKey });
    expect(foreign.status).toBe(404);
  });
});

test("GET /v1/reference-documents/:id/text answers the indexed text once ready (409 before)", async () => {
  const form = new FormData();
  form.set("name", "Rubric");
  form.set("file", new File(["# Rubric\n\n## Thesis\nA clear thesis.\n"], "rubric.md", { type: "text/markdown" }));
  const ref = await h.call("POST", "/v1/reference-documents", { token: u.liveKey, raw: form });
  expect(ref.status).toBe(201);
  const url = `/v1/reference-documents/${ref.body.id}/text`;
  if (ref.body.status === "processing") expect((await h.call("GET", url, { token: u.liveKey })).status).toBe(409);
  while (await indexNext(h.ctx)) {}
  const r = await h.call("GET", url, { token: u.liveKey });
  expect(r.status).toBe(200);
  expect(r.body.format).toBe("md");
  expect(r.body.sections.map((s: { text: string }) => s.text).join("\n")).toContain("A clear thesis.");
});
