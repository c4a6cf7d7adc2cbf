// Idempotency survives SIGKILL: a real server process is killed at random moments while clients create runs with
// Idempotency-Keys, restarted on the same data folder, and every client retries with its key until it gets an answer.
// Afterwards: exactly one run per key, every run a client was told about still exists, and the ledger is consistent.
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import path from "node:path";
import { freePort, spawnServer, tempDir } from "../helpers";

const KILLS = 20;
const KEYS = 120;
const CLIENTS = 8;
const INITIAL_CREDITS = 100_000;
const dataDir = tempDir("assay-crash-");
const port = freePort();
const base = `http://127.0.0.1:${port}/v1`;
let child: ReturnType<typeof Bun.spawn> | null = null;

async function start() {
  child = await spawnServer(port, {
    ASSAY_DATA_DIR: dataDir,
    ASSAY_PUBLIC_URL: `http://127.0.0.1:${port}`,
    ASSAY_ADMIN_EMAIL: "crash@example.com",
    ASSAY_ADMIN_PASSWORD: "crash-test-password",
    ASSAY_INITIAL_CREDITS: String(INITIAL_CREDITS),
  });
}

async function kill() {
  child?.kill("SIGKILL");
  await child?.exited;
  child = null;
}

afterAll(async () => {
  await kill();
});

async function api(method: string, url: string, token: string, body?: unknown) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

test(`${KILLS} SIGKILLs during idempotent run creation leave exactly one run per key`, async () => {
  await start();
  const login = await fetch(`${base}/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "crash@example.com", password: "crash-test-password" }),
  });
  const session = ((await login.json()) as any).token as string;
  const key = (await api("POST", "/keys", session, { name: "crash" })).body.token as string;
  const doc = (await api("POST", "/documents", key, { filename: "essay.txt", mime_type: "text/plain" })).body;
  expect(
    (await fetch(doc.upload_url, { method: "PUT", headers: { "content-type": "text/plain" }, body: "A short essay about rivers and the sea." }))
      .status,
  ).toBe(200);
  expect((await api("POST", `/documents/${doc.id}/complete`, key)).status).toBe(200);
  const workflow = (await api("POST", "/workflows", key, { product_code: "education", name: "Crash", user_prompt: "Grade the essay." })).body;
  expect(workflow.id).toStartWith("wf_");

  // Each client takes the next key and retries it (network errors, in-progress answers) until it gets a 202.
  const answered = new Map<string, string>(); // idempotency key -> run id the client was told
  const keys = Array.from({ length: KEYS }, (_, i) => `crash-${i}-${crypto.randomUUID()}`);
  let next = 0;
  let attempts = 0;
  const client = async () => {
    for (;;) {
      const k = keys[next++];
      if (k === undefined) return;
      for (;;) {
        attempts++;
        try {
          const res = await fetch(`${base}/workflows/${workflow.id}/runs`, {
            method: "POST",
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": k },
            body: JSON.stringify({ input_documents: [doc.id], metadata: { idempotency_key: k } }),
          });
          const body = (await res.json()) as any;
          if (res.status === 202) {
            const earlier = answered.get(k);
            if (earlier) expect(body.id).toBe(earlier); // a replay names the same run
            answered.set(k, body.id);
            break;
          }
          expect([409, 503]).toContain(res.status); // idempotency_in_progress while the first attempt runs
        } catch {
          // connection refused or reset: the server is down; retry
        }
        await Bun.sleep(5 + Math.random() * 20);
      }
    }
  };
  const clients = Array.from({ length: CLIENTS }, client);

  // The killer: SIGKILL at a random moment, restart on the same data folder.
  for (let i = 0; i < KILLS; i++) {
    await Bun.sleep(20 + Math.random() * 120);
    await kill();
    await start();
  }
  await Promise.all(clients);
  expect(answered.size).toBe(KEYS);

  // Replaying every key after the storm names the same run.
  for (const k of keys) {
    const res = await fetch(`${base}/workflows/${workflow.id}/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": k },
      body: JSON.stringify({ input_documents: [doc.id], metadata: { idempotency_key: k } }),
    });
    expect(res.status).toBe(202);
    expect(res.headers.get("idempotent-replayed")).toBe("true");
    expect(((await res.json()) as any).id).toBe(answered.get(k));
  }
  await kill();

  const db = new Database(path.join(dataDir, "assay.db"), { readonly: true });
  try {
    const runs = db.query("SELECT id, status, key_mode, quoted_credits, charged_credits, metadata FROM runs").all() as any[];
    const perKey = new Map<string, string[]>();
    for (const run of runs) {
      const k = JSON.parse(run.metadata).idempotency_key as string;
      perKey.set(k, [...(perKey.get(k) ?? []), run.id]);
    }
    const duplicates = [...perKey.entries()].filter(([, ids]) => ids.length > 1);
    console.log(`${KILLS} kills, ${KEYS} keys, ${attempts} requests, ${runs.length} runs, ${duplicates.length} keys with two runs`);
    expect(duplicates).toEqual([]);
    // No run lost: every run a client was told about exists, and it is the key's only run.
    for (const [k, id] of answered) expect(perKey.get(k)).toEqual([id]);
    expect(runs.length).toBe(KEYS);

    // The ledger: every hold has its run; the balance is the grant minus what succeeded runs were charged and what
    // unfinished runs hold (failed and canceled runs released theirs).
    const orphans = db.query("SELECT count(*) AS n FROM credit_ledger WHERE run_id IS NOT NULL AND run_id NOT IN (SELECT id FROM runs)").get() as any;
    expect(orphans.n).toBe(0);
    const balance = (db.query("SELECT coalesce(sum(delta), 0) AS total FROM credit_ledger").get() as any).total as number;
    let expected = INITIAL_CREDITS;
    for (const run of runs) {
      if (run.status === "succeeded") expected -= run.charged_credits;
      else if (run.status === "queued" || run.status === "running") expected -= run.quoted_credits;
    }
    expect(balance).toBeCloseTo(expected, 6);
    const perRun = db
      .query("SELECT run_id, sum(CASE WHEN reason = 'hold' THEN 1 ELSE 0 END) AS holds FROM credit_ledger WHERE run_id IS NOT NULL GROUP BY run_id")
      .all() as any[];
    for (const row of perRun) expect(row.holds).toBeGreaterThanOrEqual(1);
    expect(perRun.length).toBe(KEYS);
  } finally {
    db.close();
  }
}, 120_000);
