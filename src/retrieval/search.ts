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
}

// bm25 is lower-is-better; ties fall back to document order so results are stable.
// Issue 13.5, on a large index: the best rows are picked on their score alone, and only those few then read their
// text and get a snippet (in one step SQLite built a snippet for every matching row before sorting). The pick first
// looks among the index's overall best (FTS5's own ORDER BY rank, no per-row join): if enough of those are in scope,
// they are exactly the best in scope, since every row outside them scores worse. Otherwise (a narrow scope, few
// matches) every match is joined and filtered, as before.
// The overall best looked among: 200, then (a narrow scope) 2,000 before every match is joined.
const WIDE_POOLS = [200, 2_000];
// The same tokenizer as chunks_fts (src/db/migrations/0001_fts.sql), for the scratch tables below.
const TOKENIZER = "porter unicode61 remove_diacritics 2";
const PICK_AMONG_BEST_SQL = `
  SELECT c.id, best.score FROM (SELECT rowid AS id, rank AS score FROM chunks_fts WHERE chunks_fts MATCH ?1 ORDER BY rank LIMIT ?2) best
  JOIN chunks c ON c.id = best.id
  WHERE c.workspace_id = ?3 AND c.document_id IN (SELECT value FROM json_each(?4))
  ORDER BY best.score, c.document_id, c.ord
  LIMIT ?5`;
// The filters run after the MATCH: FTS5 cannot index workspace or document, so very common words cost a scan.
const PICK_ALL_SQL = `
  SELECT c.id, bm25(chunks_fts) AS score FROM chunks_fts
  JOIN chunks c ON c.id = chunks_fts.rowid
  WHERE chunks_fts MATCH ?1 AND c.workspace_id = ?2 AND c.document_id IN (SELECT value FROM json_each(?3))
  ORDER BY bm25(chunks_fts), c.document_id, c.ord
  LIMIT ?4`;
const ROWS_SQL = `
  SELECT c.id, c.document_id, c.ord, c.text, c.location, c.start_offset
  FROM chunks c WHERE c.id IN (SELECT value FROM json_each(?))`;
// Snippets of the picked rows are made in a scratch FTS5 table holding just them (same tokenizer, so the same
// snippet): asking chunks_fts for a snippet of one row makes it seek every term's list to that row, ~1 ms a row.

