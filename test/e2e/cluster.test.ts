// Many processes, one API: three Assay servers (child processes) on one PostgreSQL database and one S3 bucket, behind a
// round-robin proxy. 100 runs with webhooks; one server is SIGKILLed half-way. Every run ends exactly once, each
// run's event reaches the receiver, the ledger sums to the balance, and no run is created twice.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { closeDb, type Db, openDb, rows } from "../../src/db/client";
import { creditLedger, events, runs } from "../../src/db/schema";
import { checkBalances } from "../../src/modules/usage/service";
import { chatCompletion, freePort, spawnServer, tempDir } from "../helpers";
import { clusterDatabaseUrl, postgresAvailable } from "../postgres";
import { type S3TestServer, startS3 } from "../s3-server";

const RUNS = 100;
const LEASE_MS = 2_000;
const WORKERS = 2;

let s3: S3TestServer;
let databaseUrl: string;
const servers: { port: number; child: ReturnType<typeof Bun.spawn> }[] = [];

// The model: answers every evaluation after a short wait; while `holding`, it answers nothing, so every server's
// workers are known to be mid-run when one server dies.
let holding = false;
let inFlight = 0;
const model = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    if (!new URL(req.url).pathname.endsWith("/chat/completions")) return Response.json({ data: [{ id: "fake" }] });
    inFlight++;
    while (holding) await Bun.sleep(20);
    inFlight--;
    await Bun.sleep(100);
    return chatCompletion();
  },
});

// The webhook receiver: every delivery's event id and type.
const received: { id: string; type: string; run: string }[] = [];
const receiver = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    const body = (await req.json()) as { id: string; type: string; data: { run?: { id: string } } };
    received.push({ id: body.id, type: body.type, run: body.data.run?.id ?? "" });
    return new Response(null, { status: 204 });
  },
});

// The load balancer: round robin over the servers; a server that refuses the connection is skipped (as nginx's
// proxy_next_upstream does), which is safe here because every POST carries an Idempotency-Key.
let next = 0;
const proxy = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    const url = new URL(req.url);
    const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
    for (let tries = 0; tries < servers.length; tries++) {
      const server = servers[next++ % servers.length];
      try {
        return await fetch(`http://127.0.0.1:${server.port}${url.pathname}${url.search}`, { method: req.method, headers: req.headers, body });
      } catch {}
    }
    return new Response("no server answered", { status: 502 });
  },
});
const base = `http://127.0.0.1:${proxy.port}/v1`;

async function startServer() {
  const port = freePort();
  const child = await spawnServer(port, {
    ASSAY_DATA_DIR: tempDir("assay-cluster-"),
    ASSAY_DATABASE_URL: databaseUrl,
    ...s3.env("cluster"),
    ASSAY_PUBLIC_URL: `http://127.0.0.1:${proxy.port}`,
    ASSAY_ADMIN_EMAIL: "ops@example.com",
    ASSAY_ADMIN_PASSWORD: "cluster-password",
    ASSAY_LLM_BASE_URL: `http://127.0.0.1:${model.port}/v1`,
    ASSAY_LLM_MODEL: "fake",
    ASSAY_LEASE_MS: String(LEASE_MS),
    ASSAY_WORKERS: String(WORKERS),
    ASSAY_WEBHOOK_TIMEOUT_MS: "2000",
    ASSAY_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8",
    ASSAY_INITIAL_CREDITS: "100000",
    ASSAY_DEFAULT_RPM: "1000000", // the test polls every run; the rate-limit test sets its own limits
    ASSAY_LOG_LEVEL: "warn",
  });
  servers.push({ port, child });
}

beforeAll(async () => {
  if (!postgresAvailable) return;
  s3 = await startS3(["assay"]);
  databaseUrl = await clusterDatabaseUrl();
  await startServer(); // the first one migrates and creates the admin; the others find both done
  await Promise.all([startServer(), startServer()]);
}, 60_000);

afterAll(async () => {
  for (const s of servers) s.child.kill("SIGKILL");
  proxy.stop(true);
  model.stop(true);
  receiver.stop(true);
  await s3?.stop();
});

/** A request through the proxy; a network failure or 502 (the server died mid-request) is retried, the same key kept. */
async function api(method: string, path: string, token: string | null, body?: unknown, idempotencyKey?: string) {
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          "content-type": "application/json",
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if ((res.status === 502 || res.status === 409) && attempt < 50) {
        // 409 idempotency_in_progress: an earlier attempt of this request still executes on the process this one reached.
        await Bun.sleep(200);
        continue;
      }
      return { status: res.status, body: (await res.json()) as any };
    } catch (err) {
      if (attempt >= 50) throw err;
      await Bun.sleep(100);
    }
  }
}

