// Checks a model's evidence: every quote must be verbatim text of the document it names; near-misses are repaired, the rest dropped.
import type { Location } from "../extract/types";
import { type PlacedSection, placeSections, sectionAt } from "./passages";
import type { EngineDocument, Evaluation, Evidence } from "./types";

export interface CitationReport {
  evaluation: Evaluation;
  /** Quotes replaced by the document's exact text (whitespace, quote marks, dashes or case differed). */
  repaired: number;
  /** Quotes not found in any document, removed. */
  dropped: number;
}

/**
 * Resolves each quote against the named document (then the other documents, in case the model
 * mixed up ids): an exact match is kept; a match after normalising whitespace, quote marks,
 * dashes and case is replaced by the original text; anything else is dropped. The location is
 * always re-derived from the section that contains the quote.
 */
export function verifyCitations(evaluation: Evaluation, documents: EngineDocument[]): CitationReport {
  const byId = new Map(documents.map((d) => [d.id, d]));
  const indexes = new Map<string, NormalizedText>();
  const normalized = (d: EngineDocument) => {
    const seen = indexes.get(d.id);
    if (seen) return seen;
    const n = normalize(d.content.text);
    indexes.set(d.id, n);
    return n;
  };
  let repaired = 0;
  let dropped = 0;
  const criteria = evaluation.criteria.map((c) => {
    const evidence: Evidence[] = [];
    const seen = new Set<string>();
    for (const e of c.evidence) {
      const named = byId.get(e.document_id);
      const order = named ? [named, ...documents.filter((d) => d !== named)] : documents;
      const found = locate(e.quote, order, normalized);
      if (!found) {
        dropped++;
        continue;
      }
      if (found.quote !== e.quote || found.doc.id !== e.document_id) repaired++;
      const section = bestSection(found, e.location);
      const key = `${found.doc.id}:${section?.start ?? found.start}:${found.quote}`;
      if (seen.has(key)) continue;
      seen.add(key);
      evidence.push({ document_id: found.doc.id, quote: found.quote, location: { ...(section?.location ?? {}) } });
    }
    return { ...c, score: Math.min(Math.max(0, c.score), c.max_score), evidence };
  });
  return { evaluation: { ...evaluation, criteria }, repaired, dropped };
}

/**
 * The section holding the quote. Text can repeat (a running header on every page): among the
 * occurrences, the one in a section matching the location the model gave wins, else the first.
 */
function bestSection(found: Found, claimed: unknown): PlacedSection | null {
  const sections = placeSections(found.doc);
  const text = found.doc.content.text;
  const first = sectionAt(sections, found.start);
  if (typeof claimed !== "object" || claimed === null) return first;
  const want = claimed as Record<string, unknown>;
  let best = first;
  let bestScore = first ? matchScore(first.location, want) : -1;
  for (let at = text.indexOf(found.quote, found.start + 1), n = 0; at >= 0 && n < 200; at = text.indexOf(found.quote, at + 1), n++) {
    const s = sectionAt(sections, at);
    if (!s) continue;
    const score = matchScore(s.location, want);
    if (score > bestScore) {
      best = s;
      bestScore = score;
    }
  }
  return best;
}

function matchScore(location: Location, want: Record<string, unknown>): number {
  let n = 0;
  for (const [k, v] of Object.entries(location)) if (want[k] === v) n++;
  return n;
}

interface Found {
  doc: EngineDocument;
  quote: string;
  start: number;
}

const MIN_QUOTE = 3;

function locate(raw: string, docs: EngineDocument[], normalized: (d: EngineDocument) => NormalizedText): Found | null {
  // Models wrap quotes in quote marks or ellipses that are not part of the text.
  const candidates = [raw, raw.trim(), stripWrapping(raw)].filter((q, i, all) => q.length >= MIN_QUOTE && all.indexOf(q) === i);
  for (const doc of docs) {
    for (const q of candidates) {
      const at = doc.content.text.indexOf(q);
      if (at >= 0) return { doc, quote: q, start: at };
    }
  }
  for (const doc of docs) {
    const n = normalized(doc);
    for (const q of candidates) {
      const needle = normalize(q).text.trim();
      if (needle.length < MIN_QUOTE) continue;
      const at = n.text.indexOf(needle);
      if (at < 0) continue;
      const start = n.map[at];
      const end = n.map[at + needle.length - 1] + 1;
      return { doc, quote: doc.content.text.slice(start, end), start };
    }
  }
  return null;
}

function stripWrapping(q: string): string {
  return q
    .trim()
    .replace(/^(?:\.{3}|…)\s*/, "")
    .replace(/\s*(?:\.{3}|…)$/, "")
    .replace(/^["'“”‘’«»]+|["'“”‘’«»]+$/g, "")
    .trim();
}

interface NormalizedText {
  text: string;
  /** map[i] = offset in the original text of normalized character i. */
  map: number[];
}

const FOLD: Record<string, string> = {
  "\u2018": "'",
  "\u2019": "'",
  "\u201A": "'",
  "\u201B": "'",
  "\u2032": "'",
  "\u201C": '"',
  "\u201D": '"',
  "\u201E": '"',
  "\u201F": '"',
  "\u2033": '"',
  "\u00AB": '"',
  "\u00BB": '"',
  "\u2010": "-",
  "\u2011": "-",
  "\u2012": "-",
  "\u2013": "-",
  "\u2014": "-",
  "\u2015": "-",
  "\u2212": "-",
  "\u00A0": " ",
  "\u2007": " ",
  "\u202F": " ",
};

/** Lower case, one space for any whitespace run, typographic quotes and dashes folded, soft hyphens and zero-width characters removed. */
function normalize(s: string): NormalizedText {
  let text = "";
  const map: number[] = [];
  let space = false;
  for (let i = 0; i < s.length; i++) {
    let ch = s[i];
    if (ch === "\u00AD" || ch === "\u200B" || ch === "\u200C" || ch === "\u200D" || ch === "\uFEFF") continue;
    ch = FOLD[ch] ?? ch;
    if (/\s/.test(ch)) {
      if (space) continue;
      space = true;
      text += " ";
      map.push(i);
      continue;
    }
    space = false;
    const lower = ch.toLowerCase();
    // Keep offsets one-to-one: a character whose lower case is longer stays as it is.
    text += lower.length === 1 ? lower : ch;
    map.push(i);
  }
  return { text, map };
}
