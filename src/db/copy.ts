// `assay migrate-store`: copies every row of one database into another (an embedded SQLite file into PostgreSQL), table
// by table in foreign-key order, through the same drizzle table objects both backends use.
import { getTableColumns, is, sql } from "drizzle-orm";
import { getTableConfig, type SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { type Db, dialectOf, exec, rows, tx } from "./client";
import * as schema from "./schema";

const BATCH = 500;

/** Why a copy did not happen or did not finish; nothing of it was kept in the target. The message is one line. */
export class CopyError extends Error {
  override name = "CopyError";
}

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
 * Throws CopyError unless `db` holds no row in any table but `settings` (where a server started on it once may have
 * stored its secret): the copy never merges into live data.
 */
export async function assertEmpty(db: Db): Promise<void> {
  for (const table of tablesInDependencyOrder()) {
    if (table === schema.settings) continue;
    const [occupied] = await db.select({ one: sql`1` }).from(table).limit(1);
    if (occupied) throw new CopyError("the target database already holds data; migrate into an empty database");
  }
}

/**
 * Copies every row of `from` into `to`, which must be empty (assertEmpty), in one transaction of `to` (a savepoint
 * when `to` is already a transaction's handle): a copy that fails half-way, or races another copy, leaves `to` as it
 * was, so the command can simply be run again. Rows are read and inserted in batches; integer ids are kept, and on
 * PostgreSQL the identity sequences are moved past them so new rows never collide. Answers each table's row count.
 */
export async function copyDatabase(from: Db, to: Db): Promise<{ table: string; rows: number }[]> {
  return tx(to, async (t) => {
    await assertEmpty(t);
    const counts: { table: string; rows: number }[] = [];
    for (const table of tablesInDependencyOrder()) {
      const { name, columns } = getTableConfig(table);
      let copied = 0;
      try {
        for (let batch = await nextBatch(from, table); batch.length > 0; batch = await nextBatch(from, table, batch.at(-1))) {
          await t.insert(table).values(batch);
          copied += batch.length;
        }
        if (dialectOf(t) === "postgres")
          await advanceIdentity(
            t,
            name,
            columns.map((c) => c.name),
          );
      } catch (err) {
        const cause = err as Error & { cause?: Error };
        // drizzle wraps the driver's error ("Failed query: …"); the driver's own message says what was refused.
        const reason = (cause.cause?.message ?? cause.message).split("\n")[0];
        throw new CopyError(`copying table ${name} failed after ${copied} rows, so nothing was copied: ${reason}`, { cause: err });
      }
      counts.push({ table: name, rows: copied });
    }
    return counts;
  });
}

/**
 * The next rows of `table` in primary-key order (single or composite): those after `after`'s key, so each page is one
 * index seek (an OFFSET would rescan every row before it, quadratic on a big table).
 */
async function nextBatch(from: Db, table: SQLiteTable, after?: Record<string, unknown>): Promise<Record<string, unknown>[]> {
  const { name, primaryKeys, columns } = getTableConfig(table);
  const keys = primaryKeys[0]?.columns ?? columns.filter((c) => c.primary);
  if (keys.length === 0) throw new Error(`table ${name} has no primary key to copy it in order by`);
  // The row's property of each key column: the table object's key, not the SQL name.
  const property = (column: SQLiteColumn) => Object.entries(getTableColumns(table)).find(([, c]) => c === column)?.[0] ?? column.name;
  const query = from.select().from(table);
  const filtered = after
    ? query.where(
        sql`(${sql.join(keys, sql`, `)}) > (${sql.join(
          keys.map((c) => sql.param(after[property(c)], c)),
          sql`, `,
        )})`,
      )
    : query;
  return filtered.orderBy(...keys).limit(BATCH);
}

/** After rows were inserted with explicit ids, the identity column's sequence must start past the largest one. */
async function advanceIdentity(db: Db, table: string, columnNames: string[]): Promise<void> {
  for (const column of columnNames) {
    const [seq] = await rows<{ s: string | null }>(db, sql`SELECT pg_get_serial_sequence(${table}, ${column}) AS s`);
    if (!seq?.s) continue;
    await exec(
      db,
      sql`SELECT setval(${seq.s}::regclass, COALESCE((SELECT max(${sql.identifier(column)}) FROM ${sql.identifier(table)}), 0) + 1, false)`,
    );
  }
}