test.skipIf(!postgresAvailable)(
  "three processes, one database and bucket: a SIGKILLed process's runs are finished by the others, each exactly once",
  async () => {
    const session = (await api("POST", "/auth/login", null, { email: "ops@example.com", password: "cluster-password" })).body.token;
    const key = (await api("POST", "/keys", session, { name: "cluster" })).body.token;
    const hook = await api("POST", "/webhook-endpoints", key, {
      url: `http://127.0.0.1:${receiver.port}/hook`,
      events: ["run.succeeded", "run.failed"],
    });
    expect(hook.status).toBe(201);
    const doc = (await api("POST", "/documents", key, { filename: "essay.txt", mime_type: "text/plain" })).body;
    expect(doc.upload_url.startsWith(s3.endpoint)).toBe(true); // the bytes go to the store, not through Assay
    expect((await fetch(doc.upload_url, { method: "PUT", headers: { "content-type": "text/plain" }, body: "An essay about rivers." })).status).toBe(
      200,
    );
    expect((await api("POST", `/documents/${doc.id}/complete`, key)).status).toBe(200);
    const wf = (await api("POST", "/workflows", key, { product_code: "general", name: "Cluster" })).body;

    const created: string[] = [];
    const create = async (i: number) => {
      const r = await api("POST", `/workflows/${wf.id}/runs`, key, { input_documents: [doc.id] }, `cluster-run-${i}`);
      if (r.status !== 202) console.error("create", i, r.status, JSON.stringify(r.body));
      expect(r.status).toBe(202);
      created[i] = r.body.id;
    };
    holding = true;
    for (let i = 0; i < RUNS / 2; i += 10) await Promise.all(Array.from({ length: 10 }, (_, j) => create(i + j)));
    // Half-way, with every server's every worker mid-run (waiting on the model): one server dies without a word.
    for (let i = 0; i < 500 && inFlight < servers.length * WORKERS; i++) await Bun.sleep(20);
    expect(inFlight).toBe(servers.length * WORKERS);
    servers[1].child.kill("SIGKILL");
    await servers[1].child.exited;
    holding = false;
    for (let i = RUNS / 2; i < RUNS; i += 10) await Promise.all(Array.from({ length: 10 }, (_, j) => create(i + j)));
    expect(new Set(created).size).toBe(RUNS);

    // Every run finishes: the dead server's are recovered once their lease ends.
    const deadline = Date.now() + 90_000;
    let pending = created;
    while (pending.length && Date.now() < deadline) {
      const states = await Promise.all(pending.map(async (id) => [id, (await api("GET", `/runs/${id}`, key)).body.status] as const));
      pending = states.filter(([, s]) => s === "queued" || s === "running").map(([id]) => id);
      if (pending.length) await Bun.sleep(250);
    }
    expect(pending).toEqual([]);
    for (const id of created) expect((await api("GET", `/runs/${id}`, key)).body.status).toBe("succeeded");

    const db: Db = await openDb(databaseUrl);
    try {
      // Exactly the runs the client created, each with one terminal event and one hold and one charge in the ledger.
      const all = await db.select({ id: runs.id, attempts: runs.attempts }).from(runs);
      expect(all.map((r) => r.id).sort()).toEqual([...created].sort());
      // The dead server held two runs when it died: they were taken over (a second attempt), and still charged once.
      expect(all.filter((r) => r.attempts > 1).length).toBe(WORKERS);
      const terminal = await db.select({ runId: events.subjectId, type: events.type }).from(events);
      for (const id of created) expect(terminal.filter((e) => e.runId === id).map((e) => e.type)).toEqual(["run.succeeded"]);
      const moves = await rows<{ reason: string; n: number }>(
        db,
        sql`SELECT reason, CAST(count(DISTINCT run_id) AS INTEGER) AS n FROM credit_ledger WHERE run_id IS NOT NULL GROUP BY reason ORDER BY reason`,
      );
      expect(moves.find((m) => m.reason === "hold")?.n).toBe(RUNS);
      expect(moves.find((m) => m.reason === "charge")?.n).toBe(RUNS);
      expect(await checkBalances(db)).toEqual([]);
      const first = await db.select({ reason: creditLedger.reason }).from(creditLedger).where(eq(creditLedger.runId, created[0]));
      expect([...new Set(first.map((m) => m.reason))].sort()).toEqual(["charge", "hold", "release"]);
      // Each run's event reached the receiver (at least once: a delivery cut by the crash may arrive twice).
      const deadlineHooks = Date.now() + 30_000;
      while (new Set(received.map((r) => r.run)).size < RUNS && Date.now() < deadlineHooks) await Bun.sleep(200);
      expect(new Set(received.filter((r) => r.type === "run.succeeded").map((r) => r.run)).size).toBe(RUNS);
      // One cursor walked through the proxy (each page from another process): every run once, none twice.
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { data: { id: string }[]; next_cursor: string | null } = (
          await api("GET", `/runs?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, key)
        ).body;
        paged.push(...page.data.map((r) => r.id));
        cursor = page.next_cursor;
      } while (cursor);
      expect(paged.length).toBe(RUNS);
      expect([...paged].sort()).toEqual([...created].sort());
    } finally {
      await closeDb(db);
    }
  },
  180_000,
);

/** A request straight to one server, bypassing the proxy. */
const direct = (port: number, path: string, token: string) =>
  fetch(`http://127.0.0.1:${port}/v1${path}`, { headers: { authorization: `Bearer ${token}` } });

test.skipIf(!postgresAvailable)(
  "a key's rate limit holds across the processes together, and a revoked key stops working on every process within 5 s",
  async () => {
    const alive = servers.filter((s) => s.child.exitCode === null && !s.child.killed);
    expect(alive.length).toBeGreaterThanOrEqual(2);
    const session = (await api("POST", "/auth/login", null, { email: "ops@example.com", password: "cluster-password" })).body.token;
    // Not across a minute boundary: the window is the clock's minute.
    if (Date.now() % 60_000 > 50_000) await Bun.sleep(60_000 - (Date.now() % 60_000) + 100);
    const limited = (await api("POST", "/keys", session, { name: "limited", rate_limit_rpm: 20 })).body.token;
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await direct(alive[i % alive.length].port, "/products", limited)).status);
    expect(statuses.filter((s) => s === 200).length).toBe(20);
    expect(statuses.filter((s) => s === 429).length).toBe(10);
    // A larger limit is reserved a twentieth at a time per process: never more than the limit in all, and at most a
    // share per process short of it.
    const wide = (await api("POST", "/keys", session, { name: "wide", rate_limit_rpm: 200 })).body.token;
    const wideStatuses = await Promise.all(
      Array.from({ length: 260 }, (_, i) => direct(alive[i % alive.length].port, "/products", wide).then((r) => r.status)),
    );
    const allowed = wideStatuses.filter((s) => s === 200).length;
    expect(allowed).toBeLessThanOrEqual(200);
    expect(allowed).toBeGreaterThanOrEqual(200 - alive.length * 10);
    expect(allowed + wideStatuses.filter((s) => s === 429).length).toBe(260);

    const created = (await api("POST", "/keys", session, { name: "to revoke" })).body;
    for (const s of alive) expect((await direct(s.port, "/products", created.token)).status).toBe(200); // cached everywhere
    const revoked = await fetch(`http://127.0.0.1:${alive[0].port}/v1/keys/${created.public_id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${session}` },
    });
    expect(revoked.status).toBeLessThan(300);
    const t0 = Date.now();
    for (const s of alive) {
      while ((await direct(s.port, "/products", created.token)).status !== 401) {
        expect(Date.now() - t0).toBeLessThan(5_500);
        await Bun.sleep(100);
      }
    }
  },
  90_000,
);

test.skipIf(!postgresAvailable)(
  "the same Idempotency-Key sent to every process at once creates one run, and every answer names it",
  async () => {
    const alive = servers.filter((s) => s.child.exitCode === null && !s.child.killed);
    expect(alive.length).toBeGreaterThanOrEqual(2);
    const session = (await api("POST", "/auth/login", null, { email: "ops@example.com", password: "cluster-password" })).body.token;
    const key = (await api("POST", "/keys", session, { name: "same key" })).body.token;
    const doc = (await api("POST", "/documents", key, { filename: "e.txt", mime_type: "text/plain" })).body;
    expect((await fetch(doc.upload_url, { method: "PUT", headers: { "content-type": "text/plain" }, body: "Rivers." })).status).toBe(200);
    expect((await api("POST", `/documents/${doc.id}/complete`, key)).status).toBe(200);
    const wf = (await api("POST", "/workflows", key, { product_code: "general", name: "Same key" })).body;
    const post = (port: number, k: string) =>
      fetch(`http://127.0.0.1:${port}/v1/workflows/${wf.id}/runs`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": k },
        body: JSON.stringify({ input_documents: [doc.id] }),
      }).then(async (r) => ({ status: r.status, replayed: r.headers.get("idempotent-replayed"), body: (await r.json()) as any }));
    const KEYS = 20;
    for (let i = 0; i < KEYS; i++) {
      const answers = await Promise.all(alive.flatMap((s) => [post(s.port, `same-${i}`), post(s.port, `same-${i}`)]));
      const ids = new Set(answers.filter((a) => a.status === 202).map((a) => a.body.id));
      expect(ids.size).toBe(1);
      // Within one process the second request finds the first in flight (409) or answered (a replay).
      for (const a of answers) if (a.status !== 202) expect(a.body.error.code).toBe("idempotency_in_progress");
      expect(answers.filter((a) => a.status === 202 && a.replayed === null).length).toBe(1);
    }
    const db: Db = await openDb(databaseUrl);
    try {
      const made = await db.select({ id: runs.id }).from(runs).where(eq(runs.workflowId, wf.id));
      expect(made.length).toBe(KEYS);
    } finally {
      await closeDb(db);
    }
  },
  60_000,
);
