// Moving an installation: a real server on SQLite and a local data folder takes documents, a reference, workflows, a
// webhook endpoint and runs with output files; it stops; `assay migrate-store` copies the database into a fresh
// PostgreSQL database and objects/ into an S3 bucket; a server on PostgreSQL + S3 with an empty data folder of its own
// then answers every read exactly as before (same key, same login, same cursor, same Idempotency-Key answer, same file
// bytes, now from the bucket), and new uploads and runs succeed there. Also the refusals: a wrong bucket or a database
// that holds data stop it before anything is written, a copy that fails half-way keeps nothing and can be run again,
// and a missing or non-PostgreSQL --to, a folder without assay.db or without its secret are usage errors.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { AwsClient } from "aws4fetch";
import { asc, is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { closeDb, type Db, openDb } from "../../src/db/client";
import * as schema from "../../src/db/schema";
import { verifySignature } from "../../src/modules/webhooks/signature";
import { freePort, spawnServer, tempDir } from "../helpers";
import { clusterDatabaseUrl, postgresAvailable } from "../postgres";
import { S3_KEY_ID, S3_SECRET, type S3TestServer, startS3 } from "../s3-server";

const ROOT = path.resolve(import.meta.dir, "../..");
const EMAIL = "owner@example.com";
const PASSWORD = "moving-password";
/** The address clients use: the same before and after the move (each server listens on a port of its own). */
const PUBLIC_URL = "http://assay.example.internal";
const PREFIX = "moved";

const RUBRIC = `# Persuasive essay rubric

## Thesis (20 points)
A clear, arguable thesis statement about school uniforms in the introduction.

## Evidence (20 points)
Specific evidence, statistics or studies that support each claim.
`;
const ESSAY = `School uniforms should be required because they reduce bullying and focus students on learning.
A 2019 study of 40 schools found that bullying reports fell by 23 percent after uniforms were introduced.
Critics argue that uniforms limit self-expression; students can express themselves through clubs and art.`;

const oldDir = tempDir("assay-move-sqlite-");
const newDir = tempDir("assay-move-pg-");
let s3: S3TestServer;
let databaseUrl: string;
let server: { port: number; child: ReturnType<typeof Bun.spawn> } | null = null;

// The webhook receiver: each delivery's raw body and signature header.
const received: { body: string; signature: string; type: string; run: string }[] = [];
const receiver = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    const body = await req.text();
    const parsed = JSON.parse(body) as { type: string; data: { run?: { id: string } } };
    received.push({ body, signature: req.headers.get("x-service-signature") ?? "", type: parsed.type, run: parsed.data.run?.id ?? "" });
    return new Response(null, { status: 204 });
  },
});

/** The environment without any ASSAY_* setting of the caller's, so each process gets exactly the settings given. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("ASSAY_")) env[k] = v;
  return env;
}

async function start(env: Record<string, string>) {
  const port = freePort();
  // ASSAY_DATABASE_URL and ASSAY_OBJECT_STORE empty unless given: nothing of the caller's environment picks the backend.
  server = { port, child: await spawnServer(port, { ASSAY_DATABASE_URL: "", ASSAY_OBJECT_STORE: "", ...env }) };
}

async function stop() {
  if (!server) return;
  server.child.kill("SIGTERM");
  expect(await server.child.exited).toBe(0);
  server = null;
}

const COMMON = {
  ASSAY_PUBLIC_URL: PUBLIC_URL,
  ASSAY_LOG_LEVEL: "warn",
  ASSAY_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8",
  ASSAY_WEBHOOK_TIMEOUT_MS: "2000",
};

/** A URL Assay handed out (on PUBLIC_URL) as the running server's address. */
const local = (url: string) => (url.startsWith(PUBLIC_URL) && server ? `http://127.0.0.1:${server.port}${url.slice(PUBLIC_URL.length)}` : url);

async function api(method: string, url: string, token: string | null, body?: unknown): Promise<{ status: number; body: any }> {
  if (!server) throw new Error("no server running");
  const res = await fetch(`http://127.0.0.1:${server.port}/v1${url}`, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed };
}

