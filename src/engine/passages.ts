// Cuts a document into quotable passages (sentences, list items, table rows), each an exact range of its text with its section's location.
import type { Location, Section } from "../extract/types";
import type { EngineDocument } from "./types";

export interface Passage {
  documentId: string;
  /** Offsets into the document's content.text; text === content.text.slice(start, end). */
  start: number;
  end: number;
  text: string;
  location: Location;
  /** Index of the section (and of the paragraph within all paragraphs of the document). */
  section: number;
  paragraph: number;
}

export interface PlacedSection extends Section {
  start: number;
  end: number;
}

/** Each section with its offsets in the document's text (sections are joined by blank lines, in order). */
export function placeSections(doc: EngineDocument): PlacedSection[] {
  const text = doc.content.text;
  const out: PlacedSection[] = [];
  let cursor = 0;
  for (const s of doc.content.sections) {
    let at = text.indexOf(s.text, cursor);
    // A section the extractor did not copy verbatim (never expected) is placed where it should be.
    if (at < 0) at = Math.min(cursor, text.length);
    out.push({ ...s, start: at, end: Math.min(text.length, at + s.text.length) });
    cursor = at + s.text.length;
  }
  return out;
}

/** The section of `doc` that contains offset `at`, else null. */
export function sectionAt(sections: PlacedSection[], at: number): PlacedSection | null {
  for (const s of sections) if (at >= s.start && at < s.end) return s;
  return null;
}

/** Longest passage kept whole; longer sentences are cut at word boundaries so quotes stay readable. */
const MAX_PASSAGE = 320;

// A sentence ends at . ! ? (and closing quotes/brackets) followed by space and a capital, digit or opening quote.
const SENTENCE_END = /[.!?]+["'”’)\]]*(?=\s+["'“‘([]?[\p{Lu}\p{N}])/gu;
const LIST_LINE = /^\s*(?:[-*•+]|\d+[.)]|[a-z][.)])\s+/;

/** The document's passages in order. */
export function passagesOf(doc: EngineDocument): Passage[] {
  const out: Passage[] = [];
  const text = doc.content.text;
  let paragraphIndex = 0;
  placeSections(doc).forEach((section, sectionIndex) => {
    for (const para of paragraphs(text, section.start, section.end)) {
      const pieces = isLineStructured(text.slice(para.start, para.end)) ? lines(text, para.start, para.end) : sentences(text, para.start, para.end);
      for (const piece of pieces) {
        for (const [s, e] of limitLength(text, piece[0], piece[1])) {
          const [ts, te] = trimRange(text, s, e);
          if (te - ts < 2) continue;
          out.push({
            documentId: doc.id,
            start: ts,
            end: te,
            text: text.slice(ts, te),
            location: section.location,
            section: sectionIndex,
            paragraph: paragraphIndex,
          });
        }
      }
      paragraphIndex++;
    }
  });
  return out;
}

/** Blank-line separated blocks within [start, end). */
function paragraphs(text: string, start: number, end: number): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  const re = /\n[ \t]*\n\s*/g;
  re.lastIndex = start;
  let from = start;
  for (let m = re.exec(text); m && m.index < end; m = re.exec(text)) {
    if (m.index > from) out.push({ start: from, end: m.index });
    from = m.index + m[0].length;
  }
  if (from < end) out.push({ start: from, end });
  return out;
}

/**
 * Lists, tables, headings and short lines are quoted line by line; wrapped prose (PDF lines,
 * a paragraph broken across lines) is quoted sentence by sentence across the line breaks.
 */
function isLineStructured(block: string): boolean {
  const ls = block.split("\n").filter((l) => l.trim() !== "");
  if (ls.length <= 1) return false;
  const structured = ls.filter((l) => LIST_LINE.test(l) || l.includes(" | ") || /^\s*#{1,6}\s/.test(l) || /^\s*\|/.test(l));
  if (structured.length * 2 >= ls.length) return true;
  // Short lines that mostly end without punctuation read as separate items (slides, forms, headings).
  const short = ls.filter((l) => l.trim().length < 50);
  return short.length * 2 > ls.length;
}

function lines(text: string, start: number, end: number): [number, number][] {
  const out: [number, number][] = [];
  let from = start;
  for (;;) {
    const nl = text.indexOf("\n", from);
    const stop = nl < 0 || nl >= end ? end : nl;
    if (stop > from) out.push(...sentences(text, from, stop));
    if (stop >= end) break;
    from = stop + 1;
  }
  return out;
}

function sentences(text: string, start: number, end: number): [number, number][] {
  const out: [number, number][] = [];
  const block = text.slice(start, end);
  let from = 0;
  for (const m of block.matchAll(SENTENCE_END)) {
    const stop = m.index + m[0].length;
    // "e.g. The", "Dr. Smith", "p. 3": an abbreviation of one or two letters is not a sentence end.
    const before = block.slice(Math.max(from, m.index - 3), m.index);
    if (/(?:^|[\s(])(?:[A-Za-z]{1,2}|e\.g|i\.e|etc|vs|Dr|Mr|Ms|Mrs|No|pp|Fig)$/.test(before) && m[0] === ".") continue;
    out.push([start + from, start + stop]);
    from = stop;
  }
  if (from < block.length) out.push([start + from, end]);
  return out;
}

/** Splits [s, e) into pieces of at most MAX_PASSAGE characters at whitespace. */
function limitLength(text: string, s: number, e: number): [number, number][] {
  if (e - s <= MAX_PASSAGE) return [[s, e]];
  const out: [number, number][] = [];
  let from = s;
  while (e - from > MAX_PASSAGE) {
    let cut = text.lastIndexOf(" ", from + MAX_PASSAGE);
    if (cut <= from + MAX_PASSAGE / 2) cut = from + MAX_PASSAGE;
    out.push([from, cut]);
    from = cut;
  }
  out.push([from, e]);
  return out;
}

function trimRange(text: string, s: number, e: number): [number, number] {
  let a = s;
  let b = e;
  while (a < b && /\s/.test(text[a])) a++;
  while (b > a && /\s/.test(text[b - 1])) b--;
  // A list marker or table pipe at the start is layout, not part of what is quoted.
  const lead = /^(?:[-*•+]|\d+[.)]|#{1,6}|\|)\s+/.exec(text.slice(a, Math.min(b, a + 12)));
  if (lead && b - a > lead[0].length + 1) a += lead[0].length;
  return [a, b];
}
