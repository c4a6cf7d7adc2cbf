// Opens the SQLite database (WAL, foreign keys, busy timeout) and applies the embedded migrations.
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { type BunSQLiteDatabase, drizzle } from "drizzle-orm/bun-sqlite";
import type { MigrationMeta } from "drizzle-orm/migrator";
import { journal, migrationSql } from "./migrations/index";
import * as schema from "./schema";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

export function openDb(file: string): Db {
  const sqlite = new Database(file, { create: true, strict: true });
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec("PRAGMA busy_timeout = 5000");
  const db = drizzle(sqlite, { schema }) as Db;
  migrate(db);
  return db;
}

/** drizzle's own bookkeeping (__drizzle_migrations), fed from the bundle instead of the disk. */
export function migrate(db: Db): void {
  const migrations: MigrationMeta[] = journal.entries.map((entry) => {
    const query = migrationSql[entry.tag];
    if (query === undefined) throw new Error(`migration ${entry.tag} is not embedded`);
    return {
      sql: query.split("--> statement-breakpoint"),
      bps: entry.breakpoints,
      folderMillis: entry.when,
      hash: createHash("sha256").update(query).digest("hex"),
    };
  });
  // drizzle exposes migrate on its dialect, not in its public types.
  const internals = db as unknown as { dialect: { migrate(m: MigrationMeta[], session: unknown, config: object): void }; session: unknown };
  internals.dialect.migrate(migrations, internals.session, {});
}

/** Runs fn inside BEGIN IMMEDIATE … COMMIT, so concurrent writers queue instead of failing mid-transaction. */
export function tx<T>(db: Db, fn: () => T): T {
  return db.$client.transaction(fn).immediate();
}

const statements = new WeakMap<Db, Map<string, unknown>>();

/**
 * A statement built once per database and reused: for the hot reads (a run polled, a list paged), where building the
 * SQL text and compiling it on every request cost more than the query itself. Pass values with sql.placeholder().
 */
export function prepared<T>(db: Db, name: string, build: () => T): T {
  let forDb = statements.get(db);
  if (!forDb) {
    forDb = new Map();
    statements.set(db, forDb);
  }
  let statement = forDb.get(name) as T | undefined;
  if (statement === undefined) {
    statement = build();
    forDb.set(name, statement);
  }
  return statement;
}