/** POST a run with an Idempotency-Key: the status, whether it was replayed, and the body. */
async function createRun(workflowId: string, token: string, body: unknown, idempotencyKey: string) {
  if (!server) throw new Error("no server running");
  const res = await fetch(`http://127.0.0.1:${server.port}/v1/workflows/${workflowId}/runs`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, "idempotency-key": idempotencyKey },
    body: JSON.stringify(body),
  });
  return { status: res.status, replayed: res.headers.get("idempotent-replayed") === "true", body: (await res.json()) as any };
}

async function ok(method: string, url: string, token: string | null, body?: unknown, status = 200): Promise<any> {
  const r = await api(method, url, token, body);
  if (r.status !== status) throw new Error(`${method} ${url}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

async function finished(runId: string, key: string) {
  return waitFor(`run ${runId}`, async () => {
    const run = await ok("GET", `/runs/${runId}`, key);
    return run.status === "queued" || run.status === "running" ? null : run;
  });
}

/** A run as it must read the same after the move: only the signed download URL of its file is issued anew. */
const stable = (run: any) => ({
  ...run,
  output_file: run.output_file && { ...run.output_file, url: "(signed)", expires_at: "(signed)" },
});
const stablePage = (page: any) => ({ ...page, data: page.data.map(stable) });

/** Every file under the data folder's objects/ (Assay's own temporary .upload-* files left out), as keys. */
function objectKeys(root: string, prefix = ""): string[] {
  return readdirSync(root, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? objectKeys(path.join(root, e.name), `${prefix}${e.name}/`) : e.name.startsWith(".upload-") ? [] : [`${prefix}${e.name}`],
  );
}

const TABLES = (Object.values(schema) as unknown[]).filter((t): t is SQLiteTable => is(t, SQLiteTable));

/** Every row of every table, in primary-key order, read through the same table objects on either backend. */
async function dump(db: Db): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of TABLES) {
    const { name, columns, primaryKeys } = getTableConfig(table);
    const keys = primaryKeys[0]?.columns ?? columns.filter((c) => c.primary);
    out[name] = await db
      .select()
      .from(table)
      .orderBy(...(keys.length ? keys : columns).map((c) => asc(c)));
  }
  return out;
}

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

async function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const t0 = performance.now();
  const child = Bun.spawn([process.execPath, "src/main.ts", ...args], { cwd: ROOT, env: { ...cleanEnv(), ...env }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr, ms: performance.now() - t0 };
}

/** Requests to the test S3 server, signed by a client independent of Assay's. */
const bucket = () => new AwsClient({ accessKeyId: S3_KEY_ID, secretAccessKey: S3_SECRET, service: "s3", region: "us-east-1" });

/** The S3 settings without ASSAY_OBJECT_STORE: the command's --objects names the store. */
function s3Credentials(): Record<string, string> {
  const { ASSAY_OBJECT_STORE: _, ...rest } = s3.env(PREFIX);
  return rest;
}

beforeAll(async () => {
  if (!postgresAvailable) return;
  s3 = await startS3(["assay"]);
  databaseUrl = await clusterDatabaseUrl();
}, 60_000);

afterAll(async () => {
  server?.child.kill("SIGKILL");
  receiver.stop(true);
  await s3?.stop();
});

// What the SQLite installation answered before the move.
const before = {
  session: "",
  key: "",
  webhookSecret: "",
  documentId: "",
  referenceId: "",
  docxWorkflow: "",
  runIds: [] as string[],
  docxRun: "",
  csvRun: "",
  /** The 202 answer of the run created with Idempotency-Key essay-b. */
  idempotentRun: null as any,
  reads: {} as Record<string, any>,
  files: {} as Record<string, { bytes: Uint8Array<ArrayBuffer>; type: string | null; url: string }>,
  cursor: "",
};

/** The reads compared before and after, each a GET path and the token it needs. */
function readPaths(): [string, string][] {
  const k = before.key;
  return [
    ...before.runIds.map((id): [string, string] => [`/runs/${id}`, k]),
    ["/runs?limit=100", k],
    [`/runs?workflow_id=${before.docxWorkflow}`, k],
    ["/usage/balance", k],
    ["/usage", k],
    [`/documents/${before.documentId}`, k],
    [`/documents/${before.documentId}/text`, k],
    [`/reference-documents/${before.referenceId}`, k],
    ["/reference-documents", k],
    ["/workflows", k],
    ["/webhook-endpoints", k],
  ];
}

async function readAll(): Promise<Record<string, any>> {
  const out: Record<string, any> = {};
  for (const [p, token] of readPaths()) {
    const body = await ok("GET", p, token);
    out[p] = p.startsWith("/runs/") ? stable(body) : p.startsWith("/runs?") ? stablePage(body) : body;
  }
  // Keys: last_used_at moves with every request; the rest must not.
  out["/keys"] = (await ok("GET", "/keys", before.session)).data.map((k: any) => ({ ...k, last_used_at: k.last_used_at ? "(used)" : null }));
  return out;
}

async function download(runId: string, key: string) {
  const out = await ok("GET", `/runs/${runId}/output`, key);
  const res = await fetch(local(out.url));
  expect(res.status).toBe(200);
  return { bytes: new Uint8Array(await res.arrayBuffer()), type: res.headers.get("content-type"), url: out.url as string };
}

describe.skipIf(!postgresAvailable)("moving a SQLite installation to PostgreSQL + S3", () => {
  test("before: a server on SQLite and the data folder takes documents, a reference, a webhook endpoint and runs", async () => {
    await start({ ...COMMON, ASSAY_DATA_DIR: oldDir, ASSAY_ADMIN_EMAIL: EMAIL, ASSAY_ADMIN_PASSWORD: PASSWORD, ASSAY_INITIAL_CREDITS: "500" });
    before.session = (await ok("POST", "/auth/login", null, { email: EMAIL, password: PASSWORD })).token;
    before.key = (await ok("POST", "/keys", before.session, { name: "live" }, 201)).token;
    const key = before.key;

    const doc = await ok("POST", "/documents", key, { filename: "essay.txt", mime_type: "text/plain" });
    expect(doc.upload_url.startsWith(`${PUBLIC_URL}/v1/objects/`)).toBe(true); // the local store
    expect((await fetch(local(doc.upload_url), { method: "PUT", headers: { "content-type": "text/plain" }, body: ESSAY })).status).toBe(200);
    await ok("POST", `/documents/${doc.id}/complete`, key);
    before.documentId = doc.id;

    const ref = await ok(
      "POST",
      "/reference-documents",
      key,
      {
        name: "Rubric",
        filename: "rubric.md",
        mime_type: "text/markdown",
        size_bytes: Buffer.byteLength(RUBRIC),
      },
      201,
    );
    expect((await fetch(local(ref.upload_url), { method: "PUT", headers: { "content-type": "text/markdown" }, body: RUBRIC })).status).toBe(200);
    await ok("POST", `/reference-documents/${ref.id}/complete`, key);
    await waitFor("the reference to be indexed", async () => (await ok("GET", `/reference-documents/${ref.id}`, key)).status === "ready");
    before.referenceId = ref.id;

    const hook = await ok(
      "POST",
      "/webhook-endpoints",
      key,
      { url: `http://127.0.0.1:${receiver.port}/hook`, events: ["run.succeeded", "run.failed"] },
      201,
    );
    before.webhookSecret = hook.secret;

    const docx = await ok(
      "POST",
      "/workflows",
      key,
      {
        product_code: "education",
        name: "Essays (DOCX)",
        reference_document_ids: [ref.id],
        output_format: "docx",
        user_prompt: "Grade the essay against the rubric.",
      },
      201,
    );
    const csv = await ok("POST", "/workflows", key, { product_code: "general", name: "Essays (CSV)", output_format: "csv" }, 201);
    before.docxWorkflow = docx.id;
    const runs = [
      await ok("POST", `/workflows/${docx.id}/runs`, key, { input_documents: [doc.id], metadata: { student: "A" } }, 202),
      (await createRun(docx.id, key, { input_documents: [doc.id], metadata: { student: "B" } }, "essay-b")).body,
      await ok("POST", `/workflows/${csv.id}/runs`, key, { input_documents: [doc.id] }, 202),
    ];
    before.runIds = runs.map((r) => r.id);
    for (const r of runs) expect((await finished(r.id, key)).status).toBe("succeeded");
    before.docxRun = runs[0].id;
    before.idempotentRun = runs[1];
    before.csvRun = runs[2].id;
    // Every run's event delivered, so nothing is in flight when the server stops.
    await waitFor("the webhook deliveries", async () =>
      before.runIds.every((id) => received.some((d) => d.run === id && d.type === "run.succeeded")),
    );
    await waitFor("the deliveries to be recorded", async () => {
      const endpoint = (await ok("GET", "/webhook-endpoints", key)).data[0];
      const deliveries = await ok("GET", `/webhook-endpoints/${endpoint.id}/deliveries`, key);
      return deliveries.data.length === 3 && deliveries.data.every((d: any) => d.status === "succeeded");
    });

    before.reads = await readAll();
    const deliveriesPath = `/webhook-endpoints/${before.reads["/webhook-endpoints"].data[0].id}/deliveries`;
    before.reads[deliveriesPath] = await ok("GET", deliveriesPath, key);
    const first = await ok("GET", "/runs?limit=2", key);
    expect(first.next_cursor).toBeString();
    before.cursor = first.next_cursor;
    before.reads["/runs?limit=2&cursor"] = stablePage(await ok("GET", `/runs?limit=2&cursor=${encodeURIComponent(before.cursor)}`, key));
    expect(before.reads["/runs?limit=2&cursor"].data.length).toBe(1);
    expect(before.reads["/usage/balance"].pro_credits).toBeLessThan(500);

    before.files.docx = await download(before.docxRun, key);
    before.files.csv = await download(before.csvRun, key);
    expect(before.files.docx.type).toContain("wordprocessingml");
    expect(before.files.docx.bytes.length).toBeGreaterThan(1000);
    expect(before.files.csv.type).toContain("text/csv");
    await stop();
  }, 90_000);

  let migrated: CliResult;

  test("a wrong bucket stops the command before anything is copied, so it can run again once corrected", async () => {
    const wrong = await cli(["migrate-store", "--to", databaseUrl, "--objects", "s3://no-such-bucket/x", "--data-dir", oldDir], s3Credentials());
    expect(wrong.code).toBe(2);
    expect(wrong.stdout).toBe("");
    expect(wrong.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^assay: ASSAY_OBJECT_STORE: there is no bucket "no-such-bucket" at /)]);
    const db = await openDb(databaseUrl);
    try {
      for (const [table, rows] of Object.entries(await dump(db))) expect([table, rows]).toEqual([table, []]);
    } finally {
      await closeDb(db);
    }
  }, 30_000);

  test("assay migrate-store copies every row into PostgreSQL and every file into the bucket", async () => {
    const sqlite = new Database(path.join(oldDir, "assay.db"), { readonly: true });
    const counts = Object.fromEntries(
      TABLES.map((t) => getTableConfig(t).name).map((name) => [name, (sqlite.query(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n]),
    );
    sqlite.close();
    const keys = objectKeys(path.join(oldDir, "objects")).sort();
    expect(keys.length).toBe(5); // the essay, the rubric, two DOCX and one CSV output

    migrated = await cli(["migrate-store", "--to", databaseUrl, "--objects", `s3://assay/${PREFIX}`, "--data-dir", oldDir], s3Credentials());
    if (migrated.code !== 0) console.error(migrated.stdout, migrated.stderr);
    expect(migrated.code).toBe(0);
    expect(migrated.stderr).toBe("");
    const lines = migrated.stdout.trim().split("\n");
    const printed = Object.fromEntries(
      lines.flatMap((l) => {
        const m = /^(\w+): (\d+) rows$/.exec(l);
        return m ? [[m[1], Number(m[2])]] : [];
      }),
    );
    expect(printed).toEqual(counts);
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    const url = new URL(databaseUrl);
    expect(lines).toContain(`copied ${total} rows into ${url.host}${url.pathname}`);
    const bytes = keys.reduce((n, k) => n + readFileSync(path.join(oldDir, "objects", k)).length, 0);
    expect(lines).toContain(`objects: ${keys.length} copied (${bytes} bytes), 0 already there`);
    expect(lines.at(-1)).toBe("done: start every process with ASSAY_DATABASE_URL and ASSAY_OBJECT_STORE set (docs/scale.md)");

    // Row for row the same, read through the same table objects; the settings table now holds the folder's secret.
    const from = await openDb(path.join(oldDir, "assay.db"));
    const to = await openDb(databaseUrl);
    try {
      const [a, b] = [await dump(from), await dump(to)];
      const secret = readFileSync(path.join(oldDir, "secret"), "utf8").trim();
      expect(b.settings).toEqual([...a.settings, { key: "secret", value: secret }]);
      expect({ ...b, settings: [] }).toEqual({ ...a, settings: [] });
    } finally {
      await closeDb(from);
      await closeDb(to);
    }

    // Each file in the bucket under the prefix, key for key, byte for byte.
    for (const k of keys) {
      const res = await bucket().fetch(`${s3.endpoint}/assay/${PREFIX}/${k}`);
      expect(res.status).toBe(200);
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(new Uint8Array(readFileSync(path.join(oldDir, "objects", k))));
    }
  }, 60_000);

  test("it refuses a database that already holds data, in one line, and changes nothing", async () => {
    // Another installation, with a user of its own, moved by mistake into the database just filled.
    const otherDir = tempDir("assay-move-other-");
    expect((await cli(["user", "create", "--email", "other@example.com", "--password", "other-password", "--data-dir", otherDir])).code).toBe(0);
    writeFileSync(path.join(otherDir, "objects", "stray"), "a file that must not reach the bucket");
    const db = await openDb(databaseUrl);
    try {
      const snapshot = await dump(db);
      const again = await cli(["migrate-store", "--to", databaseUrl, "--objects", "s3://assay/other", "--data-dir", otherDir], s3Credentials());
      expect(again.code).toBe(1);
      expect(again.stdout).toBe("");
      expect(again.stderr.trim().split("\n")).toEqual(["assay: the target database already holds data; migrate into an empty database"]);
      expect(await dump(db)).toEqual(snapshot); // the secret too
    } finally {
      await closeDb(db);
    }
    // Nothing went to the bucket either.
    const listing = await (await bucket().fetch(`${s3.endpoint}/assay?list-type=2&prefix=other/`)).text();
    expect(listing).toContain("<ListBucketResult");
    expect(listing).not.toContain("<Key>");
  }, 30_000);

  test("a folder without assay.db, or without the secret the server signed with, is a usage error that writes nothing", async () => {
    const missing = path.join(tempDir("assay-move-none-"), "data");
    const none = await cli(["migrate-store", "--to", databaseUrl, "--data-dir", missing]);
    expect(none.code).toBe(2);
    expect(none.stderr.split("\n")[0]).toBe(`assay: ${missing} holds no assay.db to copy`);
    expect(existsSync(missing)).toBe(false);

    // A server started with ASSAY_SECRET leaves no secret file: the command must be given the same ASSAY_SECRET.
    const noSecret = tempDir("assay-move-nosecret-");
    expect(
      (
        await cli(["user", "create", "--email", "x@example.com", "--password", "x-password", "--data-dir", noSecret], {
          ASSAY_SECRET: "s".repeat(40),
        })
      ).code,
    ).toBe(0);
    expect(existsSync(path.join(noSecret, "secret"))).toBe(false);
    const refused = await cli(["migrate-store", "--to", databaseUrl, "--data-dir", noSecret]);
    expect(refused.code).toBe(2);
    expect(refused.stderr.split("\n")[0]).toBe(`assay: ${noSecret} holds no secret file: set ASSAY_SECRET to the secret the server was started with`);
    expect(existsSync(path.join(noSecret, "secret"))).toBe(false);
  }, 30_000);

  test("a copy that fails half-way keeps nothing, names the table, and can be run again", async () => {
    const fresh = await clusterDatabaseUrl();
    const dir = tempDir("assay-move-nul-");
    expect((await cli(["user", "create", "--email", "nul@example.com", "--password", "nul-password", "--data-dir", dir])).code).toBe(0);
    // A value PostgreSQL cannot store (text with a NUL character) in the second table copied, after workspaces.
    const sqlite = new Database(path.join(dir, "assay.db"));
    const { hash } = sqlite.query("SELECT password_hash AS hash FROM users").get() as { hash: string };
    sqlite.run("UPDATE users SET password_hash = ?", [`${hash}\u0000`]);
    const failed = await cli(["migrate-store", "--to", fresh, "--data-dir", dir]);
    expect(failed.code).toBe(1);
    expect(failed.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(
        /^assay: copying table users failed after 0 rows, so nothing was copied: invalid byte sequence for encoding "UTF8": 0x00$/,
      ),
    ]);
    const db = await openDb(fresh);
    try {
      for (const [table, rows] of Object.entries(await dump(db))) expect([table, rows]).toEqual([table, []]); // workspaces too, and no secret
      sqlite.run("UPDATE users SET password_hash = ?", [hash]);
      // More rows than one batch (500), with amounts that are no round binary numbers, and the balance to match.
      const { ws } = sqlite.query("SELECT id AS ws FROM workspaces").get() as { ws: string };
      const insert = sqlite.prepare(
        "INSERT INTO credit_ledger (workspace_id, kind, delta, reason, note, created_at) VALUES (?, 'bonus', ?, 'grant', ?, ?)",
      );
      let sum = 0;
      sqlite.transaction(() => {
        for (let i = 0; i < 1234; i++) {
          const delta = (i % 7) / 3 + 0.1;
          sum += delta;
          insert.run(ws, delta, `grant ${i}`, Date.now() + i);
        }
      })();
      sqlite.run("INSERT INTO credit_balances (workspace_id, kind, balance) VALUES (?, 'bonus', ?)", [ws, sum]);
      sqlite.close();
      const again = await cli(["migrate-store", "--to", fresh, "--data-dir", dir]);
      expect(again.stderr).toBe("");
      expect(again.code).toBe(0);
      expect(again.stdout).toContain("users: 1 rows\n");
      expect(again.stdout).toContain("credit_ledger: 1235 rows\n"); // with the initial grant
      const source = await openDb(path.join(dir, "assay.db"));
      try {
        expect({ ...(await dump(db)), settings: [] }).toEqual({ ...(await dump(source)), settings: [] });
      } finally {
        await closeDb(source);
      }
    } finally {
      await closeDb(db);
    }
    // New ledger rows on PostgreSQL take ids past the copied ones, and the ledger still sums to the balance.
    const pg = { ASSAY_DATABASE_URL: fresh };
    expect((await cli(["credits", "grant", "--email", "nul@example.com", "--amount", "5", "--data-dir", dir], pg)).code).toBe(0);
    expect((await cli(["doctor", "--data-dir", dir], pg)).stdout.trim()).toBe("ok: every balance equals its ledger");
  }, 30_000);

  test("a missing --to, or one that is not a postgres:// URL, is a usage error (exit 2)", async () => {
    for (const args of [[], ["--to", "mysql://db.example.com/assay"], ["--to", path.join(oldDir, "assay.db")]]) {
      const r = await cli(["migrate-store", ...args, "--data-dir", oldDir]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr.split("\n")[0]).toBe(args.length ? "assay: --to must be a postgres:// URL" : "assay: --to is required");
      expect(r.stderr).toContain("usage: assay migrate-store --to postgres://");
    }
  }, 30_000);

  test("after: a server on PostgreSQL + S3 with an empty data folder answers exactly as before, and takes new runs", async () => {
    // No admin settings: the login must come from the copied users table.
    await start({ ...COMMON, ASSAY_DATA_DIR: newDir, ASSAY_DATABASE_URL: databaseUrl, ...s3.env(PREFIX) });
    const key = before.key;
    expect((await ok("POST", "/auth/login", null, { email: EMAIL, password: PASSWORD })).token).toStartWith("sess_");

    const after = await readAll();
    const deliveriesPath = `/webhook-endpoints/${before.reads["/webhook-endpoints"].data[0].id}/deliveries`;
    after[deliveriesPath] = await ok("GET", deliveriesPath, key);
    // The cursor issued by the SQLite server still pages (it is signed with the folder's secret, now in the database).
    after["/runs?limit=2&cursor"] = stablePage(await ok("GET", `/runs?limit=2&cursor=${encodeURIComponent(before.cursor)}`, key));
    expect(after).toEqual(before.reads);

    // The stored Idempotency-Key answer moved too: a retry of that request replays it instead of creating a run.
    const retried = await createRun(before.docxWorkflow, key, { input_documents: [before.documentId], metadata: { student: "B" } }, "essay-b");
    expect(retried).toEqual({ status: 202, replayed: true, body: before.idempotentRun });

    // The output files: now presigned GETs on the bucket, the same bytes and type.
    for (const [name, runId] of [
      ["docx", before.docxRun],
      ["csv", before.csvRun],
    ] as const) {
      const file = await download(runId, key);
      expect(file.url.startsWith(`${s3.endpoint}/assay/${PREFIX}/`)).toBe(true);
      expect(file.bytes).toEqual(before.files[name].bytes);
      expect(file.type).toBe(before.files[name].type);
      // A /v1/objects link issued before the move still works (same secret), served from the bucket.
      const old = await fetch(local(before.files[name].url));
      expect(old.status).toBe(200);
      expect(new Uint8Array(await old.arrayBuffer())).toEqual(before.files[name].bytes);
    }

    // New work: an upload straight to the bucket, a new reference indexed, a run charged, its webhook signed as before.
    const doc = await ok("POST", "/documents", key, { filename: "essay2.txt", mime_type: "text/plain" });
    expect(doc.upload_url.startsWith(`${s3.endpoint}/assay/${PREFIX}/`)).toBe(true);
    expect(
      (await fetch(doc.upload_url, { method: "PUT", headers: { "content-type": "text/plain" }, body: `${ESSAY}\nA second essay.` })).status,
    ).toBe(200);
    await ok("POST", `/documents/${doc.id}/complete`, key);
    const ref = await ok(
      "POST",
      "/reference-documents",
      key,
      {
        name: "Rubric 2",
        filename: "rubric2.md",
        mime_type: "text/markdown",
        size_bytes: Buffer.byteLength(RUBRIC),
      },
      201,
    );
    expect((await fetch(ref.upload_url, { method: "PUT", headers: { "content-type": "text/markdown" }, body: RUBRIC })).status).toBe(200);
    await ok("POST", `/reference-documents/${ref.id}/complete`, key);
    await waitFor("the new reference to be indexed", async () => (await ok("GET", `/reference-documents/${ref.id}`, key)).status === "ready");
    const wf = await ok(
      "POST",
      "/workflows",
      key,
      {
        product_code: "education",
        name: "Essays after the move",
        reference_document_ids: [before.referenceId, ref.id],
        output_format: "docx",
      },
      201,
    );
    const created = await ok("POST", `/workflows/${wf.id}/runs`, key, { input_documents: [doc.id, before.documentId] }, 202);
    const run = await finished(created.id, key);
    expect(run.status).toBe("succeeded");
    const file = await download(run.id, key);
    expect(file.url.startsWith(`${s3.endpoint}/assay/${PREFIX}/`)).toBe(true);
    expect(file.type).toContain("wordprocessingml");
    const balance = await ok("GET", "/usage/balance", key);
    expect(balance.pro_credits).toBeCloseTo(before.reads["/usage/balance"].pro_credits - run.charged_credits, 6);
    expect((await ok("GET", "/runs?limit=100", key)).data.map((r: any) => r.id)).toEqual([
      run.id,
      ...before.reads["/runs?limit=100"].data.map((r: any) => r.id),
    ]);
    const hook = await waitFor("the new run's webhook", async () => received.find((d) => d.run === run.id));
    expect(verifySignature(hook.body, hook.signature, before.webhookSecret)).toBe(true);
    await stop();

    // The ledger still sums to the balance.
    const doctor = await cli(["doctor", "--data-dir", newDir], { ASSAY_DATABASE_URL: databaseUrl });
    expect(doctor.stdout.trim()).toBe("ok: every balance equals its ledger");
    expect(doctor.code).toBe(0);
  }, 90_000);
});
