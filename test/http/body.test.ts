// Hostile bodies and other abuse found in review: every one answers a clear 4xx quickly, none reaches a 500.
import { describe, expect, test } from "bun:test";
import { count, eq } from "drizzle-orm";
import { documents, referenceDocuments } from "../../src/db/schema";
import { ABANDONED_UPLOAD_MS, expireAbandonedUploads } from "../../src/modules/reference-documents/service";
import { UPLOAD_URL_TTL_S } from "../../src/storage";
import { harness, signUp, TestClock } from "../helpers";

describe("request bodies", async () => {
  const h = await harness();
  const u = await signUp(h);
  const send = (raw: any, type: string, path = "/v1/keys", token = u.session) =>
    h.call("POST", path, { token, raw, headers: { "content-type": type } });

  test("a body that is not JSON is 415, not parsed", async () => {
    const r = await send("x".repeat(100_000), "text/plain");
    expect(r.status).toBe(415);
    expect(r.body.error.code).toBe("unsupported_media_type");
    expect((await send("name=x", "application/x-www-form-urlencoded")).status).toBe(415);
  });

  test("JSON nested deeper than 64 levels is 400 before any validation recurses into it", async () => {
    for (const [path, token] of [
      ["/v1/keys", u.session],
      ["/v1/workflows", u.liveKey],
    ] as const) {
      const deep = `{"name":"x","scopes":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
      const r = await send(deep, "application/json", path, token);
      expect(r.status).toBe(400);
      expect(r.body.error.message).toContain("64 levels");
    }
    const wf = await h.call("POST", "/v1/workflows", { token: u.liveKey, body: { product_code: "general", name: "w" } });
    const r = await send(
      `{"input_documents":["doc_x"],"metadata":${'{"a":'.repeat(5000)}1${"}".repeat(5000)}}`,
      "application/json",
      `/v1/workflows/${wf.body.id}/runs`,
      u.liveKey,
    );
    expect(r.status).toBe(400);
  });

  test("a string where a JSON body wants an integer is a 400 naming the field", async () => {
    const r = await h.call("POST", "/v1/keys", { token: u.session, body: { name: "x", rate_limit_rpm: "5" } });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe("rate_limit_rpm");
    const d = await h.call("POST", "/v1/documents", { token: u.liveKey, body: { filename: "a.txt", size_bytes: "10" } });
    expect(d.status).toBe(400);
    expect(d.body.error.param).toBe("size_bytes");
    expect((await h.call("POST", "/v1/keys", { token: u.session, body: { name: "x", rate_limit_rpm: 2.5 } })).status).toBe(400);
  });

  test("the 1 MB JSON cap holds for chunked bodies too", async () => {
    const chunks = new ReadableStream({
      start(c) {
        for (let i = 0; i < 30; i++) c.enqueue(new TextEncoder().encode(" ".repeat(50_000)));
        c.enqueue(new TextEncoder().encode('{"name":"x"}'));
        c.close();
      },
    });
    const r = await send(chunks, "application/json");
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe("payload_too_large");
  });

  test("an admin grant beyond 1e9 is refused and writes nothing", async () => {
    const admin = await signUp(h, undefined, "admin");
    const r = await h.call("POST", "/v1/admin/credits", { token: admin.session, body: { workspace_id: u.workspaceId, amount: 1e307 } });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe("amount");
    expect((await h.call("GET", "/v1/usage/balance", { token: u.liveKey })).body.pro_credits).toBe(100);
  });

  test("an admin grant with an empty email or workspace_id names that field", async () => {
    const admin = await signUp(h, undefined, "admin");
    for (const field of ["email", "workspace_id"]) {
      const r = await h.call("POST", "/v1/admin/credits", { token: admin.session, body: { [field]: " ", amount: 5 } });
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe(field);
    }
  });

  test("a run takes at most 50 inputs", async () => {
    const wf = await h.call("POST", "/v1/workflows", { token: u.liveKey, body: { product_code: "general", name: "w" } });
    const r = await h.call("POST", `/v1/workflows/${wf.body.id}/runs`, {
      token: u.liveKey,
      body: { input_documents: Array.from({ length: 51 }, (_, i) => `doc_${i}`) },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe("input_documents");
  });

  test("multipart references stream: parts in any order; a missing name or an oversized file leaves nothing stored", async () => {
    const docs = async () => (await h.ctx.db.select({ n: count() }).from(documents))[0];
    const boundary = "----assayTestBoundary";
    const body = (parts: string[]) => `${parts.map((p) => `--${boundary}\r\n${p}\r\n`).join("")}--${boundary}--\r\n`;
    const filePart = (content: string) =>
      `Content-Disposition: form-data; name="file"; filename="r.md"\r\nContent-Type: text/markdown\r\n\r\n${content}`;
    const namePart = `Content-Disposition: form-data; name="name"\r\n\r\nLate name`;
    const type = `multipart/form-data; boundary=${boundary}`;
    const fileFirst = await h.call("POST", "/v1/reference-documents", {
      token: u.liveKey,
      raw: body([filePart("# Rubric\n\n## Thesis"), namePart]),
      headers: { "content-type": type },
    });
    expect(fileFirst.status).toBe(201);
    expect(fileFirst.body.name).toBe("Late name");
    const before = (await docs()).n;
    const noName = await h.call("POST", "/v1/reference-documents", {
      token: u.liveKey,
      raw: body([filePart("# Rubric")]),
      headers: { "content-type": type },
    });
    expect(noName.status).toBe(400);
    expect(noName.body.error.param).toBe("name");
    // 51 MB in chunks, no Content-Length: stopped while streaming.
    const big = new ReadableStream({
      start(c) {
        const enc = new TextEncoder();
        c.enqueue(
          enc.encode(
            `--${boundary}\r\n${namePart}\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n`,
          ),
        );
        const mb = enc.encode("x".repeat(1024 * 1024));
        for (let i = 0; i < 51; i++) c.enqueue(mb);
        c.enqueue(enc.encode(`\r\n--${boundary}--\r\n`));
        c.close();
      },
    });
    const tooBig = await h.call("POST", "/v1/reference-documents", { token: u.liveKey, raw: big as any, headers: { "content-type": type } });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error.code).toBe("payload_too_large");
    expect((await docs()).n).toBe(before);
  });

  test("parallel multipart uploads all succeed", async () => {
    const form = (i: number) => {
      const f = new FormData();
      f.set("name", `rubric ${i}`);
      f.set("file", new File([`# Rubric ${i}\n\n## Thesis\n${"words ".repeat(20_000)}`], `r${i}.md`, { type: "text/markdown" }));
      return f;
    };
    const replies = await Promise.all(
      Array.from({ length: 5 }, (_, i) => h.call("POST", "/v1/reference-documents", { token: u.liveKey, raw: form(i) })),
    );
    expect(replies.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
  });

  test("an upload URL cannot replace a completed document's original", async () => {
    const up = await h.call("POST", "/v1/documents", { token: u.liveKey, body: { filename: "a.txt", mime_type: "text/plain" } });
    const url = new URL(up.body.upload_url);
    const put = () => h.call("PUT", url.pathname + url.search, { raw: "hello world", headers: { "content-type": "text/plain" } });
    expect((await put()).status).toBe(200);
    expect((await h.call("POST", `/v1/documents/${up.body.id}/complete`, { token: u.liveKey })).status).toBe(200);
    const again = await put();
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("invalid_state");
  });
});

describe("after a crash or a silence", () => {
  test("a presigned reference never uploaded fails once its URL has expired, so its runs stop waiting", async () => {
    const clock = new TestClock();
    const h = await harness({}, clock);
    const u = await signUp(h);
    const ref = await h.call("POST", "/v1/reference-documents", {
      token: u.liveKey,
      body: { name: "never", filename: "r.md", mime_type: "text/markdown", size_bytes: 10 },
    });
    expect(await expireAbandonedUploads(h.ctx)).toBe(0);
    // Past the URL's life, a complete says the URL has expired: PUT to it can no longer work. (Before: "PUT it to
    // upload_url first", to a URL that answers 403 url_expired.)
    clock.advance(UPLOAD_URL_TTL_S * 1000 + 1);
    const late = await h.call("POST", `/v1/reference-documents/${ref.body.id}/complete`, { token: u.liveKey });
    expect([late.status, late.body.error.code]).toEqual([409, "invalid_state"]);
    expect(late.body.error.message).toContain("upload URL has expired");
    clock.advance(ABANDONED_UPLOAD_MS - UPLOAD_URL_TTL_S * 1000);
    expect(await expireAbandonedUploads(h.ctx)).toBe(1);
    const row = (await h.ctx.db.select().from(referenceDocuments).where(eq(referenceDocuments.id, ref.body.id)).limit(1))[0];
    expect(row?.status).toBe("failed");
    const got = await h.call("GET", `/v1/reference-documents/${ref.body.id}`, { token: u.liveKey });
    expect(got.body.status).toBe("failed");
    expect(got.body.failure_reason).toContain("never uploaded");
  });

  test("an OIDC issuer that never answers costs a bounded wait once, then 401 at once", async () => {
    const silent = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Promise<Response>(() => {}) });
    try {
      const h = await harness({ ASSAY_OIDC_ISSUER: `http://127.0.0.1:${silent.port}` });
      const t0 = Date.now();
      expect((await h.call("GET", "/v1/auth/me", { token: "aaa.bbb.ccc" })).status).toBe(401);
      expect(Date.now() - t0).toBeLessThan(8_000);
      const t1 = Date.now();
      expect((await h.call("GET", "/v1/auth/me", { token: "aaa.bbb.ccc" })).status).toBe(401);
      expect(Date.now() - t1).toBeLessThan(500);
    } finally {
      silent.stop(true);
    }
  }, 20_000);
});
