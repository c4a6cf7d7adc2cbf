// Short excerpts around matched terms, made by FTS5's snippet() and kept to about 200 characters.
import { Database } from "bun:sqlite";

const MAX_SNIPPET_CHARS = 240;
const ELLIPSIS = "…";

// The same tokenizer as chunks_fts (src/db/migrations/0001_fts.sql), so a snippet marks the words the search matched.
const TOKENIZER = "porter unicode61 remove_diacritics 2";

/** The SQL for a plain-text snippet (no highlight markers: it goes into prompts and JSON as is). */
export const SNIPPET_SQL = (table: string) => `snippet(${table}, 0, '', '', '${ELLIPSIS}', 32)`;

/** Collapses whitespace and bounds the length, cutting at a word boundary. */
export function tidySnippet(raw: string): string {
  const text = raw.replace(/\s+/g, " ").trim();
  if (text.length <= MAX_SNIPPET_CHARS) return text;
  const cut = text.lastIndexOf(" ", MAX_SNIPPET_CHARS);
  return `${text.slice(0, cut > MAX_SNIPPET_CHARS / 2 ? cut : MAX_SNIPPET_CHARS).trimEnd()}${ELLIPSIS}`;
}

let scratch: Database | null = null;

/**
 * The raw snippet of each row for an FTS5 MATCH expression (rows the expression does not match are left out). Made in
 * a process-private, in-memory FTS5 table holding just these rows, whatever the database: asking chunks_fts for a
 * snippet of one row makes it seek every term's list to that row (~1 ms a row), and PostgreSQL has no FTS5.
 */
export function snippetsOf(match: string, rows: { id: number; text: string }[]): Map<number, string> {
  if (!scratch) {
    const fresh = new Database(":memory:");
    fresh.exec(`CREATE VIRTUAL TABLE snippets USING fts5(text, tokenize='${TOKENIZER}')`);
    scratch = fresh;
  }
  const mem = scratch;
  // Synchronous from the first insert to the delete: no other search can interleave on the scratch table.
  try {
    const insert = mem.query("INSERT INTO snippets (rowid, text) VALUES (?, ?)");
    for (const r of rows) insert.run(r.id, r.text);
    const found = mem
      .query<{ id: number; snippet: string }, [string]>(
        `SELECT rowid AS id, ${SNIPPET_SQL("snippets")} AS snippet FROM snippets WHERE snippets MATCH ?`,
      )
      .all(match);
    return new Map(found.map((f) => [f.id, f.snippet]));
  } finally {
    mem.query("DELETE FROM snippets").run();
  }
}