/** The k chunks that best match the query, best first: bm25 order, with exact occurrences of a short query first. */
export function search(db: Db, input: SearchInput): Hit[] {
  const k = clampK(input.k);
  if (k === 0 || input.documentIds.length === 0) return [];
  const match = matchExpression(db, input.query);
  if (match === null) return [];
  const phrase = queryPhrase(input.query);
  const pool = candidatePool(k, phrase);
  const scope = JSON.stringify(input.documentIds);
  const sqlite = db.$client;
  let picked: { id: number; score: number }[] = [];
  for (const wide of WIDE_POOLS) {
    picked = sqlite
      .query<{ id: number; score: number }, [string, number, string, string, number]>(PICK_AMONG_BEST_SQL)
      .all(match, Math.max(wide, pool * 4), input.workspaceId, scope, pool);
    if (picked.length === pool) break;
  }
  if (picked.length < pool) {
    picked = sqlite.query<{ id: number; score: number }, [string, string, string, number]>(PICK_ALL_SQL).all(match, input.workspaceId, scope, pool);
  }
  if (picked.length === 0) return [];
  const byId = new Map(
    sqlite
      .query<HitRow, [string]>(ROWS_SQL)
      .all(JSON.stringify(picked.map((p) => p.id)))
      .map((r) => [r.id, r]),
  );
  const rows = picked.flatMap((p) => {
    const row = byId.get(p.id);
    return row ? [{ ...row, score: p.score }] : [];
  });
  const kept = preferExactPhrase(rows, phrase, (r) => r.text, k);
  const snippets = snippetsOf(sqlite, match, kept);
  return kept.map((r) => ({
    documentId: r.document_id,
    chunkId: r.id,
    ord: r.ord,
    text: r.text,
    snippet: tidySnippet(snippets.get(r.id) ?? r.text),
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

/** Stems and chunk counts are remembered: fts5vocab counts a term's chunks by reading its whole list (0.2 ms and
 * more for a common one). A count may be a minute old, which only shifts the line between kept and left-out terms. */
const COUNT_TTL_MS = 60_000;
const MAX_REMEMBERED = 50_000;

interface TermLookup {
  stemOf: Map<string, string>;
  counts: Map<string, { n: number; at: number }>;
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
    sqlite.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.assay_stem USING fts5(t, tokenize='${TOKENIZER}')`);
    sqlite.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.assay_stem_terms USING fts5vocab(temp, assay_stem, 'instance')");
    sqlite.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.assay_chunk_terms USING fts5vocab(main, chunks_fts, 'row')");
    l = {
      stemOf: new Map(),
      counts: new Map(),
      // An estimate of the chunk count from the primary key, without a scan (one min or max per SELECT is a
      // lookup; both in one SELECT would read every row).
      rows: sqlite.query("SELECT coalesce((SELECT max(id) FROM chunks) - (SELECT min(id) FROM chunks) + 1, 0) AS n"),
      stemInsert: sqlite.query("INSERT INTO temp.assay_stem (rowid, t) VALUES (?, ?)"),
      stems: sqlite.query("SELECT doc AS i, term FROM temp.assay_stem_terms"),
      stemClear: sqlite.query("DELETE FROM temp.assay_stem"),
      df: sqlite.query("SELECT doc AS n FROM temp.assay_chunk_terms WHERE term = ?"),
    };
    lookups.set(sqlite, l);
  }
  return l;
}

function snippetsOf(sqlite: Database, match: string, rows: { id: number; text: string }[]): Map<number, string> {
  sqlite.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.assay_snippets USING fts5(text, tokenize='${TOKENIZER}')`);
  const insert = sqlite.query("INSERT INTO temp.assay_snippets (rowid, text) VALUES (?, ?)");
  try {
    for (const r of rows) insert.run(r.id, r.text);
    const found = sqlite
      .query<{ id: number; snippet: string }, [string]>(
        `SELECT rowid AS id, ${SNIPPET_SQL("assay_snippets")} AS snippet FROM temp.assay_snippets WHERE assay_snippets MATCH ?`,
      )
      .all(match);
    return new Map(found.map((f) => [f.id, f.snippet]));
  } finally {
    sqlite.query("DELETE FROM temp.assay_snippets").run();
  }
}

/** The FTS5 MATCH expression search() runs for a query on this index (null: no words). */
export function matchExpression(db: Db, query: string): string | null {
  const terms = queryTerms(query);
  const phrase = queryPhrase(query);
  const phraseWords = phrase?.split(" ") ?? [];
  const counts = chunkCounts(db.$client, [...new Set([...terms, ...phraseWords])]);
  if (counts === null) return toMatchExpression(query, terms);
  const count = (w: string) => counts.get(w) ?? 0;
  // FTS5 reads the whole position list of every word of a phrase, so a phrase with a common word ("the") costs a
  // pass over most of the index (100-500 ms at 50 MB). Such a phrase is left out of the MATCH; preferExactPhrase
  // still puts its literal occurrences first among the candidates the terms find.
  const phraseIsCheap = phraseWords.length > 0 && Math.max(...phraseWords.map(count)) <= MAX_MATCHED_ROWS;
  return toMatchExpression(query, withoutCommonTerms(terms, count, counts.total), phraseIsCheap);
}

/** How many chunks hold each word (by its stem), or null on a small index, where every query is cheap. */
function chunkCounts(sqlite: Database, words: string[]): (Map<string, number> & { total: number }) | null {
  if (words.length === 0) return null;
  const l = termLookup(sqlite);
  const total = (l.rows.get() as { n: number } | null)?.n ?? 0;
  if (total < PRUNE_FROM_ROWS) return null;
  const unknown = words.filter((t) => !l.stemOf.has(t));
  if (unknown.length > 0) {
    if (l.stemOf.size + unknown.length > MAX_REMEMBERED) l.stemOf.clear();
    try {
      unknown.forEach((t, i) => {
        l.stemInsert.run(i, t);
      });
      for (const row of l.stems.all() as { i: number; term: string }[]) if (!l.stemOf.has(unknown[row.i])) l.stemOf.set(unknown[row.i], row.term);
    } finally {
      l.stemClear.run();
    }
  }
  const now = Date.now();
  if (l.counts.size + words.length > MAX_REMEMBERED) l.counts.clear();
  const counts = Object.assign(new Map<string, number>(), { total });
  for (const word of words) {
    const stem = l.stemOf.get(word);
    if (stem === undefined) continue;
    let known = l.counts.get(stem);
    if (!known || now - known.at > COUNT_TTL_MS) {
      known = { n: (l.df.get(stem) as { n: number } | null)?.n ?? 0, at: now };
      l.counts.set(stem, known);
    }
    counts.set(word, known.n);
  }
  return counts;
}

/** The terms worth searching on a large index: rarest first while they stay cheap; the rarest always. */
function withoutCommonTerms(terms: string[], count: (w: string) => number, total: number): string[] {
  const counted = terms.map((term, i) => ({ term, df: count(term), i })).sort((a, b) => a.df - b.df || a.i - b.i);
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
