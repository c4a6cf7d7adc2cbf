// The one pagination helper: limit 1..100 (default 20), newest first, signed opaque cursors.

import { createHmac, timingSafeEqual } from "node:crypto";
import { and, desc, eq, getTableName, gte, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { t } from "elysia";
import { type Db, prepared } from "../db/client";
import { ApiError } from "./errors";

export const ListQuery = {
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20, description: "Items per page, 1 to 100" })),
  cursor: t.Optional(t.String({ description: "next_cursor of the previous page" })),
};

export const Page = <T extends import("elysia").TSchema>(item: T) => t.Object({ data: t.Array(item), next_cursor: t.Union([t.String(), t.Null()]) });

interface CursorPos {
  c: number; // created_at
  i: string; // id
}

function sign(secret: string, payload: string) {
  return createHmac("sha256", secret).update(`cursor:${payload}`).digest("base64url").slice(0, 22);
}

export function encodeCursor(secret: string, pos: CursorPos): string {
  const payload = Buffer.from(JSON.stringify(pos)).toString("base64url");
  return `${payload}.${sign(secret, payload)}`;
}

export function decodeCursor(secret: string, cursor: string): CursorPos {
  const [payload, mac] = cursor.split(".");
  const expected = payload ? sign(secret, payload) : "";
  if (!payload || !mac || mac.length !== expected.length || !timingSafeEqual(Buffer.from(mac), Buffer.from(expected))) {
    throw new ApiError(400, "validation_error", "cursor is not valid", "cursor");
  }
  try {
    const pos = JSON.parse(Buffer.from(payload, "base64url").toString());
    if (typeof pos.c !== "number" || typeof pos.i !== "string") throw new Error();
    return pos;
  } catch {
    throw new ApiError(400, "validation_error", "cursor is not valid", "cursor");
  }
}

/** Given up to limit+1 rows fetched newest first, the page and its next cursor. */
export function toPage<R extends { createdAt: number; id: string }, J>(secret: string, rows: R[], limit: number, toJson: (row: R) => J) {
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  return { data: page.map(toJson), next_cursor: more && last ? encodeCursor(secret, { c: last.createdAt, i: last.id }) : null };
}

type ListTable = SQLiteTable & { createdAt: SQLiteColumn; id: SQLiteColumn };

/** Equality filters by column: a value matches it, null matches IS NULL, undefined (or absent) filters nothing. */
export type ListFilter<T extends ListTable> = { [K in keyof T["$inferSelect"]]?: string | number | null };

/**
 * One page of a table's rows matching `filter`, newest first: every list endpoint answers through this. The statement
 * is prepared once per shape of filter (which columns, which are null, with or without a cursor) and reused.
 */
export async function listPage<T extends ListTable, J>(
  db: Db,
  secret: string,
  table: T,
  filter: ListFilter<T>,
  q: { limit?: number; cursor?: string },
  toJson: (row: T["$inferSelect"]) => J,
  created: { from?: number; to?: number } = {},
) {
  const limit = q.limit ?? 20;
  // (Signed for this list's table: a /runs cursor is no position in /workflows.)
  const key = `${secret}:${getTableName(table)}`;
  const pos = q.cursor ? decodeCursor(key, q.cursor) : null;
  const values = filter as Record<string, string | number | null | undefined>;
  const keys = Object.keys(values)
    .filter((k) => values[k] !== undefined)
    .sort();
  const shape = `list:${getTableName(table)}:${keys.map((k) => (values[k] === null ? `${k} null` : k)).join(",")}:${pos ? "after" : "first"}:${created.from !== undefined ? "from" : ""}:${created.to !== undefined ? "to" : ""}`;
  const params: Record<string, unknown> = { _limit: limit + 1, ...(pos ? { _c: pos.c, _i: pos.i } : {}), _from: created.from, _to: created.to };
  if (created.from === undefined) delete params._from;
  if (created.to === undefined) delete params._to;
  for (const k of keys) if (values[k] !== null) params[k] = values[k];
  const found = await prepared(
    db,
    shape,
    () => {
      const column = (k: string) => (table as unknown as Record<string, SQLiteColumn>)[k];
      const conditions = keys.map((k) => (values[k] === null ? isNull(column(k)) : eq(column(k), sql.placeholder(k))));
      if (created.from !== undefined) conditions.push(gte(table.createdAt, sql.placeholder("_from")));
      if (created.to !== undefined) conditions.push(lt(table.createdAt, sql.placeholder("_to")));
      if (pos) {
        const c = sql.placeholder("_c");
        conditions.push(or(lt(table.createdAt, c), and(eq(table.createdAt, c), lt(table.id, sql.placeholder("_i")))) as SQL);
      }
      return db
        .select()
        .from(table as SQLiteTable)
        .where(and(...conditions))
        .orderBy(desc(table.createdAt), desc(table.id))
        .limit(sql.placeholder("_limit"));
    },
    params,
  );
  // drizzle's select() over a generic table type does not narrow; the rows are the table's.
  const rows = found as unknown as (T["$inferSelect"] & { createdAt: number; id: string })[];
  return toPage(key, rows, limit, toJson);
}
