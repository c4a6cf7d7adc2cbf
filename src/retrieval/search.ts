// Ranked retrieval over the FTS5 index: bm25, scoped to one workspace and a set of documents.
import type { Database } from "bun:sqlite";
import type { Db } from "../db/client.ts";
import type { Location } from "../extract/types.ts";
import { candidatePool, preferExactPhrase, queryPhrase, queryTerms, toMatchExpression } from "./query.ts";
import { SNIPPET_SQL, tidySnippet } from "./snippet.ts";
import type { Hit } from "./types.ts";

export interface SearchInput {
  workspaceId: string;
  /** Only chunks of these documents are searched; an empty list finds nothing. */
  documentIds: string[];
  /** Free text; it is reduced to quoted words, so FTS5 syntax in it is inert. */
  query: string;
  /** How many hits at most (default 5, capped at 100). */
  k?: number;
}

const DEFAULT_K = 5;
const MAX_K = 100;

interface HitRow {
  id: number;
  document_id: string;
  ord: number;
  text: string;
  location: string;
  start_offset: number;
  score: number;
  snippet: string;
}

// bm25 is lower-is-better; ties fall back to document order so results are stable.
// The filters run after the MATCH: FTS5 cannot index workspace or document, so very common words cost a scan.
const SEARCH_SQL = `
  SELECT c.id, c.document_id, c.ord, c.text, c.location, c.start_offset,
         bm25(chunks_fts) AS score, ${SNIPPET_SQL("chunks_fts")} AS snippet
  FROM chunks_fts
  JOIN chunks c ON c.id = chunks_fts.rowid
  WHERE chunks_fts MATCH ?
    AND c.workspace_id = ?
    AND c.document_id IN (SELECT value FROM json_each(?))
  ORDER BY score, c.document_id, c.ord
  LIMIT ?`;

/** The k chunks that best match the query, best first: bm25 order, with exact occurrences of a short query first. */
export function search(db: Db, input: SearchInput): Hit[] {
  const k = clampK(input.k);
  if (k === 0 || input.documentIds.length === 0) return [];
  const match = matchExpression(db, input.query);
  if (match === null) return [];
  const phrase = queryPhrase(input.query);
  const rows = db.$client
    .query<HitRow, [string, string, string, number]>(SEARCH_SQL)
    .all(match, input.workspaceId, JSON.stringify(input.documentIds), candidatePool(k, phrase));
  return preferExactPhrase(rows, phrase, (r) => r.text, k).map((r) => ({
    documentId: r.document_id,
    chunkId: r.id,
    ord: r.ord,
    text: r.text,
    snippet: tidySnippet(r.snippet),
    location: JSON.parse(r.location) as Location,
    startOffset: r.start_offset,
    score: r.score,
  }));
}

export interface SearchManyInput extends Omit<SearchInput, "query"> {
  queries: string[];
}

/** One search per query (per rubric criterion, per input section); result i answers queries[i]. */
export function searchMany(db: Db, input: SearchManyInput): Hit[][] {
  const { queries, ...scope } = input;
  return queries.map((query) => search(db, { ...scope, query }));
}

// Issue 13.5: FTS5 scores every row that matches any term before it can keep the best k, so one common word in an
// OR query makes a search read most of the index (120 ms and more over 50 MB of text). On a large index the
// commonest terms are left out: a term in over half the chunks scores nothing anyway (bm25's idf is clamped to ~0
// there), and past that the terms are kept rarest first while the rows they match stay within MAX_MATCHED_ROWS. The
// rarest term is always kept, and so is the exact-phrase part. Small indexes (the common case) are searched as before.
const PRUNE_FROM_ROWS = 20_000;
const MAX_MATCHED_ROWS = 12_000;

interface TermLookup {
  rows: ReturnType<Database["query"]>;
  stemInsert: ReturnType<Database["query"]>;
  stems: ReturnType<Database["query"]>;
  stemClear: ReturnType<Database["query"]>;
  df: ReturnType<Database["query"]>;
}
const lookups = new WeakMap<Database, TermLookup>();

function termLookup(sqlite: Database): TermLookup {
  let l = lookups.get(sqlite);
  if (!l) {
    // Connection-private (temp) helpers: a scratch FTS5 table with chunks_fts's tokenizer turns a word into the
    // stem the index holds, and fts5vocab reads how many chunks hold a stem from the index's own term list.
    sqlite.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.assay_stem USING fts5(t, tokenize='porter unicode61 remove_diacritics 2')");
    sqlite.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.assay_stem_terms USING fts5vocab(temp, assay_stem, 'instance')");
    sqlite.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.assay_chunk_terms USING fts5vocab(main, chunks_fts, 'row')");
    l = {
      // An estimate of the chunk count from the primary key, without a scan.
      rows: sqlite.query("SELECT coalesce(max(id) - min(id) + 1, 0) AS n FROM chunks"),
      stemInsert: sqlite.query("INSERT INTO temp.assay_stem (rowid, t) VALUES (?, ?)"),
      stems: sqlite.query("SELECT doc AS i, term FROM temp.assay_stem_terms"),
      stemClear: sqlite.query("DELETE FROM temp.assay_stem"),
      df: sqlite.query("SELECT doc AS n FROM temp.assay_chunk_terms WHERE term = ?"),
    };
    lookups.set(sqlite, l);
  }
  return l;
}

/** The FTS5 MATCH expression search() runs for a query on this index (null: no words). */
export function matchExpression(db: Db, query: string): string | null {
  return toMatchExpression(query, withoutCommonTerms(db.$client, queryTerms(query)));
}

/** The terms worth searching on this index: all of them on a small one; without the commonest on a large one. */
function withoutCommonTerms(sqlite: Database, terms: string[]): string[] {
  if (terms.length <= 1) return terms;
  const l = termLookup(sqlite);
  const total = (l.rows.get() as { n: number } | null)?.n ?? 0;
  if (total < PRUNE_FROM_ROWS) return terms;
  const stemOf = new Map<number, string>();
  try {
    terms.forEach((t, i) => {
      l.stemInsert.run(i, t);
    });
    for (const row of l.stems.all() as { i: number; term: string }[]) if (!stemOf.has(row.i)) stemOf.set(row.i, row.term);
  } finally {
    l.stemClear.run();
  }
  const counted = terms.map((term, i) => {
    const stem = stemOf.get(i);
    const df = stem === undefined ? 0 : ((l.df.get(stem) as { n: number } | null)?.n ?? 0);
    return { term, df, i };
  });
  counted.sort((a, b) => a.df - b.df || a.i - b.i);
  const kept: typeof counted = [];
  let matched = 0;
  for (const c of counted) {
    if (kept.length > 0 && (c.df * 2 > total || matched + c.df > MAX_MATCHED_ROWS)) break;
    kept.push(c);
    matched += c.df;
  }
  // The query's own order, so the expression (and its cached plan) reads as before.
  return kept.sort((a, b) => a.i - b.i).map((c) => c.term);
}

export function clampK(k: number | undefined): number {
  if (k === undefined || !Number.isFinite(k)) return DEFAULT_K;
  return Math.max(0, Math.min(MAX_K, Math.floor(k)));
}
