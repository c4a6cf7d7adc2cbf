// BM25 over chunks that are not in the database (a run's input documents), using an in-memory FTS5 table.
import { Database } from "bun:sqlite";
import { candidatePool, preferExactPhrase, queryPhrase, toMatchExpression } from "./query.ts";
import { clampK } from "./search.ts";
import { SNIPPET_SQL, tidySnippet } from "./snippet.ts";
import type { Chunk } from "./types.ts";

// The same tokenizer as chunks_fts (src/db/migrations/0001_fts.sql), so both rank text by the same rules.
const TOKENIZER = "porter unicode61 remove_diacritics 2";

export interface RankedChunk {
  chunk: Chunk;
  /** bm25, lower is better (as in Hit.score). */
  score: number;
  /** A short excerpt around the matched terms. */
  snippet: string;
}

/** The k chunks that best match the query, best first (the same order search() gives). */
export function rankChunks(chunks: Chunk[], query: string, k?: number): RankedChunk[] {
  return rankChunksMany(chunks, [query], k)[0];
}

/** rankChunks for several queries over one set of chunks: the index is built once. Result i answers queries[i]. */
export function rankChunksMany(chunks: Chunk[], queries: string[], k?: number): RankedChunk[][] {
  const limit = clampK(k);
  const matches = queries.map((q) => toMatchExpression(q));
  if (chunks.length === 0 || limit === 0 || matches.every((m) => m === null)) return queries.map(() => []);
  const mem = new Database(":memory:");
  try {
    mem.exec(`CREATE VIRTUAL TABLE t USING fts5(text, tokenize='${TOKENIZER}')`);
    const insert = mem.query("INSERT INTO t (rowid, text) VALUES (?, ?)");
    mem.transaction(() => {
      for (const [i, c] of chunks.entries()) insert.run(i, c.text);
    })();
    const select = mem.query<{ i: number; score: number; snippet: string }, [string, number]>(
      `SELECT rowid AS i, bm25(t) AS score, ${SNIPPET_SQL("t")} AS snippet FROM t WHERE t MATCH ? ORDER BY score, rowid LIMIT ?`,
    );
    return matches.map((match, q) => {
      if (match === null) return [];
      const phrase = queryPhrase(queries[q]);
      const rows = select.all(match, candidatePool(limit, phrase));
      return preferExactPhrase(rows, phrase, (r) => chunks[r.i].text, limit).map((r) => ({
        chunk: chunks[r.i],
        score: r.score,
        snippet: tidySnippet(r.snippet),
      }));
    });
  } finally {
    mem.close();
  }
}
