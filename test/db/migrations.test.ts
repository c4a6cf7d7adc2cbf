// Embedded SQLite migrations: a fresh database and an up-to-date one both open; WAL, foreign keys and FTS5 are on.
// (SQLite-only by nature: these read the SQLite file itself. The PostgreSQL migrations have their own test.)
import type { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import path from "node:path";
import { closeDb, type Db, openDb, sqliteConnection } from "../../src/db/client";
import { journal } from "../../src/db/migrations/index";
import { checkBalances, getBalance } from "../../src/modules/usage/service";
import { tempDir } from "../helpers";

/** A SQLite database and its writing connection. */
async function open(file = path.join(tempDir(), "assay.db")): Promise<{ db: Db; c: Database }> {
  const db = await openDb(file);
  return { db, c: sqliteConnection(db) as Database };
}

test("a fresh database gets every migration, and reopening applies none twice", async () => {
  const file = path.join(tempDir(), "assay.db");
  const first = await open(file);
  const applied = first.c.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number };
  expect(applied.n).toBe(journal.entries.length);
  await closeDb(first.db);
  const again = (await open(file)).c;
  expect((again.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n).toBe(journal.entries.length);
  const tables = (again.query("SELECT name FROM sqlite_master WHERE type IN ('table')").all() as { name: string }[]).map((r) => r.name);
  for (const t of [
    "users",
    "workspaces",
    "api_keys",
    "sessions",
    "credit_ledger",
    "runs",
    "workflows",
    "documents",
    "chunks",
    "chunks_fts",
    "events",
    "webhook_deliveries",
  ]) {
    expect(tables).toContain(t);
  }
});

test("pragmas: WAL, foreign keys, busy timeout", async () => {
  const { c } = await open();
  expect((c.query("PRAGMA journal_mode").get() as any).journal_mode).toBe("wal");
  expect((c.query("PRAGMA foreign_keys").get() as any).foreign_keys).toBe(1);
  expect((c.query("PRAGMA busy_timeout").get() as any).timeout).toBe(5000);
});

test("reads go through a read-only connection: a write outside tx() fails instead of racing the writer", async () => {
  const { db } = await open();
  const { workspaces } = await import("../../src/db/schema");
  await expect(Promise.resolve().then(() => db.insert(workspaces).values({ id: "ws_x", name: "x", createdAt: 0 }))).rejects.toThrow(/readonly/i);
});

test("FTS5 index follows the chunks table and ranks with bm25", async () => {
  const { c } = await open();
  c.run("INSERT INTO workspaces (id, name, created_at) VALUES ('ws_1', 'w', 0)");
  c.run("INSERT INTO documents (id, workspace_id, filename, object_key, status, created_at) VALUES ('doc_1', 'ws_1', 'a.txt', 'k', 'extracted', 0)");
  c.run(
    "INSERT INTO chunks (workspace_id, document_id, ord, text, location, start_offset) VALUES ('ws_1', 'doc_1', 0, 'The thesis statement is clear and arguable', '{}', 0)",
  );
  c.run(
    "INSERT INTO chunks (workspace_id, document_id, ord, text, location, start_offset) VALUES ('ws_1', 'doc_1', 1, 'Citations follow APA style', '{}', 50)",
  );
  const hits = c.query("SELECT rowid, bm25(chunks_fts) AS score FROM chunks_fts WHERE chunks_fts MATCH 'thesis' ORDER BY score").all();
  expect(hits).toHaveLength(1);
  c.run("DELETE FROM chunks WHERE ord = 0");
  expect(c.query("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'thesis'").all()).toHaveLength(0);
});

test("a foreign key violation is refused", async () => {
  const { c } = await open();
  expect(() => c.run("INSERT INTO users (id, workspace_id, email, role, created_at) VALUES ('usr_1', 'ws_missing', 'a@b', 'member', 0)")).toThrow();
});

test("a database made by an older release is upgraded in place, its rows kept", async () => {
  const file = path.join(tempDir(), "assay.db");
  // What an older binary would have left: only the first migrations applied, and some data.
  const { Database } = require("bun:sqlite") as typeof import("bun:sqlite");
  const { createHash } = require("node:crypto") as typeof import("node:crypto");
  const { migrationSql } = require("../../src/db/migrations/index") as typeof import("../../src/db/migrations/index");
  const old = new Database(file);
  old.run('CREATE TABLE "__drizzle_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)');
  for (const entry of journal.entries.slice(0, 2)) {
    for (const stmt of migrationSql[entry.tag].split("--> statement-breakpoint")) old.run(stmt);
    old.run('INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES (?, ?)', [
      createHash("sha256").update(migrationSql[entry.tag]).digest("hex"),
      entry.when,
    ]);
  }
  old.run("INSERT INTO workspaces (id, name, created_at) VALUES ('ws_old', 'kept', 1)");
  for (const [kind, delta] of [
    ["regular", 100],
    ["regular", -7.5],
    ["bonus", 20],
    ["regular", 2.25],
  ] as const) {
    old.run("INSERT INTO credit_ledger (workspace_id, kind, delta, reason, created_at) VALUES ('ws_old', ?, ?, 'grant', 1)", [kind, delta]);
  }
  old.close();
  const { db, c } = await open(file);
  expect((c.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n).toBe(journal.entries.length);
  expect(c.query("SELECT name FROM sqlite_master WHERE name = 'documents_object_key'").get()).not.toBeNull();
  expect((c.query("SELECT name FROM workspaces WHERE id = 'ws_old'").get() as { name: string }).name).toBe("kept");
  // The balance rows start as the old ledger's sums.
  expect(await getBalance(db, "ws_old")).toMatchObject({ regular_pro: 94.75, bonus_pro: 20, pro_credits: 114.75 });
  expect(await checkBalances(db)).toEqual([]);
});
