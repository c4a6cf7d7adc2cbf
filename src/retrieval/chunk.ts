// Splits an extracted document into retrieval chunks: per section, at paragraph, line, sentence or word boundaries.
import type { ExtractedDocument, Format } from "../extract/types.ts";
import type { Chunk } from "./types.ts";

export interface ChunkOptions {
  /** Preferred chunk length in characters (default 800). */
  targetChars?: number;
  /** Characters repeated from the end of one prose chunk at the start of the next (default 100). */
  overlapChars?: number;
}

const DEFAULT_TARGET = 800;
const DEFAULT_OVERLAP = 100;

// Table formats put one row per line; rows are kept whole and never repeated.
const TABULAR: ReadonlySet<Format> = new Set(["xlsx", "xls", "csv"]);

interface Span {
  start: number;
  end: number;
}

/**
 * Chunks never cross a section (so never a page, slide or sheet boundary) and carry the section's location.
 * Each chunk's text is exactly doc.text.slice(startOffset, startOffset + text.length), so a quote can be traced back.
 */
export function chunkDocument(doc: ExtractedDocument, opts: ChunkOptions = {}): Chunk[] {
  const target = Math.max(50, Math.floor(opts.targetChars ?? DEFAULT_TARGET));
  // Overlap stays well below half a chunk so every step moves forward by a meaningful amount.
  const overlap = Math.max(0, Math.min(Math.floor(opts.overlapChars ?? DEFAULT_OVERLAP), Math.floor(target / 4)));
  const tabular = TABULAR.has(doc.format);
  const chunks: Chunk[] = [];
  let cursor = 0;
  for (const section of doc.sections) {
    if (section.text.trim().length === 0) continue;
    // Sections are joined with blank lines today, but locate them rather than trust the separator.
    let base = doc.text.indexOf(section.text, cursor);
    if (base < 0) base = doc.text.indexOf(section.text);
    if (base < 0) continue; // not verbatim in the text: it could not be quoted, so it is not indexed
    cursor = base + section.text.length;
    const spans = tabular ? splitRows(section.text, target) : splitProse(section.text, target, overlap);
    for (const span of spans) {
      const text = section.text.slice(span.start, span.end);
      if (text.trim().length === 0) continue;
      chunks.push({ ord: chunks.length, text, location: { ...section.location }, startOffset: base + span.start });
    }
  }
  return chunks;
}

/** Prose: the coarsest boundary found in the second half of the window wins; consecutive chunks overlap a little. */
function splitProse(text: string, target: number, overlap: number): Span[] {
  const spans: Span[] = [];
  const min = Math.floor(target / 2);
  // A short tail is folded into the last chunk rather than left as a fragment.
  const slack = Math.floor(target / 4);
  let p = skipSpace(text, 0);
  while (p < text.length) {
    if (text.length - p <= target + slack) {
      pushTrimmed(spans, text, p, text.length);
      break;
    }
    const from = p + min;
    const to = p + target;
    const cut =
      lastBreak(text, from, to, PARAGRAPH) ??
      lastBreak(text, from, to, LINE) ??
      lastBreak(text, from, to, SENTENCE) ??
      lastBreak(text, from, to, SPACE) ??
      safeCut(text, to);
    pushTrimmed(spans, text, p, cut);
    const next = skipSpace(text, overlapStart(text, cut, overlap));
    // Always move forward, even if the overlap would land on or before the current start.
    p = next > p && next < cut ? next : skipSpace(text, cut);
  }
  return spans;
}

/** Tables: whole rows packed up to the target; a single huge row is cut at cell, then word boundaries. */
function splitRows(text: string, target: number): Span[] {
  const spans: Span[] = [];
  const maxRow = target * 2;
  let p = skipSpace(text, 0);
  // True after a cut inside a row: the rest of that row is cut to the target too, not kept whole.
  let splittingRow = false;
  while (p < text.length) {
    if (text.length - p <= target) {
      pushTrimmed(spans, text, p, text.length);
      break;
    }
    let cut = lastBreak(text, p + 1, p + target, LINE);
    let next: number | null = null;
    if (cut !== null) splittingRow = false;
    else {
      const rowEnd = text.indexOf("\n", p);
      const end = rowEnd < 0 ? text.length : rowEnd;
      if (end - p <= (splittingRow ? target : maxRow)) {
        cut = end;
        splittingRow = false;
      } else {
        splittingRow = true;
        const min = p + Math.floor(target / 2);
        cut = lastBreak(text, min, p + target, CELL);
        // The next piece starts at the next cell, not at the separator.
        if (cut !== null) next = cut + CELL_SEPARATOR.length;
        else cut = lastBreak(text, min, p + target, SPACE) ?? safeCut(text, p + target);
      }
    }
    pushTrimmed(spans, text, p, cut);
    p = skipSpace(text, next ?? cut);
  }
  return spans;
}

// Each pattern marks where a chunk may end: the break is at the match's index (before the separator).
const PARAGRAPH = /\n[ \t]*\n/g;
const LINE = /\n/g;
// After terminal punctuation (and closing quotes/brackets) followed by whitespace; CJK stops need no space.
const SENTENCE = /(?<=[.!?…]["'”’)\]]*)\s|(?<=[。！？])/g;
const CELL_SEPARATOR = " | "; // how extractors join a row's cells (extract/document.ts rowLine)
const CELL = / \| /g;
const SPACE = /\s/g;

/** The last break position in [from, to], or null. Only the window is scanned, so chunking stays linear. */
function lastBreak(text: string, from: number, to: number, re: RegExp): number | null {
  // A few characters of context each side for the lookarounds; positions are mapped back to the full text.
  const lo = Math.max(0, from - 8);
  const window = text.slice(lo, Math.min(text.length, to + 2));
  let found: number | null = null;
  re.lastIndex = 0;
  for (let m = re.exec(window); m !== null; m = re.exec(window)) {
    const at = lo + m.index;
    if (at > to) break;
    if (at >= from) found = at;
    if (m[0].length === 0) re.lastIndex++;
  }
  return found;
}

/** Where the next chunk starts: a sentence or line start near the overlap distance, else a word start. */
function overlapStart(text: string, cut: number, overlap: number): number {
  if (overlap <= 0) return cut;
  const from = Math.max(0, cut - overlap);
  const late = cut - Math.floor(overlap / 4);
  const sentence = firstStart(text, from, late, /(?<=[.!?…。！？]["'”’)\]]*\s+|\n)(?=\S)/g);
  if (sentence !== null) return sentence;
  const word = firstStart(text, from, cut - 1, /(?<=\s)(?=\S)/g);
  return word ?? safeCut(text, from);
}

function firstStart(text: string, from: number, to: number, re: RegExp): number | null {
  if (to < from) return null;
  const lo = Math.max(0, from - 8);
  const window = text.slice(lo, Math.min(text.length, to + 1));
  re.lastIndex = 0;
  for (let m = re.exec(window); m !== null; m = re.exec(window)) {
    const at = lo + m.index;
    if (at > to) break;
    if (at >= from) return at;
    if (m[0].length === 0) re.lastIndex++;
  }
  return null;
}

/** A hard cut that never separates the two halves of a surrogate pair. */
function safeCut(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return code >= 0xdc00 && code <= 0xdfff ? at - 1 : at;
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && /\s/.test(text[at])) at++;
  return at;
}

function pushTrimmed(spans: Span[], text: string, start: number, end: number): void {
  while (start < end && /\s/.test(text[start])) start++;
  while (end > start && /\s/.test(text[end - 1])) end--;
  if (end > start) spans.push({ start, end });
}
