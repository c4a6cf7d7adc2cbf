// Graceful shutdown: SIGTERM while a run waits on its model. The real server (a child process) stops claiming, gives
// the run its grace period, then puts it back in the queue at once; the next start finishes it, charged exactly once.
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import path from "node:path";
import { loadConfig } from "../../src/config";
import { startServer } from "../../src/server";
import { chatCompletion, freePort, spawnServer, tempDir } from "../helpers";

const dataDir = tempDir("assay-shutdown-");
const port = freePort();
const base = `http://127.0.0.1:${port}/v1`;

// The model server: a stand-in for Ollama/vLLM. It hangs until `answering` is set, then answers an evaluation.
let answering = false;
let calls = 0;
const model = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    if (new URL(req.url).pathname.endsWith("/chat/completions")) {
      calls++;
      while (!answering) await Bun.sleep(20);
      return chatCompletion();
    }
    return Response.json({ data: [{ id: "fake" }] });
  },
});

let child: ReturnType<typeof Bun.spawn> | null = null;

async function start() {
  child = await spawnServer(port, {
    ASSAY_DATA_DIR: dataDir,
    ASSAY_ADMIN_EMAIL: "stop@example.com",
    ASSAY_ADMIN_PASSWORD: "stop-password",
    ASSAY_LLM_BASE_URL: `http://127.0.0.1:${model.port}/v1`,
    ASSAY_LLM_MODEL: "fake",
    ASSAY_SHUTDOWN_GRACE_MS: "300",
  });
}

afterAll(() => {
  child?.kill("SIGKILL");
  model.stop(true);
});

async function api(method: string, url: string, token: string | null, body?: unknown) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as any;
}

test("SIGTERM during a run: it goes back to the queue at once and the next start finishes it, charged once", async () => {
  await start();
  const session = (await api("POST", "/auth/login", null, { email: "stop@example.com", password: "stop-password" })).token;
  const key = (await api("POST", "/keys", session, { name: "k" })).token;
  const doc = await api("POST", "/documents", key, { filename: "essay.txt", mime_type: "text/plain" });
  await fetch(doc.upload_url.replace(/^http:\/\/[^/]+/, `http://127.0.0.1:${port}`), {
    method: "PUT",
    headers: { "content-type": "text/plain" },
    body: "An essay.",
  });
  await api("POST", `/documents/${doc.id}/complete`, key);
  const wf = await api("POST", "/workflows", key, { product_code: "general", name: "Graceful" });
  const run = await api("POST", `/workflows/${wf.id}/runs`, key, { input_documents: [doc.id] });
  for (let i = 0; i < 200 && calls === 0; i++) await Bun.sleep(20); // running, and waiting on the model

  const t0 = performance.now();
  child?.kill("SIGTERM");
  const code = await child?.exited;
  const took = performance.now() - t0;
  expect(code).toBe(0);
  expect(took).toBeLessThan(3_000); // the 300 ms grace, not the 60 s lease or the model's 120 s timeout

  const db = new Database(path.join(dataDir, "assay.db"), { readonly: true });
  const row = db.query("SELECT status, locked_until, started_at, attempts FROM runs WHERE id = ?").get(run.id) as any;
  expect(row).toEqual({ status: "queued", locked_until: null, started_at: null, attempts: 0 });
  db.close();

  answering = true;
  await start();
  let finished: any = null;
  for (let i = 0; i < 200; i++) {
    finished = await api("GET", `/runs/${run.id}`, key);
    if (finished.status !== "queued" && finished.status !== "running") break;
    await Bun.sleep(25);
  }
  expect(finished.status).toBe("succeeded");
  expect(finished.charged_credits).toBe(run.quoted_credits);
  const after = new Database(path.join(dataDir, "assay.db"), { readonly: true });
  const ledger = after
    .query("SELECT reason, count(*) AS n, sum(delta) AS total FROM credit_ledger WHERE run_id = ? GROUP BY reason ORDER BY reason")
    .all(run.id);
  after.close();
  expect(ledger).toEqual([
    { reason: "charge", n: 1, total: -run.quoted_credits },
    { reason: "hold", n: 1, total: -run.quoted_credits },
    { reason: "release", n: 1, total: run.quoted_credits },
  ]);
}, 60_000);

// The background passes begin a moment after the server listens (src/server.ts), so a health probe is answered first.
test("a server stopped before its background passes begin stops cleanly, and they never begin on the closed database", async () => {
  const running = await startServer(
    loadConfig({ ASSAY_LOG_LEVEL: "error", ASSAY_DATA_DIR: tempDir("assay-quick-stop-"), ASSAY_PORT: String(freePort()) }),
  );
  const errors: unknown[] = [];
  running.ctx.log.error = ((...args: unknown[]) => errors.push(args)) as typeof running.ctx.log.error;
  await running.stop();
  await Bun.sleep(200); // well past the moment the passes would have begun
  expect(errors).toEqual([]);
});
