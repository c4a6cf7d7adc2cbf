// The full-text primitives search() is built on, and the only part of retrieval that differs between backends:
//   pickChunks   the best chunks in scope for a query (ids and scores),
//   chunkCounts  how many chunks hold each word (for leaving the commonest words out on a large index).
// SQLite: FTS5 (the `chunks_fts` virtual table, kept in step by triggers: src/db/migrations/0001_fts.sql), bm25.
// PostgreSQL: a `tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED` column on `chunks` with a GIN
// index, queried with websearch_to_tsquery and ranked with ts_rank.
import { Database } from "bun:sqlite";
import { type SQL, sql } from "drizzle-orm";
import { type Db, dialectOf, exec, row, rows } from "../db/client.ts";

/** What a search looks for: any of the terms, or the phrase (the query's word sequence), whichever is present. */
export interface FtsQuery {
  /** Distinct words (letters, digits and marks only, so they never need escaping in either backend's syntax). */
  terms: string[];
  /** The words in order, matched as one phrase, or null. */
  phrase: string | null;
}

export interface FtsScope {
  workspaceId: string;
  /** Only chunks of these documents (at least one). */
  documentIds: string[];
}

/** A chunk picked by a search: its id and its score, lower is better (bm25's convention). */
export interface Picked {
  id: number;
  score: number;
}

/**
 * The `limit` best chunks of the scope that match the query, best first (ties in document order). Works with the
 * outer database or a transaction's handle.
 */
export function pickChunks(db: Db, query: FtsQuery, scope: FtsScope, limit: number): Promise<Picked[]> {
  return dialectOf(db) === "postgres" ? pg.pickChunks(db, query, scope, limit) : sqlite.pickChunks(db, query, scope, limit);
}

/**
 * How many chunks hold each word (by its stem, as the index holds it); words the index does not hold are left out.
 * Counts are remembered for a minute, which only shifts the line between kept and left-out terms. `upTo`: counts
 * above it may be reported as `upTo` (search() needs no more).
 */
export function chunkCounts(db: Db, words: string[], upTo: number): Promise<Map<string, number>> {
  return dialectOf(db) === "postgres" ? pg.chunkCounts(db, words, upTo) : sqlite.chunkCounts(db, words);
}

/** The FTS5 MATCH expression of a query: every word double-quoted (no user text is ever read as syntax), OR-ed. */
export function fts5Match(query: FtsQuery): string {
  const parts = query.terms.map((t) => `"${t}"`);
  if (query.phrase !== null) parts.unshift(`"${query.phrase}"`);
  return parts.join(" OR ");
}

const COUNT_TTL_MS = 60_000;
const MAX_REMEMBERED = 50_000;

/** Per database (the outer one and a transaction's handle count apart): word or stem -> chunk count and when read. */
const countCaches = new WeakMap<Db, Map<string, { n: number; at: number }>>();

function countCache(db: Db, incoming: number): Map<string, { n: number; at: number }> {
  let cache = countCaches.get(db);
  if (!cache) {
    cache = new Map();
    countCaches.set(db, cache);
  }
  if (cache.size + incoming > MAX_REMEMBERED) cache.clear();
  return cache;
}

const inList = (values: string[]): SQL =>
  sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  );

// ---- SQLite: FTS5 ------------------------------------------------------------------------------------------------

// The same tokenizer as chunks_fts, for the stemming scratch table below.
const TOKENIZER = "porter unicode61 remove_diacritics 2";

// Issue 13.5, on a large index: the best rows are picked on their score alone. The pick first looks among the index's
// overall best (FTS5's own ORDER BY rank, no per-row join): if enough of those are in scope, they are exactly the best
// in scope, since every row outside them scores worse. Otherwise (a narrow scope, few matches) every match is joined
// and filtered. The overall best looked among: 200, then (a narrow scope) 2,000 before every match is joined.
// CROSS JOIN makes SQLite keep that order (matches first, then their chunks by primary key): with the scope as an IN
// list, it would otherwise read every chunk of the scope's documents through chunks_document and probe the matches.
const WIDE_POOLS = [200, 2_000];

