// Signed object URLs over HTTP: uploads and downloads in-process, then a real server with streaming fetch and curl.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import { loadConfig } from "../../src/config";
import { documents } from "../../src/db/schema";
import { createUser } from "../../src/modules/auth/service";
import { createKey } from "../../src/modules/keys/service";
import { type Running, startServer } from "../../src/server";
import { bytesStream, contentDisposition, objectStore, signedDownloadUrl, signedUploadUrl } from "../../src/storage";
import { CORPUS, type Harness, harness, TestClock, tempDir } from "../helpers";

const local = (url: string) => {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
};

describe("in-process", () => {
  let h: Harness;
  const clock = new TestClock();
  beforeAll(async () => {
    h = await harness({}, clock);
  });

  test("a signed download serves the bytes with type, length and an RFC 5987 file name; it expires after an hour", async () => {
    await objectStore(h.ctx).put("ws_x/runs/run_1/output.csv", bytesStream(new TextEncoder().encode("a,b\n1,2\n")), { maxBytes: 100 });
    const link = signedDownloadUrl(h.ctx, "ws_x/runs/run_1/output.csv", { filename: "Résumé (final).csv", contentType: "text/csv" });
    expect(Date.parse(link.expires_at) - clock.now()).toBe(3600_000);
    const r = await h.call("GET", local(link.url));
    expect(r.status).toBe(200);
    expect(r.text).toBe("a,b\n1,2\n");
    expect(r.headers.get("content-type")).toBe("text/csv");
    expect(r.headers.get("content-length")).toBe("8");
    expect(r.headers.get("content-disposition")).toBe(
      `attachment; filename="R_sum_ (final).csv"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%28final%29.csv`,
    );
    expect(r.headers.get("x-request-id")).toMatch(/^req_/);
    // The same URL cannot upload over the file.
    const put = await h.call("PUT", local(link.url), { raw: "x", headers: { "content-type": "text/csv" } });
    expect(put.status).toBe(403);
    expect(put.body.error.code).toBe("signature_invalid");
    clock.advance(3600_000);
    const late = await h.call("GET", local(link.url));
    expect(late.status).toBe(403);
    expect(late.body.error.code).toBe("url_expired");
    clock.advance(-3600_000);
  });

  test("a plain ASCII name needs no extended parameter", () => {
    expect(contentDisposition("report.docx")).toBe('attachment; filename="report.docx"');
    expect(contentDisposition('a"b.csv')).toBe(`attachment; filename="a_b.csv"; filename*=UTF-8''a%22b.csv`);
  });

  test("a missing object is 404; an unsigned request is 403 signature_invalid", async () => {
    const link = signedDownloadUrl(h.ctx, "ws_x/never/written", { filename: "x.txt", contentType: "text/plain" });
    expect((await h.call("GET", local(link.url))).status).toBe(404);
    const bare = await h.call("GET", "/v1/objects/ws_x/runs/run_1/output.csv");
    expect(bare.status).toBe(403);
    expect(bare.body.error.code).toBe("signature_invalid");
    const traversal = await h.call("GET", "/v1/objects/..%2F..%2Fassay.db?expires=9999999999&sig=x");
    expect(traversal.status).toBe(403);
  });

  test("an upload without size_bytes is capped at 50 MB", async () => {
    const url = signedUploadUrl(h.ctx, "ws_x/big", { contentType: "application/pdf", maxBytes: 52_428_800 }).url;
    const r = await h.call("PUT", local(url), { raw: new Uint8Array(52_428_801), headers: { "content-type": "application/pdf" } });
    expect(r.status).toBe(413);
    expect(r.body.error.message).toContain("50 MB");
    expect(await objectStore(h.ctx).stat("ws_x/big")).toBeNull();
  });
});

