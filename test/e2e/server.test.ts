// The whole product over real HTTP: a real server with its background workers, a real webhook receiver, real
// corpus documents. Login → key → reference (multipart) → input (presigned PUT) → workflow → run → signed webhook
// → output download that opens as a DOCX.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import Stripe from "stripe";
import { loadConfig } from "../../src/config";
import { extract } from "../../src/extract";
import { type Running, startServer } from "../../src/server";
import { CORPUS, freePort, tempDir } from "../helpers";

const RUBRIC = `# Contract review checklist

1. Confidentiality (10 points): the agreement defines confidential information and its protection.
2. Term and termination (10 points): the term, renewal and termination rights are stated.
3. Governing law (5 points): the governing law and jurisdiction are named.
`;

const INPUT = `This Agreement is governed by the laws of England and Wales, and the courts of London have jurisdiction.
Confidential Information means any information disclosed by either party that is marked confidential; the receiving
party shall protect it with reasonable care. The term of this Agreement is two years and either party may terminate it
on thirty days' written notice.`;

let server: Running;
let receiver: ReturnType<typeof Bun.serve>;
const deliveries: { headers: Headers; body: string }[] = [];
let base: string;

beforeAll(async () => {
  receiver = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      deliveries.push({ headers: req.headers, body: await req.text() });
      return new Response("ok");
    },
  });
  const port = freePort();
  const dataDir = tempDir("assay-e2e-");
  server = await startServer(
    loadConfig({
      ASSAY_LOG_LEVEL: "silent",
      ASSAY_DATA_DIR: dataDir,
      ASSAY_PORT: String(port),
      ASSAY_PUBLIC_URL: `http://127.0.0.1:${port}`,
      ASSAY_ADMIN_EMAIL: "admin@example.com",
      ASSAY_ADMIN_PASSWORD: "e2e-password",
    }),
  );
  base = `${server.url}/v1`;
});

afterAll(async () => {
  await server?.stop();
  receiver?.stop(true);
});

async function api(method: string, url: string, token: string | null, body?: unknown) {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${base}${url}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
}

test("from login to a signed webhook and a DOCX evaluation", async () => {
  const login = await api("POST", "/auth/login", null, { email: "admin@example.com", password: "e2e-password" });
  const key = (await api("POST", "/keys", login.body.token, { name: "e2e" })).body.token as string;

  // Reference document: multipart, indexed in the background.
  const form = new FormData();
  form.set("name", "Contract checklist");
  form.set("file", new File([RUBRIC], "checklist.md", { type: "text/markdown" }));
  const ref = (await (
    await fetch(`${base}/reference-documents`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form })
  ).json()) as any;
  expect(ref.status).toBe("processing");

  // Input documents: the presigned flow, once with our text and once with a real corpus PDF.
  const upload = await api("POST", "/documents", key, { filename: "agreement.txt", mime_type: "text/plain" });
  const put = await fetch(upload.body.upload_url, { method: "PUT", headers: { "content-type": "text/plain" }, body: INPUT });
  expect(put.status).toBe(200);
  const doc = await api("POST", `/documents/${upload.body.id}/complete`, key);
  expect(doc.body).toMatchObject({ object: "document", extracted: true });
  const pdfBytes = readFileSync(path.join(CORPUS, "pdf/tika-testPDF.pdf"));
  const pdfUpload = await api("POST", "/documents", key, { filename: "test.pdf", mime_type: "application/pdf", size_bytes: pdfBytes.length });
  expect((await fetch(pdfUpload.body.upload_url, { method: "PUT", headers: { "content-type": "application/pdf" }, body: pdfBytes })).status).toBe(
    200,
  );
  const pdf = await api("POST", `/documents/${pdfUpload.body.id}/complete`, key);
  expect(pdf.body.page_count).toBeGreaterThan(0);

  const endpoint = await api("POST", "/webhook-endpoints", key, { url: `http://127.0.0.1:${receiver.port}/hooks`, events: ["run.succeeded"] });
  expect(endpoint.body.secret).toMatch(/^whsec_/);

  const wf = await api("POST", "/workflows", key, {
    product_code: "legal",
    name: "Agreement review",
    reference_document_ids: [ref.id],
    output_format: "docx",
    user_prompt: "Review the agreement against the checklist.",
  });
  expect(wf.status).toBe(201);

  const run = await api("POST", `/workflows/${wf.body.id}/runs`, key, {
    input_documents: [upload.body.id, pdfUpload.body.id],
    metadata: { matter: "M-1" },
  });
  expect(run.status).toBe(202);

  let current = run.body;
  for (let i = 0; i < 100 && ["queued", "running"].includes(current.status); i++) {
    await Bun.sleep(100);
    current = (await api("GET", `/runs/${run.body.id}`, key)).body;
  }
  expect(current.status).toBe("succeeded");
  expect(current.charged_credits).toBe(current.quoted_credits);
  const ready = await api("GET", `/reference-documents/${ref.id}`, key);
  expect(ready.body.status).toBe("ready");

  // Every evidence quote is verbatim text of the document it names.
  const texts: Record<string, string> = { [upload.body.id]: INPUT.replace(/\s+/g, " "), [ref.id]: RUBRIC.replace(/\s+/g, " ") };
  for (const c of current.output.criteria) {
    for (const e of c.evidence) {
      if (texts[e.document_id]) expect(texts[e.document_id]).toContain(e.quote.replace(/\s+/g, " "));
    }
  }
  const governing = current.output.criteria.find((c: any) => /governing/i.test(c.title));
  expect(governing.score).toBeGreaterThan(0);

  // The webhook: delivered once, signed, verifiable by Stripe's library, with the full run.
  for (let i = 0; i < 50 && deliveries.length === 0; i++) await Bun.sleep(100);
  expect(deliveries).toHaveLength(1);
  const d = deliveries[0];
  expect(d.headers.get("x-service-event")).toBe("run.succeeded");
  expect(d.headers.get("x-service-delivery")).toMatch(/^whd_/);
  const event = await new Stripe("sk_test_unused").webhooks.constructEventAsync(d.body, d.headers.get("x-service-signature")!, endpoint.body.secret);
  expect(event.type as string).toBe("run.succeeded");
  const payload = JSON.parse(d.body);
  expect(payload.id).toMatch(/^evt_/);
  expect(payload.data.run).toMatchObject({ id: run.body.id, status: "succeeded", metadata: { matter: "M-1" } });
  expect(payload.data.run.output.criteria.length).toBe(current.output.criteria.length);

  // The output file: a signed download that opens as a DOCX holding the summary and every criterion.
  const out = await api("GET", `/runs/${run.body.id}/output`, key);
  const file = await fetch(out.body.url);
  expect(file.status).toBe(200);
  expect(file.headers.get("content-disposition")).toContain("attachment");
  const text = (await extract(new Uint8Array(await file.arrayBuffer()), { filename: "evaluation.docx" })).text;
  for (const c of current.output.criteria) expect(text).toContain(c.title);

  const usage = await api("GET", "/usage", key);
  expect(usage.body.total_runs).toBe(1);
  expect(usage.body.total_credits).toBe(current.charged_credits);
}, 60_000);