const sqlite = {
  async pickChunks(db: Db, query: FtsQuery, scope: FtsScope, limit: number): Promise<Picked[]> {
    const match = fts5Match(query);
    const docs = inList(scope.documentIds);
    let picked: Picked[] = [];
    for (const wide of WIDE_POOLS) {
      picked = await rows<Picked>(
        db,
        sql`SELECT c.id, best.score FROM (
              SELECT rowid AS id, rank AS score FROM chunks_fts WHERE chunks_fts MATCH ${match} ORDER BY rank LIMIT ${Math.max(wide, limit * 4)}
            ) best
            CROSS JOIN chunks c ON c.id = best.id
            WHERE c.workspace_id = ${scope.workspaceId} AND c.document_id IN (${docs})
            ORDER BY best.score, c.document_id, c.ord
            LIMIT ${limit}`,
      );
      if (picked.length === limit) return picked;
    }
    // The filters run after the MATCH: FTS5 cannot index workspace or document, so very common words cost a scan.
    return rows<Picked>(
      db,
      sql`SELECT c.id, bm25(chunks_fts) AS score FROM chunks_fts
          CROSS JOIN chunks c ON c.id = chunks_fts.rowid
          WHERE chunks_fts MATCH ${match} AND c.workspace_id = ${scope.workspaceId} AND c.document_id IN (${docs})
          ORDER BY bm25(chunks_fts), c.document_id, c.ord
          LIMIT ${limit}`,
    );
  },

  async chunkCounts(db: Db, words: string[]): Promise<Map<string, number>> {
    const stems = stemsOf(words);
    const cache = countCache(db, words.length);
    const now = Date.now();
    const counts = new Map<string, number>();
    for (const word of words) {
      const stem = stems.get(word);
      if (stem === undefined) continue;
      let known = cache.get(stem);
      if (!known || now - known.at > COUNT_TTL_MS) {
        known = { n: await vocabCount(db, stem), at: now };
        cache.set(stem, known);
      }
      counts.set(word, known.n);
    }
    return counts;
  },
};

/**
 * How many chunks hold a stem, from the index's own term list (fts5vocab; it reads the stem's whole list, 0.2 ms and
 * more for a common one, hence the cache above). The vocabulary table is connection-private (temp): made on first
 * use on each connection, and again if a rolled-back transaction took it away.
 */
async function vocabCount(db: Db, stem: string): Promise<number> {
  const query = sql`SELECT doc AS n FROM temp.assay_chunk_terms WHERE term = ${stem}`;
  try {
    return (await row<{ n: number }>(db, query))?.n ?? 0;
  } catch (err) {
    if (!String((err as Error)?.message ?? err).includes("no such table")) throw err;
    await exec(db, sql.raw("CREATE VIRTUAL TABLE IF NOT EXISTS temp.assay_chunk_terms USING fts5vocab(main, chunks_fts, 'row')"));
    return (await row<{ n: number }>(db, query))?.n ?? 0;
  }
}

/** Word -> the stem chunks_fts holds for it: the same tokenizer in a process-private, in-memory FTS5 table. */
const stemOf = new Map<string, string>();
let stemmer: Database | null = null;

function stemsOf(words: string[]): Map<string, string> {
  const unknown = words.filter((w) => !stemOf.has(w));
  if (unknown.length === 0) return stemOf;
  if (stemOf.size + unknown.length > MAX_REMEMBERED) stemOf.clear();
  if (!stemmer) {
    const fresh = new Database(":memory:");
    fresh.exec(`CREATE VIRTUAL TABLE stem USING fts5(t, tokenize='${TOKENIZER}')`);
    fresh.exec("CREATE VIRTUAL TABLE stem_terms USING fts5vocab(stem, 'instance')");
    stemmer = fresh;
  }
  const mem = stemmer;
  // Synchronous from the first insert to the clear: no other search can interleave on the scratch table.
  try {
    const insert = mem.query("INSERT INTO stem (rowid, t) VALUES (?, ?)");
    unknown.forEach((t, i) => {
      insert.run(i, t);
    });
    for (const r of mem.query("SELECT doc AS i, term FROM stem_terms").all() as { i: number; term: string }[]) {
      if (!stemOf.has(unknown[r.i])) stemOf.set(unknown[r.i], r.term);
    }
  } finally {
    mem.query("DELETE FROM stem").run();
  }
  return stemOf;
}

