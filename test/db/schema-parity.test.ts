// The PostgreSQL schema mirrors the SQLite one (same tables, columns, keys, indexes; types for the same JS values); both migration folders are complete.
import { describe, expect, test } from "bun:test";
import path from "node:path";
import { generateDrizzleJson, generateMigration, generateSQLiteDrizzleJson, generateSQLiteMigration } from "drizzle-kit/api";
import { is } from "drizzle-orm";
import { PgTable, getTableConfig as pgConfig } from "drizzle-orm/pg-core";
import { SQLiteTable, getTableConfig as sqliteConfig } from "drizzle-orm/sqlite-core";
import * as sqliteMigrations from "../../src/db/migrations/index";
import * as pgMigrations from "../../src/db/migrations-pg/index";
import * as sqliteSchema from "../../src/db/schema";
import * as pgSchema from "../../src/db/schema.pg";

/** The PostgreSQL column types that hold what each SQLite column type holds, as the same JS value. */
const storage: Record<string, string[]> = {
  SQLiteInteger: ["PgInteger", "PgBigInt53"],
  SQLiteReal: ["PgDoublePrecision"],
  SQLiteText: ["PgText"],
  // JSON stays text: the SQLite column object stringifies and parses it itself.
  SQLiteTextJson: ["PgText"],
};

/** What either dialect's getTableConfig answers, as far as this comparison reads it. */
type Column = { name: string; notNull: boolean; default: unknown; primary: boolean };
type Config = {
  name: string;
  columns: Column[];
  primaryKeys: { columns: Column[] }[];
  indexes: { config: { name?: string; unique: boolean; columns: unknown[] } }[];
  foreignKeys: { reference(): { columns: Column[]; foreignTable: object; foreignColumns: Column[] } }[];
};

/** One table's names, keys and indexes; autoId: the column ids itself (SQLite autoincrement, PostgreSQL identity). */
function shape(table: object, config: (table: never) => Config, autoId: (column: Column) => boolean) {
  const c = config(table as never);
  const keys = new Map(Object.entries(table).map(([key, col]) => [col, key]));
  const names = (cols: unknown[]) => cols.map((col) => (col as Column).name);
  return {
    name: c.name,
    columns: Object.fromEntries(
      c.columns.map((col) => [col.name, { key: keys.get(col), notNull: col.notNull, default: col.default, autoId: autoId(col) }]),
    ),
    primaryKey: [...names(c.columns.filter((col) => col.primary)), ...c.primaryKeys.flatMap((pk) => names(pk.columns))],
    indexes: Object.fromEntries(c.indexes.map(({ config: i }) => [i.name, { unique: i.unique, columns: names(i.columns) }])),
    foreignKeys: c.foreignKeys
      .map((fk) => fk.reference())
      .map((r) => `(${names(r.columns)}) -> ${config(r.foreignTable as never).name}(${names(r.foreignColumns)})`)
      .sort(),
  };
}

const sqliteTables = Object.entries(sqliteSchema as Record<string, unknown>).flatMap(([name, t]) => (is(t, SQLiteTable) ? [[name, t] as const] : []));
const pgTables = new Map(Object.entries(pgSchema as Record<string, unknown>).flatMap(([name, t]) => (is(t, PgTable) ? [[name, t] as const] : [])));
const sqliteShape = (table: SQLiteTable) => shape(table, sqliteConfig, (col) => "autoIncrement" in col && col.autoIncrement === true);
const pgShape = (table: PgTable) =>
  shape(table, pgConfig, (col) => "generatedIdentity" in col && (col.generatedIdentity as { type?: string } | undefined)?.type === "byDefault");

test("schema.pg.ts has a table for every SQLite table, under the same export name, and no other", () => {
  expect([...pgTables.keys()].sort()).toEqual(sqliteTables.map(([name]) => name).sort());
});

describe.each(sqliteTables)("%s", (exportName, sqliteTable) => {
  const pgTable = pgTables.get(exportName);

  test("same SQL name, columns, not-null flags, defaults, primary key, indexes and foreign keys", () => {
    expect(pgTable).toBeDefined();
    if (pgTable) expect(pgShape(pgTable)).toEqual(sqliteShape(sqliteTable));
  });

  test("each column's PostgreSQL type holds the SQLite column's JS value", () => {
    const pgColumns = new Map(pgTable ? pgConfig(pgTable).columns.map((col) => [col.name, col]) : []);
    for (const col of sqliteConfig(sqliteTable).columns) {
      const pgType = pgColumns.get(col.name)?.columnType;
      expect({ column: col.name, ok: storage[col.columnType]?.includes(pgType ?? "") }).toEqual({ column: col.name, ok: true });
      // Times are milliseconds since the epoch, past 2^31: a 32-bit integer would overflow.
      if (col.name.endsWith("_at")) expect({ column: col.name, pgType }).toEqual({ column: col.name, pgType: "PgBigInt53" });
    }
  });
});

test("chunks' tsvector column lives only in the fts migration, so the table objects never select it", () => {
  expect(pgConfig(pgSchema.chunks).columns.map((col) => col.name)).not.toContain("tsv");
  expect(pgMigrations.migrationSql["0001_fts"]).toContain('ADD COLUMN "tsv" tsvector GENERATED ALWAYS AS');
});

describe.each([
  ["src/db/migrations", sqliteMigrations],
  ["src/db/migrations-pg", pgMigrations],
] as const)("%s", (folder, { journal, migrationSql }) => {
  test("every journal entry is embedded as its file's text, and nothing else is", async () => {
    expect(Object.keys(migrationSql).sort()).toEqual(journal.entries.map((entry) => entry.tag).sort());
    for (const { tag } of journal.entries) {
      expect(migrationSql[tag]).toBe(await Bun.file(path.join(import.meta.dir, "../..", folder, `${tag}.sql`)).text());
    }
  });
});

test("the last migration snapshots match the schema files (npm run db:generate has nothing left to write)", async () => {
  const root = path.join(import.meta.dir, "../..");
  const last = (folder: string, journal: { entries: { idx: number }[] }) =>
    Bun.file(path.join(root, folder, "meta", `${String(journal.entries.at(-1)?.idx).padStart(4, "0")}_snapshot.json`)).json();
  const pgSnapshot = await last("src/db/migrations-pg", pgMigrations.journal);
  expect(await generateMigration(pgSnapshot, generateDrizzleJson(pgSchema))).toEqual([]);
  const sqliteSnapshot = await last("src/db/migrations", sqliteMigrations.journal);
  expect(await generateSQLiteMigration(sqliteSnapshot, await generateSQLiteDrizzleJson(sqliteSchema))).toEqual([]);
});
