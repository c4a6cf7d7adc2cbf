// The one pagination helper: limit 1..100 (default 20), newest first, signed opaque cursors.

import { createHmac, timingSafeEqual } from "node:crypto";
import { and, desc, eq, lt, or, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { t } from "elysia";
import type { Db } from "../db/client";
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

/** WHERE fragment "older than the cursor" and ORDER BY for (created_at desc, id desc). */
function pageClause(secret: string, cols: { createdAt: SQLiteColumn; id: SQLiteColumn }, cursor?: string) {
  let where: SQL | undefined;
  if (cursor) {
    const pos = decodeCursor(secret, cursor);
    where = or(lt(cols.createdAt, pos.c), and(eq(cols.createdAt, pos.c), lt(cols.id, pos.i)));
  }
  return { where, orderBy: [desc(cols.createdAt), desc(cols.id)] };
}

/** Given up to limit+1 rows fetched newest first, the page and its next cursor. */
export function toPage<R extends { createdAt: number; id: string }, J>(secret: string, rows: R[], limit: number, toJson: (row: R) => J) {
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  return { data: page.map(toJson), next_cursor: more && last ? encodeCursor(secret, { c: last.createdAt, i: last.id }) : null };
}

type ListTable = SQLiteTable & { createdAt: SQLiteColumn; id: SQLiteColumn };

/** One page of a table's rows matching `filters`, newest first: every list endpoint answers through this. */
export function listPage<T extends ListTable, J>(
  db: Db,
  secret: string,
  table: T,
  filters: (SQL | undefined)[],
  q: { limit?: number; cursor?: string },
  toJson: (row: T["$inferSelect"]) => J,
) {
  const limit = q.limit ?? 20;
  const { where, orderBy } = pageClause(secret, table, q.cursor);
  // drizzle's select() over a generic table type does not narrow; the rows are the table's, cast once below.
  const rows = db
    .select()
    .from(table as SQLiteTable)
    .where(and(...filters, where))
    .orderBy(...orderBy)
    .limit(limit + 1)
    .all() as (T["$inferSelect"] & { createdAt: number; id: string })[];
  return toPage(secret, rows, limit, toJson);
}
