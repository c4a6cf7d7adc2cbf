// Ranked retrieval over the FTS5 index: bm25, scoped to one workspace and a set of documents.
import type { Db } from "../db/client.ts";
import type { Location } from "../extract/types.ts";
import { candidatePool, preferExactPhrase, queryPhrase, toMatchExpression } from "./query.ts";
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
  const match = toMatchExpression(input.query);
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

export function clampK(k: number | undefined): number {
  if (k === undefined || !Number.isFinite(k)) return DEFAULT_K;
  return Math.max(0, Math.min(MAX_K, Math.floor(k)));
}
