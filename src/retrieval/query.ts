// Turns free text (a criterion, a section of an input) into the words and phrase a search looks for, and a safe FTS5
// MATCH expression of them.
import { fts5Match } from "./fts.ts";

/** More terms than this make OR queries slow and the ranking no better. */
export const MAX_TERMS = 32;
/** Longer input is cut before tokenizing; a query never needs more than this to pick its terms. */
const MAX_QUERY_CHARS = 100_000;
/** Short queries also score their exact word sequence, so a quoted phrase ranks above scattered words. */
const MAX_PHRASE_WORDS = 12;

// Letters, digits and combining marks: everything else (FTS5 operators, quotes, punctuation) separates words.
const WORD = /[\p{L}\p{N}\p{M}]+/gu;

// Common English function words carry no signal for ranking.
const STOPWORDS = new Set(
  (
    "a about above after again against all am an and any are as at be because been before being below between both but by " +
    "can could did do does doing down during each few for from further had has have having he her here hers herself him " +
    "himself his how i if in into is it its itself just me more most my myself no nor not of off on once only or other our " +
    "ours ourselves out over own same she should so some such than that the their theirs them themselves then there these " +
    "they this those through to too under until up very was we were what when where which while who whom why will with " +
    "would you your yours yourself yourselves shall may might must also per via etc"
  ).split(" "),
);

/** The words of a query, lowercased, in order of first appearance (stopwords kept). */
function queryWords(query: string): string[] {
  return (query.slice(0, MAX_QUERY_CHARS).toLowerCase().match(WORD) ?? []) as string[];
}

/**
 * The distinct terms a query is searched by: stopwords and single Latin letters dropped (unless nothing else is
 * left), and at most MAX_TERMS of them, preferring words the query repeats, then longer words.
 */
export function queryTerms(query: string): string[] {
  const words = queryWords(query);
  const meaningful = words.filter((w) => !STOPWORDS.has(w) && !/^[a-z]$/.test(w));
  const pool = meaningful.length > 0 ? meaningful : words;
  const stats = new Map<string, { count: number; first: number }>();
  pool.forEach((w, i) => {
    const s = stats.get(w);
    if (s) s.count++;
    else stats.set(w, { count: 1, first: i });
  });
  const terms = [...stats.keys()];
  if (terms.length <= MAX_TERMS) return terms;
  const score = (w: string) => stats.get(w) as { count: number; first: number };
  return terms.sort((a, b) => score(b).count - score(a).count || b.length - a.length || score(a).first - score(b).first).slice(0, MAX_TERMS);
}

/** The query's whole word sequence when it is short enough to be meant as a phrase (2 to 12 words), else null. */
export function queryPhrase(query: string): string | null {
  const words = queryWords(query);
  return words.length >= 2 && words.length <= MAX_PHRASE_WORDS ? words.join(" ") : null;
}

/**
 * An FTS5 MATCH expression: every term double-quoted (so no user text is ever read as syntax) and OR-ed, plus the
 * whole word sequence as one phrase for short queries. Null when the query has no words. `terms` replaces the
 * query's own terms and `withPhrase: false` leaves the phrase out (what search() does for common words on a large
 * index; see searchQuery).
 */
export function toMatchExpression(query: string, terms: string[] = queryTerms(query), withPhrase = true): string | null {
  if (terms.length === 0) return null;
  return fts5Match({ terms, phrase: withPhrase ? queryPhrase(query) : null });
}

/** How many candidates to rank before the phrase tie-break, for a final list of k. */
export const candidatePool = (k: number, phrase: string | null) => (phrase === null ? k : Math.max(k * 4, 50));

/**
 * Puts chunks holding the query's exact word sequence first, keeping bm25 order otherwise. FTS5 matches stems, so
 * "preparation" scores like "preparations"; a reader quoting a phrase expects the literal occurrence first.
 */
export function preferExactPhrase<T>(rows: T[], phrase: string | null, textOf: (row: T) => string, k: number): T[] {
  if (phrase === null) return rows.slice(0, k);
  const needle = ` ${phrase} `;
  const exact: T[] = [];
  const rest: T[] = [];
  for (const row of rows) (` ${queryWords(textOf(row)).join(" ")} `.includes(needle) ? exact : rest).push(row);
  return [...exact, ...rest].slice(0, k);
}