describe("a real server", () => {
  let server: Running;
  let token: string;
  const pdfPath = path.join(CORPUS, "pdf/pdfjs-file-pdfjs-test.pdf");
  const pdf = new Uint8Array(readFileSync(pdfPath));
  const curl = Bun.which("curl");

  beforeAll(async () => {
    // ASSAY_PUBLIC_URL must name the server for its signed URLs, so pick the port first.
    const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    const port = probe.port;
    probe.stop(true);
    server = await startServer(
      loadConfig({
        ASSAY_LOG_LEVEL: "silent",
        ASSAY_DATA_DIR: tempDir(),
        ASSAY_HOST: "127.0.0.1",
        ASSAY_PORT: String(port),
        ASSAY_PUBLIC_URL: `http://127.0.0.1:${port}`,
      }),
    );
    const user = await createUser(server.ctx.db, server.ctx.clock, server.ctx.config, {
      email: "real@example.com",
      password: "correct horse battery",
      role: "member",
    });
    token = (await createKey(server.ctx.db, server.ctx.clock, { workspaceId: user.workspaceId, userId: user.id, name: "k" })).token;
  });
  afterAll(async () => {
    await server?.stop();
  });

  async function api(method: string, p: string, body?: unknown) {
    const res = await fetch(`${server.url}${p}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  test("upload_url is on ASSAY_PUBLIC_URL; a streamed fetch PUT (no Content-Length) stores the file and complete extracts it", async () => {
    const up = await api("POST", "/v1/documents", { filename: "test.pdf", mime_type: "application/pdf", size_bytes: pdf.length });
    expect(up.body.upload_url).toStartWith(`${server.url}/v1/objects/`);
    let offset = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (offset >= pdf.length) return c.close();
        c.enqueue(pdf.subarray(offset, offset + 16_384));
        offset += 16_384;
      },
    });
    const put = await fetch(up.body.upload_url, {
      method: "PUT",
      body,
      headers: { "content-type": "application/pdf" },
      duplex: "half",
    } as RequestInit);
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ size_bytes: pdf.length });
    const done = await api("POST", `/v1/documents/${up.body.id}/complete`);
    expect(done.body).toMatchObject({ id: up.body.id, extracted: true, page_count: 5 });
    // The stored original comes back byte for byte from a signed download URL.
    const key = new URL(up.body.upload_url).pathname.replace("/v1/objects/", "");
    const link = signedDownloadUrl(server.ctx, key, { filename: "copie été.pdf", contentType: "application/pdf" });
    const got = await fetch(link.url);
    expect(got.status).toBe(200);
    expect(got.headers.get("content-length")).toBe(String(pdf.length));
    expect(got.headers.get("content-disposition")).toContain("filename*=UTF-8''copie%20%C3%A9t%C3%A9.pdf");
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(pdf);
  });

  test.skipIf(!curl)("README flow with curl: PUT --data-binary succeeds; over size_bytes curl reads the 413 body", async () => {
    const run = async (args: string[]) => {
      const p = Bun.spawn([curl!, "-sS", "-w", "\n%{http_code}", ...args], { stdout: "pipe", stderr: "pipe" });
      const out = await new Response(p.stdout).text();
      await p.exited;
      const nl = out.lastIndexOf("\n");
      return { exit: p.exitCode, status: Number(out.slice(nl + 1)), body: out.slice(0, nl), stderr: await new Response(p.stderr).text() };
    };
    const up = await api("POST", "/v1/documents", { filename: "test.pdf", mime_type: "application/pdf", size_bytes: pdf.length });
    const ok = await run(["-X", "PUT", "--data-binary", `@${pdfPath}`, "-H", "Content-Type: application/pdf", up.body.upload_url]);
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ size_bytes: pdf.length });
    expect((await api("POST", `/v1/documents/${up.body.id}/complete`)).body).toMatchObject({ extracted: true, page_count: 5 });

    // Declared 1000 bytes, sent 150 KB: refused on Content-Length before any byte is read.
    const small = await api("POST", "/v1/documents", { filename: "test.pdf", mime_type: "application/pdf", size_bytes: 1000 });
    const early = await run(["-X", "PUT", "--data-binary", `@${pdfPath}`, "-H", "Content-Type: application/pdf", small.body.upload_url]);
    expect(early.exit).toBe(0);
    expect(early.status).toBe(413);
    expect(JSON.parse(early.body).error.code).toBe("payload_too_large");

    // Chunked (no Content-Length), 3 MB against 100 KB: refused mid-stream, and curl still reads the answer.
    const big = path.join(tempDir(), "big.pdf");
    writeFileSync(big, Buffer.concat([Buffer.from(pdf), Buffer.alloc(3_000_000, 0x20)]));
    const mid = await api("POST", "/v1/documents", { filename: "big.pdf", mime_type: "application/pdf", size_bytes: 100_000 });
    const streamed = await run([
      "-X",
      "PUT",
      "-H",
      "Transfer-Encoding: chunked",
      "--data-binary",
      `@${big}`,
      "-H",
      "Content-Type: application/pdf",
      mid.body.upload_url,
    ]);
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.body).error.code).toBe("payload_too_large");
    expect((await api("POST", `/v1/documents/${mid.body.id}/complete`)).status).toBe(409);

    // Wrong Content-Type (curl's default for --data-binary): 415 with a readable message.
    const wrong = await run(["-X", "PUT", "--data-binary", `@${pdfPath}`, up.body.upload_url]);
    expect(wrong.status).toBe(415);
    expect(JSON.parse(wrong.body).error.message).toContain("application/pdf");
  });

  test("an upload still streaming when complete is called cannot replace the completed original: 409, nothing changes", async () => {
    const text = "The original essay, as it was completed.";
    const doc = await api("POST", "/v1/documents", { filename: "essay.txt", mime_type: "text/plain" });
    expect((await fetch(doc.body.upload_url, { method: "PUT", headers: { "content-type": "text/plain" }, body: text })).status).toBe(200);
    // A second upload to the same URL starts, and trickles while the document is completed.
    let push: (chunk: Uint8Array) => void = () => {};
    let end: () => void = () => {};
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        push = (chunk) => controller.enqueue(chunk);
        end = () => controller.close();
      },
    });
    const late = fetch(doc.body.upload_url, { method: "PUT", headers: { "content-type": "text/plain" }, body, duplex: "half" } as RequestInit);
    push(new TextEncoder().encode("A swapped essay "));
    await Bun.sleep(100);
    const completed = await api("POST", `/v1/documents/${doc.body.id}/complete`);
    expect(completed.status).toBe(200);
    push(new TextEncoder().encode("that arrives after complete."));
    end();
    const answer = await late;
    expect(answer.status).toBe(409);
    expect(((await answer.json()) as any).error.code).toBe("invalid_state");
    const [row] = await server.ctx.db.select().from(documents).where(eq(documents.id, doc.body.id));
    const stored = await objectStore(server.ctx).get(row?.objectKey ?? "");
    expect(await stored?.text()).toBe(text);
  });
});