// ---- PostgreSQL: tsvector ---------------------------------------------------------------------------------------
// Needs, in the PostgreSQL migrations: ALTER TABLE chunks ADD COLUMN tsv tsvector
//   GENERATED ALWAYS AS (to_tsvector('english', text)) STORED; CREATE INDEX chunks_tsv ON chunks USING gin (tsv);
// Not yet run against a server (the PostgreSQL schema lands separately): check it when that migration does.

/** websearch_to_tsquery's syntax: each term quoted (a lone "or" stays a word), the phrase quoted, OR-ed. */
const websearch = (query: FtsQuery) => fts5Match(query).replaceAll(" OR ", " or ");

const pg = {
  async pickChunks(db: Db, query: FtsQuery, scope: FtsScope, limit: number): Promise<Picked[]> {
    const docs = inList(scope.documentIds);
    // ts_rank is higher-is-better; negated so scores sort as bm25's do. float4 comes back as a JS number.
    const ranked = await rows<Picked>(
      db,
      sql`SELECT c.id, -ts_rank(c.tsv, q) AS score
          FROM chunks c CROSS JOIN websearch_to_tsquery('english', ${websearch(query)}) AS q
          WHERE c.tsv @@ q AND c.workspace_id = ${scope.workspaceId} AND c.document_id IN (${docs})
          ORDER BY score, c.document_id, c.ord
          LIMIT ${limit}`,
    );
    if (ranked.length > 0) return ranked;
    // The 'english' configuration leaves stopwords out of tsv, so a query of stopwords only ("to be or not to be")
    // has no tsquery at all; FTS5 indexes every word. Such a query reads the scope's chunks by word instead (the
    // scope's documents through chunks_document; rare, and never the common case), the phrase first.
    const empty = await row<{ n: number }>(db, sql`SELECT numnode(websearch_to_tsquery('english', ${websearch(query)})) AS n`);
    if (Number(empty?.n ?? 0) > 0) return [];
    const words = `\\m(${query.terms.join("|")})\\M`;
    const phrase = query.phrase === null ? null : `\\m${query.phrase.split(" ").join("\\W+")}\\M`;
    return rows<Picked>(
      db,
      sql`SELECT c.id, ${phrase === null ? sql`0` : sql`CASE WHEN c.text ~* ${phrase} THEN -1 ELSE 0 END`} AS score
          FROM chunks c
          WHERE c.workspace_id = ${scope.workspaceId} AND c.document_id IN (${docs}) AND c.text ~* ${words}
          ORDER BY score, c.document_id, c.ord
          LIMIT ${limit}`,
    );
  },

  async chunkCounts(db: Db, words: string[], upTo: number): Promise<Map<string, number>> {
    const cache = countCache(db, words.length);
    const now = Date.now();
    const counts = new Map<string, number>();
    for (const word of words) {
      let known = cache.get(word);
      if (!known || now - known.at > COUNT_TTL_MS) {
        // Counted on the GIN index, stopped at upTo: a common word's whole list is never read.
        const r = await row<{ n: number }>(
          db,
          sql`SELECT CAST(count(*) AS INTEGER) AS n FROM (
                SELECT 1 FROM chunks WHERE tsv @@ plainto_tsquery('english', ${word}) LIMIT ${upTo}
              ) AS hits`,
        );
        known = { n: Number(r?.n ?? 0), at: now };
        cache.set(word, known);
      }
      counts.set(word, known.n);
    }
    return counts;
  },
};
