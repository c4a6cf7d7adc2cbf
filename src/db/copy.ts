// `assay migrate-store`: copies every row of one database into another (an embedded SQLite file into PostgreSQL), table
// by table in foreign-key order, through the same drizzle table objects both backends use.
import { is, sql } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { type Db, dialectOf, exec, rows, tx } from "./client";
import * as schema from "./schema";

const BATCH = 500;

/** Every table, parents before children (a row is copied after the rows it references). */
function tablesInDependencyOrder(): SQLiteTable[] {
  const tables = (Object.values(schema) as unknown[]).filter((t): t is SQLiteTable => is(t, SQLiteTable));
  const ordered: SQLiteTable[] = [];
  const visit = (table: SQLiteTable, path: Set<SQLiteTable>) => {
    if (ordered.includes(table)) return;
    if (path.has(table)) throw new Error(`foreign keys form a cycle at ${getTableConfig(table).name}`);
    path.add(table);
    for (const fk of getTableConfig(table).foreignKeys) {
      const parent = fk.reference().foreignTable as SQLiteTable;
      if (parent !== table) visit(parent, path);
    }
    path.delete(table);
    ordered.push(table);
  };
  for (const table of tables) visit(table, new Set());
  return ordered;
}

/**
 * Copies every row of `from` into `to`, which must hold no workspace yet (a fresh database: the copy never merges
 * into live data). Each table is copied in batches, each batch one transaction; integer ids are kept, and on
 * PostgreSQL the identity sequences are moved past them so new rows never collide.
 */
export async function copyDatabase(from: Db, to: Db, onTable: (name: string, count: number) => void = () => {}): Promise<number> {
  const [occupied] = await to.select({ id: schema.workspaces.id }).from(schema.workspaces).limit(1);
  if (occupied) throw new Error("the target database already holds data; migrate into an empty database");
  let total = 0;
  for (const table of tablesInDependencyOrder()) {
    const { name, primaryKeys, columns } = getTableConfig(table);
    // A stable order to page by: the primary key (single or composite), else every column.
    const keyColumns = primaryKeys[0]?.columns ?? columns.filter((c) => c.primary);
    const order = keyColumns.length ? keyColumns : columns;
    let copied = 0;
    for (let offset = 0; ; offset += BATCH) {
      const batch = await from
        .select()
        .from(table)
        .orderBy(...order)
        .limit(BATCH)
        .offset(offset);
      if (batch.length === 0) break;
      await tx(to, (t) => t.insert(table).values(batch));
      copied += batch.length;
      if (batch.length < BATCH) break;
    }
    if (dialectOf(to) === "postgres")
      await advanceIdentity(
        to,
        name,
        columns.map((c) => c.name),
      );
    onTable(name, copied);
    total += copied;
  }
  return total;
}

/** After rows were inserted with explicit ids, the identity column's sequence must start past the largest one. */
async function advanceIdentity(db: Db, table: string, columnNames: string[]): Promise<void> {
  for (const column of columnNames) {
    const [seq] = await rows<{ s: string | null }>(db, sql`SELECT pg_get_serial_sequence(${table}, ${column}) AS s`);
    if (!seq?.s) continue;
    await tx(db, (t) =>
      exec(t, sql`SELECT setval(${seq.s}::regclass, COALESCE((SELECT max(${sql.identifier(column)}) FROM ${sql.identifier(table)}), 0) + 1, false)`),
    );
  }
}
