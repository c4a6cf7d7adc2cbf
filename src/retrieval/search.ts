// Ranked retrieval over the full-text index, scoped to one workspace and a set of documents. The backend-specific
// part (FTS5's bm25 on SQLite, tsvector on PostgreSQL) is in ./fts.ts; this file decides what to look for.
import { inArray, sql } from "drizzle-orm";
import { type Db, row } from "../db/client.ts";
import { chunks } from "../db/schema.ts";
import type { Location } from "../extract/types.ts";
import { chunkCounts, type FtsQuery, fts5Match, pickChunks } from "./fts.ts";
import { candidatePool, preferExactPhrase, queryPhrase, queryTerms } from "./query.ts";
import { snippetsOf, tidySnippet } from "./snippet.ts";
import type { Hit } from "./types.ts";

export interface SearchInput {
  workspaceId: string;
  /** Only chunks of these documents are searched; an empty list finds nothing. */
  documentIds: string[];
  /** Free text; it is reduced to quoted words, so full-text syntax in it is inert. */
  query: string;
  /** How many hits at most (default 5, capped at 100). */
  k?: number;
}

const DEFAULT_K = 5;
const MAX_K = 100;

// bm25 is lower-is-better; ties fall back to document order so results are stable.
// Issue 13.5, on a large index: the best rows are picked on their score alone (pickChunks), and only those few then
// read their text and get a snippet (made in memory from the picked rows alone: see snippetsOf).

/** The k chunks that best match the query, best first: bm25 order, with exact occurrences of a short query first. */
export async function search(db: Db, input: SearchInput): Promise<Hit[]> {
  const k = clampK(input.k);
  if (k === 0 || input.documentIds.length === 0) return [];
  const query = await searchQuery(db, input.query);
  if (query === null) return [];
  const phrase = queryPhrase(input.query);
  const pool = candidatePool(k, phrase);
  const picked = await pickChunks(db, query, { workspaceId: input.workspaceId, documentIds: input.documentIds }, pool);
  if (picked.length === 0) return [];
  const found = await db
    .select({
      id: chunks.id,
      documentId: chunks.documentId,
      ord: chunks.ord,
      text: chunks.text,
      location: chunks.location,
      startOffset: chunks.startOffset,
    })
    .from(chunks)
    .where(
      inArray(
        chunks.id,
        picked.map((p) => p.id),
      ),
    );
  const byId = new Map(found.map((r) => [r.id, r]));
  const rows = picked.flatMap((p) => {
    const r = byId.get(p.id);
    return r ? [{ ...r, score: p.score }] : [];
  });
  const kept = preferExactPhrase(rows, phrase, (r) => r.text, k);
  const snippets = snippetsOf(fts5Match(query), kept);
  return kept.map((r) => ({
    documentId: r.documentId,
    chunkId: r.id,
    ord: r.ord,
    text: r.text,
    snippet: tidySnippet(snippets.get(r.id) ?? r.text),
    location: r.location as Location,
    startOffset: r.startOffset,
    score: r.score,
  }));
}

export interface SearchManyInput extends Omit<SearchInput, "query"> {
  queries: string[];
}

/** One search per query (per rubric criterion, per input section); result i answers queries[i]. */
export async function searchMany(db: Db, input: SearchManyInput): Promise<Hit[][]> {
  const { queries, ...scope } = input;
  const results: Hit[][] = [];
  for (const query of queries) results.push(await search(db, { ...scope, query }));
  return results;
}

// Issue 13.5: the index scores every row that matches any term before it can keep the best k, so one common word in
// an OR query makes a search read most of the index (120 ms and more over 50 MB of text). On a large index the
// commonest terms are left out: a term in over half the chunks scores nothing anyway (bm25's idf is clamped to ~0
// there), and past that the terms are kept rarest first while the rows they match stay within MAX_MATCHED_ROWS. The
// rarest term is always kept, and so is the exact-phrase part. Small indexes (the common case) are searched as before.
const PRUNE_FROM_ROWS = 20_000;
const MAX_MATCHED_ROWS = 12_000;

/** What search() looks for on this index (null: the query has no words): the query's terms and phrase, less the
 * common ones on a large index. */
async function searchQuery(db: Db, query: string): Promise<FtsQuery | null> {
  const terms = queryTerms(query);
  if (terms.length === 0) return null;
  const phrase = queryPhrase(query);
  // An estimate of the chunk count from the primary key, without a scan (one min or max per SELECT is a lookup; both
  // in one SELECT would read every row).
  const total = (await row<{ n: number }>(db, sql`SELECT COALESCE((SELECT max(id) FROM chunks) - (SELECT min(id) FROM chunks) + 1, 0) AS n`))?.n ?? 0;
  if (total < PRUNE_FROM_ROWS) return { terms, phrase };
  const phraseWords = phrase?.split(" ") ?? [];
  const counts = await chunkCounts(db, [...new Set([...terms, ...phraseWords])], MAX_MATCHED_ROWS + 1);
  const count = (w: string) => counts.get(w) ?? 0;
  // The index reads the whole position list of every word of a phrase, so a phrase with a common word ("the") costs
  // a pass over most of the index (100-500 ms at 50 MB). Such a phrase is left out; preferExactPhrase still puts its
  // literal occurrences first among the candidates the terms find.
  const phraseIsCheap = phraseWords.length > 0 && Math.max(...phraseWords.map(count)) <= MAX_MATCHED_ROWS;
  return { terms: withoutCommonTerms(terms, count, Number(total)), phrase: phraseIsCheap ? phrase : null };
}

/** The FTS5 MATCH expression search() runs for a query on this index (null: no words). For the benchmark's ceilings. */
export async function matchExpression(db: Db, query: string): Promise<string | null> {
  const q = await searchQuery(db, query);
  return q && fts5Match(q);
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
