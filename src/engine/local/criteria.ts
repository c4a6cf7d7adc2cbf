// Finds a rubric's criteria in reference documents (or the workflow prompt): headings, list items, table rows and lines with point values.
import type { Section } from "../../extract/types";
import { dataFields, exportedCriteria } from "./rubric-exports";
import { tableSets } from "./rubric-tables";
import {
  ADVERT_REQUIREMENT_SECTION,
  type Candidate,
  type CandidateSet,
  HOLISTIC_TITLE,
  headingName,
  isLevelTitle,
  JOB_SECTION,
  type Level,
  type Line,
  META_HEADING,
  markersNotes,
  namedFirst,
  OPTIONAL_SECTION,
  organising,
  parsePoints,
  REQUIREMENT_SECTION,
  REVIEW_NOTES,
  runInName,
  TOTAL_ROW,
  tidyTitle,
  titleLike,
} from "./rubric-words";

export interface RubricCriterion {
  id: string;
  title: string;
  /** The text under the criterion (its descriptors); may be empty. */
  description: string;
  maxScore: number;
  /** Whether maxScore came from the rubric (else the default of 10). */
  hasPoints: boolean;
  /**
   * The rubric's own levels for this criterion ("3: clearly focused…", "Score 6 …", "Excellent (4)"), lowest first,
   * when it states them: a score is then one of these values, and maxScore is the top one.
   */
  levels?: Level[];
  /**
   * The rubric's weight for this criterion when it states one apart from the criterion's scale ("Weight 30%" beside
   * "Score (1–5)"): the overall score weighs the criterion's share by it. Absent, a criterion weighs its maxScore.
   */
  weight?: number;
  /**
   * Marked not required by the rubric ("Required: No", "Optional", a job's "Nice to have"): it adds to the score, but
   * the pass is judged on the required criteria, and its absence holds nothing back.
   */
  optional?: boolean;
  /**
   * A bonus ("Bonus: creative extension (+5, optional)", "Extra credit"): what it earns adds to the overall score (up
   * to 100), and its maximum does not count in the rubric's, so work without it loses nothing.
   */
  bonus?: boolean;
}

export type CriteriaSource = "references" | "prompt" | "generic";

const DEFAULT_MAX_SCORE = 10;
/** More than this many "criteria" means the reference is not a rubric; the first ones are kept. */
const MAX_CRITERIA = 30;

// ---------------------------------------------------------------------------
// Lines

const ATX = /^ {0,3}(#{1,6})\s+(?!\|)(.*?)(?:\s+#+)?\s*$/;
// (A PDF's Symbol and Wingdings bullets arrive as "•": src/extract/pdf.ts reads them so.)
// (A checklist's tags are bullets too: "[M1] Who we are: …".)
const ITEM = /^(\s*)(?:[-*•+▪◦‣●○■□☐☑☒►▸✓✔]|\d{1,2}[.)]|[a-zA-Z][.)]|\(\w{1,3}\)|[ivxIVX]{1,4}[.)]|\[[A-Za-z]{1,3}\d{1,3}\])\s+(.*)$/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;
const POINTS_FIRST = /^([ \t]+)(\d{1,3}(?:\s*[-–]\s*\d{1,3})?)(?:\s*(pts?|points?|marks?)\.?)?(?:[ \t]{2,}|\s*[:–—]\s+)(\S.*)$/i;
// A box to tick, "[ ]" or "☐", and a line of an item followed by two boxes or more, each with its label.
const TICK_BOX = /\[\s?\]|☐|□/;
const TICK_LINE = new RegExp(String.raw`^\s*(\p{L}.*?)\s{2,}((?:(?:${TICK_BOX.source})\s*[^[☐□]*?\p{L}[^[☐□]*){2,})$`, "u");
const BOLD_LINE = /^\s*(?:\*\*|__)([^*_]{2,100})(?:\*\*|__)\s*:?\s*$/;
/** A name marked [M] (mandatory) or [O] (optional) before its description, on a line of its own. */
const MARKED_LINE = /^\s*\p{Lu}[^:[\]]{1,60}?\s*\[[MO]\]\s*:\s*\S/u;
const BOLD_LEAD = /^\s*(?:\*\*|__)([^*_]{1,60}?[:.)–—-]?)(?:\*\*|__)\s*[:.–—-]?\s*(\S.{2,})$/;

function toLines(given: Section[]): Line[] {
  const sections = given.map((s) => ({ ...s, text: cellBlocksAsRows(/<table\b/i.test(s.text) ? htmlTablesAsRows(s.text) : s.text) }));
  const out: Line[] = [];
  // Score columns are found across sections: a page may end with the column's header, the next begin its levels.
  const { labelled, headers } = scoreColumn(sections.flatMap((s) => s.text.split("\n")));
  let offset = 0;
  for (const section of sections) {
    const hint = section.location.heading?.trim();
    const paged = section.location.page !== undefined;
    const sectionLines = section.text.split("\n");
    const at = offset;
    offset += sectionLines.length;
    let fence: string | null = null;
    for (const [i, raw] of sectionLines.entries()) {
      const line = raw.replace(/\t/g, "    ").replace(/\s+$/, "");
      // Code blocks hold code, not criteria ("# Open workbook" in a Python sample is a comment).
      const f = /^ {0,3}(`{3,}|~{3,})/.exec(line);
      if (fence) {
        if (f && f[1][0] === fence[0] && f[1].length >= fence.length) fence = null;
        continue;
      }
      if (f) {
        fence = f[1];
        continue;
      }
      // "Score Description" over a score column is the header of a table the PDF could not rebuild, not a name.
      if (line.trim() === "" || headers.has(at + i)) {
        out.push({ kind: "blank" });
        continue;
      }
      const atx = ATX.exec(line);
      if (atx) {
        out.push({ kind: "heading", level: atx[1].length, text: atx[2] });
        continue;
      }
      // DOCX and PPTX headings arrive as a section's first line, named in its location (at their depth where the
      // format marks it: DOCX heading styles; else all at one level).
      if (i === 0 && hint && line.trim() === hint) {
        out.push({ kind: "heading", level: section.level ?? 2, text: hint });
        continue;
      }
      if (TABLE_SEPARATOR.test(line) && line.includes("-")) continue;
      // A plain-text form's line to tick, "Letters of support attached   [ ] Met  [ ] Partially met  [ ] Not met": a row
      // of a form whose header is its boxes' labels (put above its first line).
      const ticks = TICK_LINE.exec(line);
      if (ticks) {
        const labels = ticks[2]
          .split(TICK_BOX)
          .map((c) => c.trim())
          .filter(Boolean);
        const header = ["Item", ...labels];
        const last = out.findLast((l) => l.kind !== "blank");
        if (!(last?.kind === "row" && last.cells.length === header.length)) out.push({ kind: "row", cells: header });
        out.push({ kind: "row", cells: [ticks[1].trim(), ...labels.map(() => "☐")] });
        continue;
      }
      // A table pasted as plain text keeps a tab between its cells: "Thesis<TAB>Clear claim<TAB>Vague claim".
      const tabbed = raw
        .trim()
        .split("\t")
        .map((c) => c.trim());
      if (tabbed.filter(Boolean).length >= 2) {
        out.push({ kind: "row", cells: tabbed });
        continue;
      }
      if (line.includes(" | ") || /^\s*\|.*\|\s*$/.test(line) || /\S \|$/.test(line)) {
        // A Markdown row opens and closes with a pipe. A row from a DOCX, a sheet or a CSV opens with one only when its
        // first cell is empty ("| Excellent (4) | …", under a table's blank corner), and closes with one only when its
        // other cells are empty ("Term |", a DOCX checklist's row): those cells are kept.
        const markdown = /^\s*\|/.test(line) && /\|\s*$/.test(line);
        // (A Markdown cell breaks its lines with "<br>": "4<br>Exemplary", "**Hypothesis**<br>*(clear, testable)*".)
        const cells = (markdown ? line.replace(/^\s*\|/, "").replace(/\|\s*$/, "") : line)
          .split("|")
          .map((c) => c.replace(/<br\s*\/?>/gi, " ").trim());
        // (A PDF's bullet in a column of its own, "• | Screen and consent participants", is a list item.)
        if (cells.length === 2 && /^[•●○■▪◦‣►▸]$/.test(cells[0])) {
          out.push({ kind: "item", indent: 0, text: cells[1] });
          continue;
        }
        if (cells.length >= 2) {
          out.push({ kind: "row", cells });
          continue;
        }
      }
      const item = ITEM.exec(line);
      if (item) {
        // An outline's lettered points under a numbered one ("1. Facility amount" / "a. Maximum principal …") are its
        // sub-items, even where a PDF has lost their indent.
        const lettered = /^\s*(?:[a-h][.)]|\([a-h]\))\s/.test(line);
        const numbered = lettered && underNumbered(out, item[1].length);
        out.push({
          kind: "item",
          indent: item[1].length + (numbered ? 2 : 0),
          text: item[2].trim().replace(/^(?:\*\*|__)(\d{1,3})(?:\*\*|__)/, "$1"),
          ...(/^\s*\d{1,2}[.)]\s/.test(line) ? { numbered: true } : {}),
        });
        continue;
      }
      // A level of a plain-text rubric, indented under its criterion, its points first and set apart by white: "  10 pts
      // Thoroughly researched", "   7  Some sources". A list of levels without bullets.
      const level = POINTS_FIRST.exec(line);
      if (level) {
        out.push({ kind: "item", indent: level[1].length, text: `${level[2]} ${level[3] ?? "points"}: ${level[4].trim()}` });
        continue;
      }
      const bold = BOLD_LINE.exec(line);
      if (bold) {
        out.push({ kind: "heading", level: 7, text: bold[1] });
        continue;
      }
      // "Force majeure [M]: Relief for events …": a checklist's line, marked mandatory or optional, is one of its items.
      if (MARKED_LINE.test(line)) {
        out.push({ kind: "item", indent: 0, text: line.trim() });
        continue;
      }
      // A bold label leading its text ("**A (90–100):** Original, insightful argument", "**Thesis (20 points):** …") is
      // an item of a list whose bullets are the bold.
      const lead = BOLD_LEAD.exec(line);
      if (lead) {
        // (A criterion's name and points before what it asks, "**Café menu design (10 pts)** — the menu must …", heads
        // the levels listed under it, as a bold line of its own would.)
        const { points, rest } = parsePoints(lead[1]);
        if (points !== null && / [–—] /.test(line) && !isLevelTitle(rest) && !namedLevel(lead[1]) && titleLike(rest)) {
          out.push({ kind: "heading", level: 7, text: lead[1].trim() });
          out.push({ kind: "text", text: lead[2].trim() });
          continue;
        }
        out.push({ kind: "item", indent: 0, text: `${lead[1].trim()} ${lead[2].trim()}` });
        continue;
      }
      // "Score 3: …" on a line of its own (a PDF or plain-text rubric) is one level of a list, as "- Score 3: …" is; so
      // is "3: …" (a browser prints a list's bullets as drawings, not text).
      if (NAMED_LEVEL_LINE.test(line.trim()) || BARE_LEVEL_LINE.test(line.trim())) {
        out.push({ kind: "item", indent: 0, text: line.trim() });
        continue;
      }
      // A level's number alone on its line, its descriptor in the lines below: a PDF's "Score | Description" table
      // whose long cells it could not rebuild as a table ("6" / "A well-developed response that …" / "5" / …), or the
      // number on the line of the descriptor's first words, where the two share a baseline ("6 A well-developed …").
      // So is "Score 6" (or "Level 4") alone on its line: a heading in the document the PDF was printed from.
      const label = LEVEL_NUMBER.exec(line.trim()) ?? LEVEL_ALONE.exec(line.trim());
      if (label && (label[0] === line.trim() || labelled.has(at + i))) {
        // The white a table row's padding leaves between two levels is not the end of the list.
        const gapAfter = out.at(-2);
        if (out.at(-1)?.kind === "blank" && gapAfter?.kind === "item" && gapAfter.open) out.pop();
        out.push({ kind: "item", indent: 0, text: `${label[1]}: ${line.trim().slice(label[0].length)}`.trim(), open: true });
        continue;
      }
      // A PDF wraps a long list item onto the next line ("● 3: … thoroughly" / "developed with specific details."):
      // a line that continues the item's sentence belongs to it, as a lazy continuation does in Markdown. (So does a
      // level on a line of text, "Excellent (3): …"; a level's number alone takes every line up to the next.)
      const prev = out.at(-1);
      if (levelLike(prev) && ((prev.kind === "item" && prev.open) || continuesItem(prev.text, line.trim(), paged))) {
        prev.text = `${prev.text} ${line.trim()}`;
        continue;
      }
      // A page break inside an item: its last words at the top of the next page. (A level's number alone, "6:", takes
      // its descriptor across a break too: a PDF sets the two apart when the number stands in a column of its own.)
      const beforeBreak = out.at(-2);
      const bare = beforeBreak?.kind === "item" && beforeBreak.open && /^\d+:$/.test(beforeBreak.text);
      if (prev?.kind === "blank" && levelLike(beforeBreak) && (bare || /^\p{Ll}/u.test(line.trim()))) {
        out.pop();
        beforeBreak.text = `${beforeBreak.text} ${line.trim()}`;
        continue;
      }
      out.push({ kind: "text", text: line.trim() });
    }
    out.push({ kind: "blank" });
  }
  return out;
}

/** Whether the list item above, at this indent and under the same heading or label, is numbered ("1. Facility amount"). */
function underNumbered(out: Line[], indent: number): boolean {
  for (let i = out.length - 1; i >= 0; i--) {
    const l = out[i];
    if (l.kind === "heading" || l.kind === "row" || (l.kind === "text" && sectionLabel(l.text))) return false;
    if (l.kind === "item" && l.indent <= indent) return l.indent === indent && l.numbered === true;
  }
  return false;
}

/**
 * Lines that open with a level's number and its descriptor's first words ("6 A well-developed …", "5 A developed …",
 * "4 …", or the number alone) under a score column's header ("Score Description"): three or more in a row of values,
 * one apart. (Without the header, "1 Introduction", "2 Method" are a paper's sections.)
 */
function scoreColumn(lines: string[]): { labelled: Set<number>; headers: Set<number> } {
  const found = new Set<number>();
  const headers = new Set<number>();
  const numbered = lines.flatMap((l, i) => {
    const m = LEVEL_NUMBER.exec(l.trim());
    return m ? [{ i, value: Number(m[1]) }] : [];
  });
  let start = 0;
  for (let k = 1; k <= numbered.length; k++) {
    const step = k < numbered.length ? numbered[k].value - numbered[k - 1].value : 0;
    const first = numbered[start];
    const direction = start + 1 < numbered.length ? numbered[start + 1].value - first.value : 0;
    if (k < numbered.length && Math.abs(step) === 1 && (k === start + 1 || step === direction)) continue;
    const header = lines.slice(0, first.i).findLastIndex((l) => l.trim() !== "");
    if (k - start >= 3 && /^(?:score|level|points?|band|rating|grade|mark)s?\b/i.test(lines[header]?.trim() ?? "")) {
      for (const n of numbered.slice(start, k)) found.add(n.i);
      headers.add(header);
    }
    start = k;
  }
  return { labelled: found, headers };
}

/** A list item, or a level on a line of text ("Excellent (3): …"): what a wrapped line can go on. */
function levelLike(line: Line | undefined): line is Extract<Line, { kind: "item" | "text" }> {
  return line?.kind === "item" || (line?.kind === "text" && NAMED_VALUE_LINE.test(line.text));
}

/**
 * A line goes on with the item above: it starts in lower case, or, on a page (a PDF wraps lines), it ends the sentence
 * the item left open. (A DOCX's or a text file's lines are paragraphs: "Oncology trial experience" over "Harbour City
 * Hospital is an equal opportunity employer." are two.)
 */
function continuesItem(item: string, line: string, paged: boolean): boolean {
  if (/^\p{Ll}/u.test(line)) return true;
  return paged && !/[.!?:;)]$/.test(item) && /[.!?]$/.test(line) && line.split(/\s+/).length >= 3;
}

// ---------------------------------------------------------------------------
// Candidates

// "- 3: Tells a story…", "Level 2 – …", "Score 1. …", "4 points: …" on a line of a criterion's body.
// "Score 3", "Level 2", "A score of 4", "Band 5" before a level's value.
const LEVEL_NAME = String.raw`(?:an?\s+)?(?:level|score|band|score point)(?:\s+of)?\s*`;
const NAMED_LEVEL_LINE = new RegExp(String.raw`^${LEVEL_NAME}\d{1,2}(?:\.\d)?\s*(?:points?|pts?|marks?)?\s*[:\-–—.)=]\s*.{3,}$`, "i");
/** A level's number (0–10) alone on its line, or before its descriptor's first word: "6", "6 A well-developed …". */
const LEVEL_NUMBER = /^(10|\d)(?:$|\s+(?=\p{Lu}))/u;
const LEVEL_ALONE = new RegExp(String.raw`^${LEVEL_NAME}(\d{1,2})$`, "i");
// (Worth the top of its band when it names one: "Exemplary (18–20): …".)
const NAMED_VALUE_LINE =
  /^(?:[-*•+]\s*)?(\p{L}[\p{L} -]{1,30}?)\s*\(\s*(?:\d{1,3}\s*[-–]\s*)?(\d{1,3})\s*(points?|pts?\.?)?\s*\)\s*[:\-–—.]\s*(.{3,})$/u;
/**
 * A level named with its value, "Excellent (3): …", "Good (18 points): …"; not a criterion with its points, "Thesis (20
 * points): a clear claim" (a name that is no level's, with a unit).
 */
function namedLevel(line: string): RegExpExecArray | null {
  const m = NAMED_VALUE_LINE.exec(line.trim());
  // (A band after a level's own name only: "A (90–100): …" is a grade of a letter-grade guide, read as one scale.)
  const band = /\(\s*\d{1,3}\s*[-–]/.test(line);
  if (!m || (band && m[1].trim().length < 3)) return null;
  return (m[3] === undefined && !band) || isLevelTitle(m[1]) ? m : null;
}
const BARE_LEVEL_LINE = /^\d{1,2}(?:\.\d)?\s*[:–—]\s+\S.{2,}$/u;
// A band of points ("18–20: …", "36-40 marks: …", "10 to 16 points = Meets") is a level worth its top.
const LEVEL_LINE = new RegExp(
  String.raw`^(?:[-*•+]\s*)?(?:${LEVEL_NAME})?(?:(\d{1,3})\s*(?:[-–]|to)\s*(?=\d))?(\d{1,3}(?:\.\d)?)\s*(?:points?|pts?|marks?)?\s*[:\-–—.)=]\s*(.{3,})$`,
  "i",
);

/** A level line of a band of points: "18–20: …", "36-40 points: …". */
const bandLine = (text: string) => LEVEL_LINE.exec(text.trim())?.[1] !== undefined;

/**
 * The level scale a criterion's body spells out, one line per level, each value once; null when it has none.
 * Repeated values mean the body holds several criteria's scales (a parent heading), not one.
 */
function levelScale(body: string, stated: number | null = null): Level[] | null {
  const levels: Level[] = [];
  for (const raw of body.split("\n")) {
    // (Bold level names, "- **Exemplary (18–20):** …", and a Markdown definition list's ": 10 — …" read as plain.)
    const line = raw.replace(/\*\*|__/g, "").replace(/^\s*:\s+/, "");
    // "A: 36–40, B: 30–35, C: 24–29, D: 0–23": bands listed on one line, each worth its top.
    const bands = BAND_LIST.test(line.trim()) ? [...line.matchAll(/(\p{L}[\p{L}+-]{0,11})\s*:\s*(\d{1,3})\s*[-–]\s*(\d{1,3})/gu)] : [];
    if (bands.length >= 2) {
      for (const b of bands)
        if (!levels.some((l) => l.value === Number(b[3]))) levels.push({ value: Number(b[3]), descriptor: `${b[1]} (${b[2]}–${b[3]})` });
      continue;
    }
    const m = LEVEL_LINE.exec(line.trim());
    // "Excellent (3): …": the level's name stays in its descriptor, as a table's column name does (it can set the pass line).
    const named = m ? null : namedLevel(line);
    if (!m && !named) continue;
    const value = Number(m ? m[2] : named?.[2]);
    // A band runs up ("36-40"); a number above 20 is a level only at the top of one, named ("Excellent (25): …"), or
    // within the points the criterion states ("Visual aids (50 points)" over "- 50: …"): a list of years is no scale.
    if (m?.[1] !== undefined ? Number(m[1]) >= value : value > (named ? 100 : Math.max(20, stated ?? 0))) return null;
    if (levels.some((l) => l.value === value)) return null;
    levels.push({ value, descriptor: m ? m[3].trim() : `${named?.[1].trim()}: ${named?.[4].trim()}` });
  }
  if (levels.length < 2 || Math.max(...levels.map((l) => l.value)) > 100) return null;
  return levels.sort((a, b) => a.value - b.value);
}

const BAND_LIST = /^(?:\p{L}[\p{L}+-]{0,11}\s*:\s*\d{1,3}\s*[-–]\s*\d{1,3}\s*[,;]\s*)+\p{L}[\p{L}+-]{0,11}\s*:\s*\d{1,3}\s*[-–]\s*\d{1,3}\.?$/u;

/** A heading's candidate: its points from the title, or the level scale of its body (described by the top level). */
function headingCandidate(title: string, body: string, scaleBody = body): Candidate {
  const parsed = parsePoints(title);
  const { rest } = parsed;
  // Or on the first line under it: "Marks available: 25", "Points: 20", "Weight: 30%".
  const stated = /^\s*(?:max(?:imum)?\s+)?(?:marks?|points?|weight(?:ing)?)(?:\s+(?:available|possible))?\s*:\s*(\d{1,3})\s*%?\s*$/i.exec(
    body.split("\n").find((l) => l.trim() !== "") ?? "",
  );
  const points = parsed.points ?? (stated ? Number(stated[1]) : null);
  // "Thesis (weight 40%)", "Weight: 30%": a weight, which levels under the heading may score on a scale of their own.
  const weighs = parsed.points !== null ? /\bweight(?:ing)?\b|\d\s*%/i.test(title) : /weight|%/i.test(stated?.[0] ?? "");
  // "4 – Exceeds" names a level as "Exceeds (4)" does (tidyTitle would drop the 4 as a section number).
  const level = /^\s*(\d{1,2})\s*[-–—:.]\s*(\S.*)$/.exec(rest);
  const named = level && isLevelTitle(level[2]) ? `${level[2]} (${level[1]})` : rest;
  const weight = weighs && points !== null ? { weight: points } : {};
  return withScale({ title: tidyTitle(named), description: body.trim(), points, ...weight }, scaleBody);
}

/**
 * A candidate with the level scale its text spells out ("3: …" … "0: …"), when its points (if any) are the top level's
 * or only its weight.
 */
function withScale(c: Candidate, scaleBody = c.description): Candidate {
  const levels = levelScale(scaleBody, c.points);
  if (!levels || (c.points !== null && c.points !== c.weight && c.points !== levels[levels.length - 1].value)) return c;
  const top = levels[levels.length - 1];
  // The top level describes the work the criterion asks for; the text outside the level lines stays too.
  const other = c.description
    .split("\n")
    .filter((l) => !LEVEL_LINE.test(l.trim()))
    .join("\n")
    .trim();
  return { ...c, description: [top.descriptor, other].filter(Boolean).join("\n"), points: top.value, levels };
}

interface HeadingBlock {
  level: number;
  title: string;
  /** Its text and its sub-headings' text. */
  body: string[];
  /** Its own text, before any sub-heading: a level scale belongs to the heading right above it, not to its parents. */
  direct: string[];
}

function headingBlocks(lines: Line[]): HeadingBlock[] {
  const blocks: HeadingBlock[] = [];
  for (const line of lines) {
    if (line.kind === "heading") {
      blocks.push({ level: line.level, title: line.text, body: [], direct: [] });
      continue;
    }
    const text = lineText(line);
    blocks.at(-1)?.direct.push(text);
    // Text belongs to every open heading above it (a level-2 criterion contains its level-3 parts).
    for (let i = blocks.length - 1, level = 99; i >= 0 && level > 1; i--) {
      if (blocks[i].level < level) {
        blocks[i].body.push(text);
        level = blocks[i].level;
      }
    }
  }
  return blocks;
}

function lineText(line: Line): string {
  switch (line.kind) {
    case "heading":
    case "text":
      return line.text;
    case "item":
      return `- ${line.text}`;
    case "row":
      return line.cells.filter(Boolean).join(" | ");
    default:
      return "";
  }
}

/** A list item's mark of required or not at its name's end: "Accessible rooms [Optional]". */
const ITEM_MARK = /\s*[[(](required|mandatory|essential|desirable|optional|recommended)[\])]$/i;
/** A checklist item's heading marked as required or not: "Public liability insurance (Required)". */
const MARKED_ITEM = /\((?:required|mandatory|essential|desirable|optional|recommended)\)$/i;

function headingSet(lines: Line[], scaled = false): CandidateSet | null {
  const blocks = headingBlocks(lines);
  const levels = [...new Set(blocks.map((b) => b.level))].sort((a, b) => a - b);
  let best: { items: Candidate[]; points: number; level: number } | null = null;
  for (const level of levels) {
    const items = blocks
      .filter((b) => b.level === level)
      .map((b) => headingCandidate(b.title, b.body.join("\n"), b.direct.join("\n")))
      // "Rubric" or "Scoring" above one level scale ("Score 3: …" … "Score 0: …") is a holistic rubric's one criterion;
      // so is "How the paper is scored" above three levels or more ("6 — Exceptional. …" … "1 — Does not address …").
      .filter(
        (c) => c.title && !TOTAL_ROW.test(c.title) && (!organising(c.title) || (c.levels && (META_HEADING.test(c.title) || c.levels.length >= 3))),
      )
      .map((c) => (organising(c.title) ? { ...c, title: HOLISTIC_TITLE } : c));
    // A heading with nothing under it beside headings that have points, levels or text is a title or a group's name
    // (DOCX headings all arrive at one level: "Story rubric", "Traits", then the traits).
    const substantial = items.filter((c) => c.points !== null || c.levels || c.description.trim() !== "");
    if (substantial.length > 0 && substantial.length < items.length) items.splice(0, items.length, ...substantial);
    // So is a first heading without points over a few lines (a deck's title slide, "COMM 150 — Spring term") before
    // headings that all have points.
    const rest = items.slice(1);
    if (items.length >= 3 && items[0].points === null && !items[0].levels && rest.every((c) => c.points !== null)) items.shift();
    // One scale beside sections of text only (a reading passage, notes) is a holistic rubric: the scale is its criterion.
    const scales = items.filter((c) => c.levels);
    if (scales.length === 1 && items.every((c) => c.levels || c.points === null)) items.splice(0, items.length, scales[0]);
    if (items.length < 2 && !items[0]?.levels) continue;
    // "Score 6" … "Score 1" headings are the points of one scale.
    // (Where one scale is stated for every criterion, a heading without points of its own is scored on it.)
    const pointed = items.filter((c) => c.points !== null || (scaled && !c.levels) || (isLevelTitle(c.title) && /\d/.test(c.title))).length;
    // (Headings marked "(Required)" or "(Desirable)" name a checklist's items, as points name a rubric's criteria:
    // "### 1. Dates, hours and areas (Required)" under "## The standards", beside "## Why this standard exists".)
    const marked = blocks.filter((b) => b.level === level && MARKED_ITEM.test(b.title.trim())).length;
    const points = pointed + (pointed === 0 && marked >= 2 ? marked / 100 : 0);
    // More headings with points wins; then the shallower level (criteria above their sub-parts).
    if (!best || points > best.points) best = { items, points, level };
  }
  if (!best) return null;
  // The heading above the chosen level names a holistic scale when the chosen headings are its levels.
  const parentLevel = levels.filter((l) => l < best.level).at(-1);
  const first = blocks.findIndex((b) => b.level === best.level);
  const scaleTitle = parentLevel === undefined ? undefined : blocks.slice(0, first).findLast((b) => b.level === parentLevel)?.title;
  return { kind: "heading", items: best.items, scaleTitle };
}

/** "Thesis (20 points)" on a line of its own, its descriptors below it (PDF and DOCX rubrics without heading styles). */
function pointLineSet(lines: Line[]): CandidateSet | null {
  const found: { title: string; body: string[] }[] = [];
  let current: { title: string; body: string[] } | null = null;
  let previous: Line | null = null;
  for (const line of lines) {
    // ("Excellent (10): has read the material" and "36–40 points: …" are levels of the criterion above, not criteria.)
    // (An exam question is longer than a criterion's name, its marks in brackets at its end: "Q1 (b) Explain why … [3
    // marks]".)
    const question = line.kind === "text" && EXAM_MARKS.test(line.text);
    // (Nor is the rest of a sentence the line above broke off: "… Part points are OK (for" / "example 1 out of 2 …".)
    const goesOn = previous !== null && DANGLING.test(lineText(previous)) && line.kind === "text" && /^\p{Ll}/u.test(line.text);
    if (line.kind === "text" && !goesOn && line.text.length <= (question ? 200 : 100) && !namedLevel(line.text) && !bandLine(line.text)) {
      // "Sources (10) – At least six peer-reviewed sources": the name, its points, then what it asks for.
      const described = NAME_POINTS_DESCRIPTION.exec(line.text);
      const { points, rest } = parsePoints(described ? described[1] : line.text);
      const title = tidyTitle(rest);
      // ("Assessment 2 · Total 100 marks" states the whole's marks.)
      if (
        points !== null &&
        title &&
        title.split(/\s+/).length <= (question ? 30 : 10) &&
        !TOTAL_ROW.test(title) &&
        !STATED_TOTAL.test(line.text) &&
        !SCORE_SHEET.test(line.text) &&
        !FILL_IN.test(line.text)
      ) {
        current = { title: described ? described[1] : line.text, body: described ? [described[2]] : [] };
        found.push(current);
        previous = line;
        continue;
      }
      // The points alone on the line under a short name ("Summary" / "10 points"): the two are one criterion's line.
      if (points !== null && !title && previous?.kind === "text" && titleLike(previous.text) && !TOTAL_ROW.test(previous.text)) {
        if (current?.body.at(-1) === lineText(previous)) current.body.pop();
        current = { title: `${previous.text} (${points} points)`, body: [] };
        found.push(current);
        previous = line;
        continue;
      }
    }
    // A short line right above a level line ("Ideas", then "3: …") names the criterion that scale belongs to: what a
    // PDF gives for a heading and its list.
    const isLevel = (line.kind === "text" || line.kind === "item") && LEVEL_LINE.test(line.text);
    if (
      isLevel &&
      previous?.kind === "text" &&
      // (Not the end of a wrapped level above: "target population.")
      titleLike(previous.text) &&
      !LEVEL_LINE.test(previous.text) &&
      current?.title !== previous.text
    ) {
      const title = tidyTitle(previous.text);
      if (title && !organising(title) && !TOTAL_ROW.test(title)) {
        // The line was taken as the end of the criterion above; it is this one's title.
        if (current?.body.at(-1) === lineText(previous)) current.body.pop();
        current = { title: previous.text, body: [] };
        found.push(current);
      }
    }
    if (line.kind === "heading") current = null;
    else if (current && line.kind !== "blank") current.body.push(lineText(line));
    if (line.kind !== "blank") previous = line;
  }
  // Read as headings are: the points from the line, a level scale ("3: …" … "0: …") from the lines below it.
  return found.length >= 2 ? { kind: "pointline", items: found.map((f) => headingCandidate(f.title, f.body.join("\n"))) } : null;
}

const EXAM_MARKS = /[[(]\s*\d{1,3}\s*(?:marks?|points?|pts?)\s*[\])]\s*$/i;
const STATED_TOTAL = /\b(?:total|maximum)\b\s*(?:marks?|points?|score)?\s*(?:of|out of|is|:|=)?\s*\d/i;
// A score sheet's line of blanks to fill in ("Ideas ____ /6    Organization ____ /6    Language ____ /6"): where the
// marks are written, not a criterion.
/** A blank to write the item's score in at a line's end, "(1 pt each)   ___    ___ / 2": the item above's box. */
const FILL_IN = /_{2,}\s*\/\s*\d{1,3}\s*$/;
const SCORE_SHEET = /(?:_{2,}\s*\/\s*\d+[^_]*){2}/;
const NAME_POINTS_DESCRIPTION = /^(.{2,80}?\s*[([]\s*\d{1,3}(?:\.\d+)?\s*(?:points?|pts?|marks?)?\s*[)\]](?:\*\*|__)?)\s+[–—-]\s+(\S.*)$/i;

/**
 * A line of text that heads the list below it: "Check:" / "Flag:" style labels in prompts and plain-text rubrics, a text
 * file's headings in capitals ("REQUIREMENTS", "NICE TO HAVE"), and a job advert's section names on lines of their own
 * (a PDF's headings are plain lines).
 */
function sectionLabel(text: string): boolean {
  const t = text.trim();
  return (
    /^[A-Za-z][\w ()'’/-]{0,50}:$/.test(t) ||
    CAPITALS_LABEL.test(t) ||
    REQUIREMENT_SECTION.test(sectionName(t)) ||
    JOB_SECTION.test(t) ||
    REVIEW_NOTES.test(t)
  );
}

/**
 * A section's name from its heading or label line: without its colon, a "Part A –" before it or an aside after it
 * ("Optional (record if present, not required for approval):" is "Optional"); a section marked required or optional
 * is named by its mark ("Part A – Commercial terms (required)" is "required").
 */
function sectionName(text: string): string {
  const t = text
    .trim()
    .replace(/:$/, "")
    .replace(/^part\s+[A-Z0-9]{1,3}\s*[–—:-]\s*/i, "");
  const mark = /\(\s*(required|mandatory|optional|essential|desirable|recommended|if applicable)\s*\)$/i.exec(t);
  return mark ? mark[1] : t.replace(/\s*\([^)]*\)$/, "");
}
/** A heading of a text file written in capitals: "REQUIREMENTS", "NICE TO HAVE", "ESSENTIAL CRITERIA". */
// ("RUBRIC (100 points)": what the brackets add may be in lower case.)
const CAPITALS_LABEL = /^(?=.*\p{Lu}{3})[\p{Lu}][\p{Lu}\d &/'’()-]{2,40}(?:\s*\([^()]{1,40}\))?$/u;
/** "Preferred: …", "Nice to have: …", "Required: …" at the head of a list item: which kind of requirement it is. */
const ITEM_LABEL = /^(preferred|desirable|desired|nice[- ]to[- ]have|a plus|optional|required|essential|must[- ]have)\s*:\s+(?=\S)/i;
/**
 * A sentence about the list, not an item of it, on a plain line of a PDF: "These are not mandatory, but …", "The
 * following …", and the reviewer's instructions after it ("Escalate to the Head of Treasury if …", "Assess substance …").
 */
const LIST_ASIDE = /^(?:these|the following|this (?:section|list|part)|escalate|record|assess|refer|report)\b/i;
/** "Ideally, …" before a requirement: one a candidate may lack. */
const IDEALLY = /^ideally,?\s+/i;
const INSTRUCTION_ITEM = /\b(?:verbatim|quote|quotes|json|verdict|rationale|output|no text outside|overall score|location|cite the|flag)\b/i;

/** Top-level list items, each with the lines under it; lists under organising headings ("Instructions", "Scoring") are left out. */
function listSet(lines: Line[], skipInstructions: boolean): CandidateSet | null {
  const items: Candidate[] = [];
  const sectionOf = new Map<Candidate, string>();
  let heading = "";
  let blockIndent: number | null = null;
  let current: Candidate | null = null;
  let blanks = 0;
  // A job advert: its own sections ("Responsibilities", "About us") or two requirement sections ("Minimum" and
  // "Preferred qualifications").
  const labels = lines.flatMap((l) => (l.kind === "heading" ? [l.text] : l.kind === "text" && sectionLabel(l.text) ? [l.text] : []));
  const label = sectionName;
  const jobSections = labels.some((h) => JOB_SECTION.test(label(h)));
  const advertLike = jobSections || new Set(labels.filter((h) => REQUIREMENT_SECTION.test(label(h))).map((h) => label(h).toLowerCase())).size >= 2;
  // A checklist printed to PDF: a requirement section whose items are short names on lines of their own, each over the
  // sentences that describe it ("Scope of services" / "A description of the services …"). There only the names are
  // items, and the sentences below each (across blank lines) are its description.
  const headed = headedSections(lines, label);
  const scaled = scaledSections(lines, label);
  const levelled = levelSections(lines, label);
  for (let at = 0; at < lines.length; at++) {
    const given = lines[at];
    const previousText = at > 0 ? lineText(lines[at - 1]) : "";
    // In an advert, under a requirement section, each line is a requirement even without its bullet (a browser prints
    // bullets as drawings, so a PDF's list comes as plain lines); a line opening in lower case goes on the one above.
    // (Not a label of the next section, nor a sentence after the list: "… is an equal opportunity employer.")
    const bulletless: boolean =
      advertLike &&
      given.kind === "text" &&
      REQUIREMENT_SECTION.test(label(heading)) &&
      !sectionLabel(given.text) &&
      // (A line ending in a stop is a sentence after the list, unless it is numbered as an item: "[ ] 9. … percentage.")
      (!/[.:][*_]*$/.test(given.text) || /^\s*(?:\[\s?[xX✓✔]?\s?\]\s*)?(?:\d{1,2}[.)]|[A-Z]{1,2}\d{1,2}[.):]?)\s/.test(given.text)) &&
      !LIST_ASIDE.test(given.text) &&
      !(current && /^\p{Ll}/u.test(given.text)) &&
      // (A line after one that stops mid-sentence goes on with it, an item or an aside: "… if a" / "Part A item is …".)
      !DANGLING.test(previousText) &&
      (!headed.has(label(heading)) || titleLike(uncoded(given.text)));
    const line: Line = bulletless && given.kind === "text" ? { kind: "item", indent: 0, text: given.text } : given;
    if (line.kind === "heading") {
      heading = line.text;
      blockIndent = null;
      current = null;
      continue;
    }
    // "HIRE PERIOD AND ACCESS (REQUIRED)" over the lines that describe it: a clause named on a label line of its own,
    // marked required or optional (a "Part A – … (required)" label over a list is a section).
    const marked: RequirementMark | null = line.kind === "text" && sectionLabel(line.text) ? markedName(line.text) : null;
    if (marked && lines.slice(at + 1).find((l) => l.kind !== "blank")?.kind !== "item") {
      current = { title: tidyTitle(marked.rest), description: "", points: null, ...(marked.optional ? { optional: true } : {}) };
      items.push(current);
      sectionOf.set(current, marked.optional ? "optional" : "required");
      blockIndent = null;
      blanks = 0;
      continue;
    }
    if (line.kind === "text" && sectionLabel(line.text)) {
      heading = label(line.text);
      blockIndent = null;
      current = null;
      continue;
    }
    if (line.kind === "blank") {
      blanks++;
      continue;
    }
    // (A "Grading" or "Marking scheme" section of a brief lists what is marked: "- Correctness: 50 points".)
    // (So is one headed "How your story is scored" whose items each spell out their levels: the traits.)
    const skip =
      organising(heading) &&
      !/^(?:criteria|assessment criteria|rubric|check|checklist|what to check.*|grading|marking (?:scheme|guide))$/i.test(headingName(heading)) &&
      !scaled.has(label(heading)) &&
      !levelled.has(label(heading));
    if (line.kind === "item") {
      // (A scale's levels stand at one level whatever their indent: "  25-30 …" over "   8-14 …", right-aligned.)
      const levelOfScale = levelled.has(label(heading)) && LEVEL_LINE.test(line.text.trim());
      if (blockIndent === null || line.indent <= blockIndent || levelOfScale) {
        blockIndent = line.indent;
        current = null;
        if (skip || (skipInstructions && INSTRUCTION_ITEM.test(line.text))) continue;
        // "Preferred: fluency in Spanish" in a job's one list of requirements: a requirement a candidate may lack.
        // So is "… (preferred)" or "Ideally, …".
        // (The mark is read off the item's text here: a long item's title is only its first words.)
        const labelled = ITEM_LABEL.exec(line.text);
        const ideally = IDEALLY.exec(line.text);
        const mark = requirementMark(line.text);
        const text = labelled ? line.text.slice(labelled[0].length) : ideally ? line.text.slice(ideally[0].length) : (mark?.rest ?? line.text);
        current = itemCandidate(text);
        // ("B. Indicative content (not a checklist …)", "D. What your mark means": a mark scheme's notes, lettered as its parts are.)
        if (current && markersNotes(current.title)) current = null;
        if (current && ((labelled && OPTIONAL_SECTION.test(labelled[1])) || ideally || mark?.optional)) current.optional = true;
        // "36–40 points: need is documented …" is a band of a criterion's levels (read under its heading or point
        // line), not a criterion worth 40: its points do not make this list the rubric.
        // (In a section that is one scale, the band's top is that level's value.)
        if (current && bandLine(line.text) && !levelled.has(label(heading))) current.points = null;
        if (current && (LEVEL_LINE.test(line.text) || namedLevel(line.text))) current.level = true;
        if (current) {
          items.push(current);
          sectionOf.set(current, heading);
        }
      } else if (current) current.description += `\n- ${line.text}`;
      blanks = 0;
      continue;
    }
    // Continuation text belongs to the item above it until a blank line ends the list.
    if (current && (blanks === 0 || headed.has(label(heading)))) current.description += `\n${lineText(line)}`;
    else {
      current = null;
      blockIndent = null;
    }
    blanks = 0;
  }
  // A job advert's requirement lists ("Must have" and "Nice to have", "Essential" and "Desirable criteria", or
  // "Requirements" beside "Responsibilities") are its criteria, not its other lists; those a candidate may lack are
  // optional. (A lone "Requirements" list of an essay brief stays one list among the others.)
  // (Beside an advert's own sections, "Skills" and "Experience" list requirements too.)
  const requirementSection = (c: Candidate) => {
    const section = label(sectionOf.get(c) ?? "");
    return REQUIREMENT_SECTION.test(section) || (jobSections && ADVERT_REQUIREMENT_SECTION.test(section));
  };
  // (A bold "**Compensation:** …" paragraph after the last list is no requirement.)
  const required = items.filter((c) => requirementSection(c) && !organising(c.title));
  const requirementSections = new Set(required.map((c) => label(sectionOf.get(c) ?? "").toLowerCase()));
  const advert = requirementSections.size >= 2 || required.some((c) => c.optional) || jobSections;
  // (Points elsewhere in an advert are pay and benefits: "6% annual bonus".)
  if (required.length >= 2 && advert && !required.some((c) => c.points !== null && !c.level)) {
    const marked = required.map((c) => (OPTIONAL_SECTION.test(sectionOf.get(c) ?? "") ? { ...c, optional: true } : c));
    return { kind: "list", requirements: true, items: marked.map((c) => withScale(c)) };
  }
  // A brief's other lists ("What to submit") beside the section whose items carry points ("## Grading") are no criteria.
  const pointed = new Set(items.filter((c) => c.points !== null && !c.level).map((c) => sectionOf.get(c)));
  const kept = pointed.size > 0 && items.filter((c) => c.points !== null).length >= 2 ? items.filter((c) => pointed.has(sectionOf.get(c))) : items;
  // (Items under an "Optional" or "Nice to have" section below the list stay optional.)
  const flagged = kept.map((c) => (requirementSection(c) && OPTIONAL_SECTION.test(label(sectionOf.get(c) ?? "")) ? { ...c, optional: true } : c));
  // "- Ideas" over "  - 3: …" … "  - 0: …": the nested levels are the item's scale.
  return flagged.length >= 2 ? { kind: "list", items: flagged.map((c) => withScale(c)) } : null;
}

/**
 * Paragraphs that each open with a short name closed by a stop, the requirement running on after it ("Retention.
 * Retention must not exceed 5%. …"): a checklist's bold run-in items as a PDF's text gives them, plain lines. Three or
 * more, each starting a paragraph (after a line that ends a sentence), make a list; a short line of its own
 * ("Decision") ends the last one.
 */
/** Words a paragraph uses to ask for something. */
const ASKING = /\b(?:must|shall|has to|have to|needs? to|we need|is required|are required|should|(?:it is )?helpful if|would like)\b/i;

/**
 * A standard written in paragraphs: under a heading that names requirements ("The requirements"), or one marked
 * required or optional over two or more of them ("Further points we would like to see (optional)"), each paragraph
 * that asks for something is one, named by its first sentence ("The agreement must state the rent, the day on which
 * it falls due …"), optional under an optional heading. Three required or more, else null; `headings` are the headings
 * read so. (A Word paragraph is a line; a text file's lines are joined up to a blank line. A heading over one paragraph,
 * "3. Board Composition (Required)", names its item: no such section.)
 */
function paragraphSet(lines: Line[]): (CandidateSet & { headings: string[] }) | null {
  const sections: { heading: string; named: boolean; optional: boolean; paragraphs: string[] }[] = [];
  let block: string[] = [];
  const close = () => {
    const text = block.join(" ").replace(/\s+/g, " ").trim();
    block = [];
    if (text && ASKING.test(text)) sections.at(-1)?.paragraphs.push(text);
  };
  for (const line of lines) {
    const text = line.kind === "heading" || line.kind === "text" ? line.text.trim() : "";
    const bare = text.replace(/\s*\([^)]*\)$/, "");
    if (line.kind === "heading" || (line.kind === "text" && titleLike(bare))) {
      close();
      const named = REQUIREMENT_SECTION.test(bare.replace(/^the\s+/i, ""));
      sections.push({ heading: text, named, optional: OPTIONAL_SECTION.test(sectionName(text)), paragraphs: [] });
    } else if (line.kind === "text") {
      // (A Word paragraph, long, is one line: each is its own.)
      if (text.length > 150) close();
      block.push(text);
      if (text.length > 150) close();
    } else close();
  }
  close();
  const read = sections.filter((x) => x.named || (x.paragraphs.length >= 2 && REQUIREMENT_SECTION.test(sectionName(x.heading))));
  const items: Candidate[] = read.flatMap((x) =>
    x.paragraphs.map((text) => {
      const words = (/^.+?[.!?](?=\s|$)/.exec(text)?.[0] ?? text).replace(/[.!?]$/, "").split(/\s+/);
      return {
        title: tidyTitle(words.length > 12 ? `${words.slice(0, 12).join(" ")}…` : words.join(" ")),
        description: text,
        points: null,
        ...(x.optional ? { optional: true } : {}),
      };
    }),
  );
  return items.filter((c) => !c.optional).length >= 3 ? { kind: "list", items, headings: read.map((x) => x.heading) } : null;
}

/** A lettered or numbered section's heading: "A. The money", "Part B – Repayment", "Section 2: Security". */
const SECTION_LETTER = /^(?:(?:part|section)\s+)?(?:[A-H]|\d{1,2})[.:)–—-]?\s+\p{Lu}[^.!?]{0,50}$/u;

function runInSet(lines: Line[]): CandidateSet | null {
  // Runs of run-in paragraphs one after another; a heading, a short line of its own or a paragraph that is neither an
  // item nor the rest of one ends a run. The longest run is the list (a letterhead's "Northern Writers' Guild, …" is
  // no item).
  const runs: Candidate[][] = [[]];
  let current: Candidate | null = null;
  let previous = "";
  // ("Part A: Essential" then "Part B: Desirable" between them: one run, the second part's items optional.)
  let optional = false;
  const end = () => {
    current = null;
    if (runs[runs.length - 1].length > 0) runs.push([]);
  };
  for (const line of lines) {
    if (line.kind === "blank") continue;
    // (A lettered section's heading may come as a list item: "A. The money" is "The money", numbered.)
    const sectionLike =
      line.kind === "heading" || line.kind === "text" || (line.kind === "item" && titleLike(line.text.replace(/\s*\([^)]*\)$/, "")));
    const section = sectionLike ? sectionName(line.text) : "";
    if (sectionLike && REQUIREMENT_SECTION.test(section)) {
      optional = OPTIONAL_SECTION.test(section);
      current = null;
      previous = "";
      continue;
    }
    // A lettered section's heading between items ("A. The money", "B. Getting the money back"), as a list item or a line
    // of text, groups them; the run goes on.
    if (current && ((line.kind === "item" && sectionLike) || (line.kind === "text" && SECTION_LETTER.test(line.text.trim())))) {
      current = null;
      previous = line.text.trim();
      continue;
    }
    if (line.kind !== "text") {
      end();
      previous = "";
      continue;
    }
    const named = previous === "" || /[.:!?)]$/.test(previous) || titleLike(previous) ? runInName(line.text) : null;
    if (named && named.title.split(/\s+/).length <= 7 && !organising(named.title)) {
      current = { title: tidyTitle(named.title), description: named.description, points: null, ...(optional ? { optional } : {}) };
      runs[runs.length - 1].push(current);
    } else if (titleLike(line.text)) end();
    else if (current && !/[.!?]$/.test(previous)) current.description += ` ${line.text}`;
    else end();
    previous = line.text.trim();
  }
  const items = runs.reduce((a, b) => (b.length > a.length ? b : a));
  return items.length >= 3 ? { kind: "list", items } : null;
}

/** An item's name without its code: "A4. Repayment limited to misuse or underspend" is a name of six words. */
const uncoded = (text: string) => text.replace(/^\s*[A-Z]{1,2}\d{1,2}[.):]?\s+/, "");

/** The requirement sections of plain lines that are names over sentences (see listSet), by label. */
function headedSections(lines: Line[], label: (heading: string) => string): Set<string> {
  const counts = new Map<string, { names: number; sentences: number; runIn: number }>();
  let section = "";
  for (const l of lines) {
    if (l.kind === "heading" || (l.kind === "text" && sectionLabel(l.text))) section = label(l.text);
    else if (l.kind === "text" && REQUIREMENT_SECTION.test(section)) {
      const c = counts.get(section) ?? { names: 0, sentences: 0, runIn: 0 };
      // (Names that run into their description on one line, "Agreed reference. The form of …", make no headed section.)
      const runIn = runInName(l.text);
      if (runIn && runIn.title.split(/\s+/).length <= 6) c.runIn++;
      else if (titleLike(uncoded(l.text))) c.names++;
      else if (/\.$/.test(l.text)) c.sentences++;
      counts.set(section, c);
    }
  }
  return new Set([...counts].filter(([, c]) => c.names >= 2 && c.sentences >= c.names && c.runIn === 0).map(([section]) => section));
}
/** Sections in which two items or more each spell out a level scale below them ("1. STORY IDEAS" / "4 - …" … "0 - …"). */
function scaledSections(lines: Line[], label: (heading: string) => string): Set<string> {
  const scaled = new Map<string, number>();
  let section = "";
  let levels = 0;
  const close = () => {
    if (levels >= 2) scaled.set(section, (scaled.get(section) ?? 0) + 1);
    levels = 0;
  };
  for (const l of lines) {
    if (l.kind === "heading" || (l.kind === "text" && sectionLabel(l.text))) {
      close();
      section = label(l.text);
    } else if (l.kind === "item" && l.indent === 0) close();
    else if (l.kind !== "blank" && LEVEL_LINE.test(lineText(l).trim())) levels++;
  }
  close();
  return new Set([...scaled].filter(([, n]) => n >= 2).map(([section]) => section));
}
/**
 * Sections whose list is one scale of three levels or more and nothing else ("HOW IT IS MARKED" over "25-30 points:
 * Excellent …" … "0 points: Nothing worthy of credit"): a holistic rubric's levels, not notes to leave out.
 */
function levelSections(lines: Line[], label: (heading: string) => string): Set<string> {
  const counts = new Map<string, { levels: number; others: number }>();
  let section = "";
  for (const l of lines) {
    if (l.kind === "heading" || (l.kind === "text" && sectionLabel(l.text))) section = label(l.text);
    else if (l.kind === "item") {
      const c = counts.get(section) ?? { levels: 0, others: 0 };
      if (LEVEL_LINE.test(l.text.trim())) c.levels++;
      else c.others++;
      counts.set(section, c);
    }
  }
  return new Set([...counts].filter(([, c]) => c.levels >= 3 && c.others === 0).map(([s]) => s));
}
/** A line that stops on a word a sentence cannot end with: the next line goes on with it ("… since passing your" / "C+E test"). */
const DANGLING = /\b(?:your|the|a|an|of|and|or|to|in|on|with|for|from|by|at|as|such as|including)$/i;

function itemCandidate(text: string): Candidate | null {
  // ("[ ] 1. Equipment schedule. Every machine …", "[ ] 8. [OPTIONAL] Loan equipment. …": a box to tick and a number
  // before the name, and a mark; the mark is read below.)
  const optionalMark = /^\s*(?:\[\s?[xX✓✔]?\s?\]\s*)?(?:\d{1,2}[.)]\s+)?\[(?:OPTIONAL|DESIRABLE)\]\s*/i.test(text);
  const { points, rest } = parsePoints(text.replace(/^\s*\[\s?[xX✓✔]?\s?\]\s*(?:\d{1,2}[.)]\s+)?(?:\[(?:OPTIONAL|DESIRABLE)\]\s*)?/i, ""));
  const bold = /^(?:\*\*|__)(.+?)(?:\*\*|__)\s*[:.\-–—]?\s*(.*)$/.exec(rest);
  let title: string;
  let description: string;
  if (bold) {
    // (A bold name may close with its stop: "**Deposit – amount and protection scheme.** The amount …".)
    title = bold[1].replace(/(?<=\p{L}{2})\.$/u, "");
    description = bold[2];
  } else {
    const named = namedFirst(rest) ?? runInName(rest);
    if (named) {
      title = named.title;
      description = named.description;
    } else if (rest.length <= 70) {
      title = rest;
      description = "";
    } else {
      // A long requirement's first words name it, up to an aside it opens ("… Services (or an equivalent …") and
      // without the joining words it stops on ("… at Electrician or").
      const first = rest.split(/\s+/).slice(0, 8).join(" ");
      const open = first.lastIndexOf(" (");
      const name = (open > 0 && !first.slice(open).includes(")") ? first.slice(0, open) : first).replace(
        /(?:\s+(?:your|the|a|an|of|and|or|to|in|on|with|for|from|by|at|as|since))+$/i,
        "",
      );
      title = `${name.replace(/[,;:]+$/, "")}…`;
      description = rest;
    }
  }
  title = tidyTitle(title);
  if (!title) return null;
  // "**Performance reporting** (optional) — screenshots …": the name's mark opens its description.
  const mark = LEADING_MARK.exec(description);
  const optional = mark ? OPTIONAL_SECTION.test(mark[1]) : false;
  if (mark) description = description.slice(mark[0].length);
  return { title, description: description.trim(), points, ...(optional || optionalMark ? { optional: true } : {}) };
}

/** A requirement mark opening an item's description, after its name: "(optional) — …", "(required): …". */
const LEADING_MARK = /^\s*[([]\s*(optional|preferred|desirable|recommended|mandatory|required|essential)\s*[)\]]\s*[:.\-–—]?\s*/i;

// ---------------------------------------------------------------------------
// Choosing

const KIND_PRIORITY: Record<CandidateSet["kind"], number> = { table: 4, heading: 3, pointline: 2, list: 1 };

function rank(set: CandidateSet): [number, number, number, number] {
  // (Levels listed under criteria headings, "- Excellent (4): …", are no criteria with points: the headings are.)
  const points = set.items.filter((c) => c.points !== null && !c.level).length;
  // (A job advert's requirements are its criteria, not the headings they stand under.)
  return [points, set.requirements ? 1 : 0, KIND_PRIORITY[set.kind], set.items.length];
}

function better(a: CandidateSet, b: CandidateSet): boolean {
  const [ra, rb] = [rank(a), rank(b)];
  for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return ra[i] > rb[i];
  return false;
}

/** Levels of one holistic scale ("6 – ...", "Excellent: ...") become one criterion scored out of the top level. */
function collapseScale(set: CandidateSet): Candidate[] {
  const levelish = set.items.filter((c) => isLevelTitle(c.title) || c.level).length;
  if (set.items.length < 2 || levelish * 5 < set.items.length * 3) return set.items;
  const valued = set.items.map((c) => {
    // A level's value: its number, the top of its band ("A (90–100)"), or just under its bound ("F (below 60)").
    const band = /(\d+(?:\.\d+)?)\s*[-–]\s*(\d+(?:\.\d+)?)/.exec(c.title);
    const below = /\b(?:below|under|less than)\s+(\d+)/i.exec(c.title);
    const n = band ? Number(band[2]) : below ? Number(below[1]) - 1 : Number(/\d+(?:\.\d+)?/.exec(c.title)?.[0] ?? Number.NaN);
    return { c, value: Number.isFinite(n) ? n : (c.points ?? Number.NaN) };
  });
  const numbered = valued.filter((v) => Number.isFinite(v.value));
  const top = numbered.length ? numbered.reduce((a, b) => (b.value > a.value ? b : a)) : valued[0];
  const max = numbered.length ? Math.max(...numbered.map((v) => v.value)) : DEFAULT_MAX_SCORE;
  const distinct = new Set(numbered.map((v) => v.value)).size === numbered.length;
  const levels =
    numbered.length >= 2 && distinct
      ? numbered
          .map((v) => ({ value: v.value, descriptor: [v.c.title, v.c.description].filter(Boolean).join(": ") }))
          .sort((a, b) => a.value - b.value)
      : undefined;
  return [
    {
      title: set.scaleTitle && !META_HEADING.test(set.scaleTitle) ? tidyTitle(set.scaleTitle) : HOLISTIC_TITLE,
      description: [top.c.title, top.c.description].filter(Boolean).join(": "),
      points: max > 0 ? max : null,
      levels,
    },
  ];
}

/** Criteria of one text (a reference document's sections, or the prompt as one section); empty when none are found. */
function parseCriteria(sections: Section[], opts: { instructions?: boolean } = {}): Candidate[] {
  const fields = dataFields(sections);
  if (fields) {
    const exported = exportedCriteria(fields);
    if (exported) return exported;
    // Nested data whose records name no criteria is no rubric: its lines ("rows[0].header.value: Thesis") are not
    // criteria to read one by one. (Flat "key: value" lines may be: "Thesis: 10 points".)
    if (fields.filter((m) => /[.[]/.test(m[1])).length * 2 >= fields.length) return [];
  }
  const lines = toLines(sections);
  const sets: CandidateSet[] = [...tableSets(lines)];
  // A scale stated once for every criterion ("Each criterion is scored:" over its levels) scores the criteria that state
  // none, so a table of names is a rubric's criteria before the list of that scale is a holistic one.
  const whole = sections.map((x) => x.text).join("\n");
  const each = scaleListed(whole) ?? starsListed(whole) ?? scaleStated(whole);
  const heading = headingSet(lines, each !== null);
  if (heading) sets.push(heading);
  const pointLines = pointLineSet(lines);
  if (pointLines) sets.push(pointLines);
  const listed = listSet(lines, opts.instructions ?? false);
  // Items each marked required or optional ("Rooms, building and academic years [Required]") are the checklist's, not
  // the bullets of its scope or escalation notes beside them; the mark says which are optional.
  const marked = listed?.items.filter((c) => ITEM_MARK.test(c.title)) ?? [];
  const list: CandidateSet | null =
    listed && marked.length >= 3
      ? {
          ...listed,
          requirements: true,
          items: marked.map((c) => {
            const optional = /optional|desirable|recommended/i.test(ITEM_MARK.exec(c.title)?.[1] ?? "");
            return { ...c, title: c.title.replace(ITEM_MARK, "").trim(), ...(optional ? { optional } : {}) };
          }),
        }
      : listed;
  // A mark scheme's marking points ("- cell recognition (1)" under "Q1 (a) … [2 marks]"): items of one mark each that
  // add up to the marks of the lines they stand under are what earns those marks, not criteria of their own.
  const sum = (set: CandidateSet) => set.items.reduce((n, c) => n + (c.points ?? 0), 0);
  const markingPoints = list !== null && pointLines !== null && list.items.every((c) => c.points === 1) && sum(list) === sum(pointLines);
  if (list && !markingPoints) sets.push(list);
  // Tables are judged together: a rubric split over two tables is one rubric. (A syllabus's grade breakdown is not part
  // of the essay rubric beside it, in a table or a list.)
  const rubricElsewhere = (t: CandidateSet) => sets.some((o) => o !== t && !o.breakdown && o.items.some((c) => c.points !== null));
  const kept = sets.filter((s) => !s.breakdown || !rubricElsewhere(s));
  // (A table that scores nothing beside one that does is the brief's material, a study's "Aim | …", "Participants | …",
  // not more of the rubric.)
  const scoring = (t: CandidateSet) => t.items.some((c) => c.points !== null || (c.levels?.length ?? 0) > 0);
  const tables = kept.filter((s) => s.kind === "table").filter((t, _, all) => scoring(t) || !all.some(scoring));
  const others = kept.filter((s) => s.kind !== "table");
  const candidates = tables.length > 1 ? [{ kind: "table" as const, items: tables.flatMap((t) => t.items) }, ...others] : kept;
  if (each) {
    const top = each[each.length - 1].value;
    for (const set of candidates)
      set.items = set.items.map((c) => (c.points === null && !c.levels && !isLevelTitle(c.title) ? { ...c, points: top, levels: each } : c));
  }
  let best: CandidateSet | null = null;
  for (const s of candidates) if (s.items.length > 0 && (!best || better(s, best))) best = s;
  // A PDF's or a Word document's run-in items, each a paragraph of plain text: the criteria when nothing else is found,
  // or when they stand under one of the headings found ("Minimum terms" over "Rights granted. The agreement states …").
  const runIn = runInSet(lines);
  const grouped = (h: Candidate) => (runIn?.items.filter((r) => h.description.includes(r.title)).length ?? 0) >= 3;
  if (runIn && (!best || (best.kind === "heading" && best.items.some(grouped)))) best = runIn;
  // Paragraphs under a heading that names them requirements ("The requirements", then "… (optional)"), each a
  // requirement named by its first sentence: over the headings of a standard's parts ("Why this standard exists").
  const paragraphs = paragraphSet(lines);
  const over = (h: Candidate) => paragraphs?.headings.some((x) => tidyTitle(x) === h.title || sectionName(x) === h.title) ?? false;
  if (paragraphs && (!best || (best.kind === "heading" && best.items.some(over)))) best = { kind: "list", items: paragraphs.items };
  if (!best) {
    const text = sections.map((s) => s.text).join("\n");
    const named = namedInSentence(text);
    return named.length > 0 ? named : requirementsInSentences(text);
  }
  return collapseScale(best);
}

// "Please score each candidate 1–5 on: communication, technical depth, ownership, collaboration."
const SCORE_ON = /\b(?:score|rate|mark|grade|assess)\b[^.\n]{0,40}?\b([01])\s*(?:[-–]|to)\s*(\d{1,2})\b[^.\n]{0,20}?\bon\s*:?\s+([^.\n]{3,200})/i;

/** Criteria named in one sentence with the scale they are scored on (an e-mail or a note, no list or table). */
function namedInSentence(text: string): Candidate[] {
  const m = SCORE_ON.exec(text);
  if (!m) return [];
  const [low, top] = [Number(m[1]), Number(m[2])];
  const names = m[3]
    .split(/\s*,\s*(?:and\s+)?|\s+and\s+/)
    .map((n) => n.trim())
    .filter(Boolean);
  if (top <= low || top > 10 || names.length < 2 || names.length > 10 || names.some((n) => n.split(/\s+/).length > 5)) return [];
  const levels = Array.from({ length: top - low + 1 }, (_, i) => ({ value: low + i, descriptor: "" }));
  return names.map((title) => ({ title, description: "", points: top, levels }));
}

/** A sentence that asks a candidate for something: "You will need …", "you must hold …", "… is essential". */
const ASKS =
  /\byou(?:['’]ll| will| must| should)?(?: also)? need\b|\byou(?:['’]ll| will| must| should)(?: also)? (?:have|hold|be able to)\b|\byou must\b|\bis essential\b|\bwe(?:['’]re| are) looking for (?:someone|a person|people|candidates?) who\b|^your [\w\s-]{3,40}? (?:must|needs? to) be\b|\bmust be your\b/i;
/** One that asks for something a candidate may lack: "It would be a bonus if you …", "Ideally you …". */
const WOULD_LIKE =
  /\b(?:it would be (?:a bonus|a plus|great|an advantage|lovely|nice|helpful|useful|good)|would be (?:a|an) (?:real |great |big )?(?:advantage|bonus|plus)|we would (?:also )?welcome|ideally|is desirable|nice to have|not essential)\b/i;
/** Where one sentence asks for several things: "…, and you must have …", "… and have a sound …", "…, if you can …". */
const ASK_SPLIT =
  /,?\s+and\s+(?=(?:you\s+)?(?:must|will|should|have|hold)\b)|,\s+and\s+(?=at least\b)|,\s*(?:or\s+)?(?=if you\b)|;\s+|,\s+so\s+(?=you\b|\p{Lu})|\s+(?:[-–—]\s+)?and of\s+/iu;
/** The words that ask, before what is asked for. */
const ASK_LEAD =
  /^(?:(?:it would be (?:a bonus|a plus|great|an advantage) )?(?:if )?you(?:['’]ll| will| must| should| can)?(?: also)? (?:need(?: to (?:have|hold|be))?|have|hold|be able to|can)|(?:must |also )*(?:have|hold)|ideally,? you (?:will )?(?:have|hold)|we would (?:also )?welcome)\s+/i;

/** A lead-in before the words that ask, within a part: "To join us you will need", "…, if you have", "someone who has". */
const LEAD_IN =
  /^.{0,60}?\b(?:(?:if )?you(?:['’]ve|['’]ll| will| must| should)?(?: also| already)? (?:need(?: to be)?|have|hold|used|speak)|(?:someone|a person|people|candidates?) who (?:has|have|is|are))\s+(?:already\s+)?/i;

/**
 * A job advert written as prose ("You will need at least two years' experience as a chef de partie, and you must have
 * run a section on your own …. It would be a bonus if you also hold …"): each thing a sentence asks for is a
 * requirement, optional where the sentence says it is wanted rather than needed. Three or more, else none.
 */
function requirementsInSentences(text: string): Candidate[] {
  const out: Candidate[] = [];
  // (What the job offers, "WHAT WE OFFER … You will have a mentor", asks nothing of a candidate.)
  let offered = false;
  for (const paragraph of text.split(/\n\s*\n/)) {
    const lone = paragraph.replace(/\s+/g, " ").trim();
    if (titleLike(lone) || (lone !== "" && !/\p{Ll}/u.test(lone))) offered = JOB_SECTION.test(lone.replace(/:$/, "")) && !OPTIONAL_SECTION.test(lone);
    if (offered) continue;
    for (const sentence of paragraph.replace(/\s+/g, " ").split(/(?<=[.!?])\s+(?=\p{Lu})/u)) {
      // (A heading, "NICE TO HAVE", says what follows; it asks for nothing itself.)
      if (titleLike(sentence.trim()) || !/\p{Ll}/u.test(sentence)) continue;
      const optional = WOULD_LIKE.test(sentence);
      if (!optional && !ASKS.test(sentence)) continue;
      // (An aside in brackets, "(if you have only used other tools, we will train you)", asks nothing.)
      const parts = sentence.replace(/\s*\([^()]*\bif you\b[^()]*\)/gi, "").split(ASK_SPLIT);
      for (const [i, part] of parts.entries()) {
        // ("Around half of our calls come from Germany, | so you need to be fluent in German": the reason before the
        // words that ask is no requirement.)
        if (i === 0 && parts.length > 1 && !ASKS.test(part) && !WOULD_LIKE.test(part) && !LEAD_IN.test(part.trim()) && !ASK_LEAD.test(part.trim()))
          continue;
        // ("It would be lovely, although it is not essential, | if you have …": the part that only says it is wanted.)
        // ("German at B2 or above would be a real advantage" names what is wanted: it stays.)
        const rest = part.replace(new RegExp(WOULD_LIKE.source, "gi"), "").match(/\p{L}+/gu)?.length ?? 0;
        if (parts.length > 1 && WOULD_LIKE.test(part) && !/\b(?:you|who)\b/i.test(part) && rest < 4) continue;
        // ("To join us you will need …", "It would be lovely, although it is not essential, if you have …": the words
        // that ask may come after a lead-in of their own.)
        const asked = part
          .trim()
          .replace(ASK_LEAD, "")
          .replace(LEAD_IN, "")
          .replace(/[.!?]+$/, "");
        // "A professional cookery qualification is essential: an NVQ or …": the name is before the colon.
        // ("English must be your first language": English as it; "Your French needs to be at level C1": French at it.)
        const name = asked
          .replace(/\s+must be your\s+/i, " as ")
          .replace(/\s+needs? to be\s+/i, " ")
          .replace(/\s+(?:is essential|must be|would be (?:a|an)\b)\b.*$/i, "")
          .replace(/^your\s+/i, "")
          .split(":")[0]
          .trim();
        if (name.split(/\s+/).length < 2 || /^(?:none|we|our|the role|this)\b/i.test(name)) continue;
        const words = name.split(/\s+/);
        out.push({
          title: tidyTitle(words.length > 12 ? `${words.slice(0, 12).join(" ")}…` : name),
          description: asked,
          points: null,
          ...(optional ? { optional } : {}),
        });
      }
    }
  }
  return out.length >= 3 ? out : [];
}

/**
 * A table saved as plain text by Word: each cell on a line of its own, a blank line after each row. Blocks of as many
 * lines, three rows or more, under a first block that names levels ("Criteria / Excellent (4) / Good (3) / …"), are
 * read as the table's rows.
 */
function cellBlocksAsRows(text: string): string {
  if (!text.includes("\n\n")) return text;
  const blocks = text.split(/\n[ \t]*\n/);
  const size = (b: string) => b.split("\n").length;
  // (Short labels, each a level's name: "4 - Entries are dated" under "1. Organization" is a level of a list.)
  const label = (l: string) => l.trim().split(/\s+/).length <= 5;
  const header = (b: string) => {
    const [first, ...rest] = b.split("\n");
    return label(first) && rest.filter((l) => isLevelTitle(l.trim()) && label(l)).length >= Math.max(2, rest.length - 1);
  };
  const out: string[] = [];
  for (let i = 0; i < blocks.length; ) {
    const n = size(blocks[i]);
    let j = i + 1;
    while (j < blocks.length && size(blocks[j]) === n) j++;
    const cells = (b: string) => b.split("\n").map((l) => l.trim());
    if (n >= 3 && n <= 8 && j - i >= 3 && header(blocks[i]) && blocks.slice(i, j).every((b) => cells(b).every((c) => c !== "" && !c.includes("|")))) {
      out.push(
        blocks
          .slice(i, j)
          .map((b) => cells(b).join(" | "))
          .join("\n"),
      );
    } else out.push(...blocks.slice(i, j));
    i = j;
  }
  return out.join("\n\n");
}

/**
 * HTML tables written into a text (a wiki's or a note app's Markdown export keeps them as HTML) as " | " rows, a row a
 * line: the rubric reader reads them as it reads Markdown's own tables. Only for reading criteria; the text is kept.
 */
function htmlTablesAsRows(text: string): string {
  const cellText = (html: string) =>
    html
      .replace(/<br\s*\/?>/gi, " ")
      .replace(/<[^>]*>/g, "")
      .replace(/&nbsp;/g, " ")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, "&")
      .replace(/\s+/g, " ")
      .trim();
  return text.replace(/<table\b[^>]*>([\s\S]*?)<\/table>/gi, (_, body: string) =>
    [...body.matchAll(/<tr\b[^>]*>([\s\S]*?)<\/tr>/gi)]
      .map((tr) => [...tr[1].matchAll(/<t[hd]\b[^>]*>([\s\S]*?)<\/t[hd]>/gi)].map((td) => cellText(td[1])).join(" | "))
      .join("\n"),
  );
}

// ---------------------------------------------------------------------------

const GENERIC: Candidate[] = [
  {
    title: "Relevance and coverage",
    description: "Addresses the task set by the prompt and covers what the reference documents ask for.",
    points: null,
  },
  {
    title: "Evidence and support",
    description: "Supports its points with specific evidence: examples, data, facts, quotations or sources.",
    points: null,
  },
  {
    title: "Clarity and organisation",
    description: "Clear, well organised writing: logical structure, paragraphs, transitions, readable sentences.",
    points: null,
  },
];

/**
 * The criteria to score: the reference documents' rubric; else the prompt's own list of criteria
 * (instructions about quoting and output left out); else three generic ones.
 */
export function findCriteria(references: { sections: Section[] }[], prompt: string | null): { criteria: RubricCriterion[]; source: CriteriaSource } {
  const perReference = references.map((r) => parseCriteria(r.sections));
  // A reference that scores (points or levels) is the rubric. Beside it, one whose sections carry neither is material
  // to read, not criteria: the article a reading response is about, a job description beside a scoring sheet.
  const scores = (found: Candidate[]) => found.some((c) => c.points !== null || (c.levels?.length ?? 0) > 0);
  let found: Candidate[] = (perReference.some(scores) ? perReference.filter(scores) : perReference).flat();
  let source: CriteriaSource = "references";
  if (found.length === 0 && prompt) {
    found = parseCriteria([{ location: {}, text: prompt }], { instructions: true });
    source = "prompt";
  }
  if (found.length === 0) {
    found = GENERIC;
    source = "generic";
  }
  // Criteria without points of their own are scored on a scale the rubric states once for all of them ("Scoring key:
  // 4 = Excellent, 3 = Good …", "a scale of 1 (never) to 5 (always)").
  const texts = source === "generic" ? [] : source === "prompt" ? [prompt ?? ""] : references.flatMap((r) => r.sections.map((x) => x.text));
  const key = statedScale(texts);
  // (Criteria whose points are only their weights, "Criterion | Weight", are scored on it too, and keep their weights.)
  const unscaled = (c: Candidate) => (c.points === null || c.points === c.weight) && !c.levels;
  if (key && found.every(unscaled)) found = found.map((c) => ({ ...c, points: key[key.length - 1].value, levels: key }));
  // Anchors for some levels of the stated scale ("Rate each competency from 1 to 5. Anchors are given for 1, 3 and 5"):
  // the criterion is scored on the whole scale, its anchors' descriptors kept.
  // (A rating scale, seven points at most: "scored from 0 to 10" beside bands "4-6-8-10" names points, not anchors.)
  if (key && key.length <= 7) {
    const values = new Set(key.map((k) => k.value));
    found = found.map((c) =>
      c.levels && c.levels.length < key.length && c.points === key[key.length - 1].value && c.levels.every((l) => values.has(l.value))
        ? { ...c, levels: key.map((k) => c.levels?.find((l) => l.value === k.value) ?? k) }
        : c,
    );
  }
  // "Each item is worth 1 point": the points of every criterion that states none.
  const each = EACH_WORTH.exec(texts.join("\n"));
  if (each) found = found.map((c) => (c.points === null && !c.levels ? { ...c, points: Number(each[1]) } : c));
  // A total out of as many as there are criteria, none of which states points ("Teacher ticks: ____ / 10" under ten
  // boxes to tick): a point each.
  const outOf = TOTAL_OUT_OF.exec(texts.join("\n"));
  if (outOf && Number(outOf[1]) === found.length && found.length >= 3 && found.every((c) => c.points === null && !c.levels))
    found = found.map((c) => ({ ...c, points: 1, levels: TICKED }));
  return { criteria: finalize(found), source };
}

const EACH_WORTH =
  /\b(?:each|every)\s+(?:item|criterion|requirement|question|element|indicator|line|box|tick|check(?:list item)?)\s+(?:is\s+)?(?:worth|scores?|carries|earns)\s+(\d{1,3})(?:\s*(?:points?|pts?|marks?)\b|(?=\s*[.,;]?\s*(?:$|\p{Lu})))/imu;
/** A box ticked or not: nothing between. */
const TICKED = [
  { value: 0, descriptor: "Not yet" },
  { value: 1, descriptor: "Ticked" },
];
/** "Total ticks: / 10", "Teacher ticks: ____ / 10", "Score: ___ out of 12". */
const TOTAL_OUT_OF = /\b(?:total|ticks?|score|marks?)\b[^\n/]{0,24}?[_\s]*(?:\/|out of)\s*(\d{1,3})\b/i;
/**
 * A scale stated once for every criterion: "4 = Excellent, 3 = Good, 2 = Fair, 1 = Poor", "a scale of 1 (never) to 5
 * (always)", "Rating scale: 1 (Unsatisfactory) to 5 (Outstanding)".
 */
function statedScale(texts: string[]): Level[] | null {
  for (const text of texts) {
    const listed = scaleListed(text);
    if (listed) return listed;
    // (A key a PDF's line wrapped between a value and its "=": "… 2 = Partially meets, 1" over "= Does not meet.")
    for (const line of text.replace(/(\d)[ \t]*\n[ \t]*=/g, "$1 =").split("\n")) {
      const keyed = [...line.matchAll(/(?<![\d.])(\d{1,2})\s*=\s*(\p{L}[\p{L} '-]{0,30}?)\s*(?=[,;.)]|\s+\d{1,2}\s*=|$)/gu)].map((m) => ({
        value: Number(m[1]),
        descriptor: m[2].trim(),
      }));
      const values = keyed.map((k) => k.value).sort((a, b) => a - b);
      if (keyed.length >= 3 && new Set(values).size === values.length && values.every((v, i) => i === 0 || v === values[i - 1] + 1))
        return keyed.sort((a, b) => a.value - b.value);
      const range =
        /\b(?:scale|rate|rated|rating|score|scored)\b[^.\n]{0,40}?(?:\b(?:of|from)\s+|:\s*)(\d{1,2})\s*(?:\(([^)]{1,30})\))? to (\d{1,2})\s*(?:\(([^)]{1,30})\))?/i.exec(
          line,
        );
      if (range && Number(range[3]) > Number(range[1]) && Number(range[3]) <= 10) {
        const [low, high] = [Number(range[1]), Number(range[3])];
        return Array.from({ length: high - low + 1 }, (_, i) => ({
          value: low + i,
          descriptor: low + i === low ? (range[2] ?? "") : low + i === high ? (range[4] ?? "") : "",
        }));
      }
    }
  }
  return null;
}

/** "Each criterion is scored:" (or "All traits are rated as follows:") at the end of a line, its levels listed under it. */
const EACH_SCORED =
  /\b(?:each|every|all)\s+(?:of\s+the\s+)?(?:criteri(?:on|a)|traits?|items?|rows?|categor(?:y|ies)|dimensions?|elements?|standards?|areas?)\b[^\n.]{0,40}?\b(?:scored|rated|marked|graded|assessed)\b[^\n.]{0,40}?:?\s*$/i;
const LISTED_LEVEL = /^(\d{1,2})\s*(?:points?|pts?|marks?)?\s*[:=–—-]\s*(\S.*)$/i;

/** The levels listed under "Each criterion is scored:" ("- **3**: Advanced", "- **2**: Meets the standard" …), or null. */
function scaleListed(text: string): Level[] | null {
  const lines = text.split("\n");
  const at = lines.findIndex((l) => EACH_SCORED.test(l.trim()));
  if (at < 0) return null;
  const levels: Level[] = [];
  for (const raw of lines.slice(at + 1)) {
    const line = raw
      .replace(/\*\*|__/g, "")
      .replace(/^\s*[-*•+]\s+/, "")
      .trim();
    if (!line && levels.length === 0) continue;
    const m = LISTED_LEVEL.exec(line);
    if (!m) break;
    levels.push({ value: Number(m[1]), descriptor: m[2].trim() });
  }
  const values = levels.map((l) => l.value).sort((a, b) => a - b);
  const steps = values.every((v, i) => i === 0 || v === values[i - 1] + 1);
  return levels.length >= 2 && steps ? levels.sort((a, b) => a.value - b.value) : null;
}

// "Each of the four criteria is marked on a level from 0 to 5": one scale for every criterion, stated in a sentence.
const STATED_SCALE =
  /\b(?:each|every|all)\s+(?:of\s+the\s+(?:\w+\s+)?)?(?:criteri(?:on|a)|traits?|items?|categor(?:y|ies)|dimensions?|elements?|standards?|areas?)\b[^.\n]{0,30}?\b(?:is|are)\s+(?:marked|scored|rated|graded|assessed)\b[^.\n]{0,30}?\b(?:from\s+)?(\d{1,2})\s*(?:to|-|–)\s*(\d{1,2})\b/i;

/**
 * The scale a sentence states for every criterion ("Each of the four criteria is marked on a level from 0 to 5"), its
 * levels described by a table's rows where the rubric has one ("| 5 | Excellent: … |"); null when none is stated.
 */
function scaleStated(text: string): Level[] | null {
  const m = STATED_SCALE.exec(text.replace(/\*\*|__/g, ""));
  if (!m) return null;
  const [low, high] = [Number(m[1]), Number(m[2])];
  if (high <= low || high - low > 10) return null;
  const described = new Map<number, string>();
  for (const row of text.matchAll(/^\s*\|?\s*(\d{1,2})\s*\|\s*([^|\n]+)/gm))
    if (!described.has(Number(row[1]))) described.set(Number(row[1]), row[2].trim());
  return Array.from({ length: high - low + 1 }, (_, i) => ({ value: low + i, descriptor: described.get(low + i) ?? "" }));
}

/** "- ⭐⭐⭐ Wow! You did this every time." … "- (no star) Not yet.": a scale of stars, each star a point, listed once. */
function starsListed(text: string): Level[] | null {
  const levels: Level[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.replace(/^\s*[-*•+]\s+/, "").trim();
    const stars = /^([⭐★]{1,5})\uFE0F?\s+(\S.*)$/u.exec(line);
    const none = /^\((?:no|0) stars?\)\s*(\S.*)$/i.exec(line);
    if (stars || none) levels.push({ value: stars ? [...stars[1]].length : 0, descriptor: (stars?.[2] ?? none?.[1] ?? "").trim() });
    else if (levels.length >= 2) break;
    else if (line !== "") levels.length = 0;
  }
  const values = new Set(levels.map((l) => l.value));
  return levels.length >= 2 && values.size === levels.length ? levels.sort((a, b) => a.value - b.value) : null;
}

/**
 * A mark after a requirement's name saying whether it must be met: "(optional)", "*(preferred)*", "[O]" that it may
 * be missing; "(mandatory)", "(required)", "[M]" that it must not.
 */
const REQUIREMENT_MARK =
  /\s*[*_]*[([]\s*(optional|preferred|desirable|desired|nice to have|a plus|an advantage|recommended|mandatory|required|essential|must)\s*[)\]][*_]*\.?\s*$|\s*\[([MO])\]\s*$/i;

/** A clause's name marked required or optional on a line of its own, not a section's ("Part A – … (required)", "Optional (…)"). */
function markedName(text: string): RequirementMark | null {
  const mark = requirementMark(text.trim().replace(/:$/, ""));
  if (!mark || /^part\s/i.test(mark.rest) || REQUIREMENT_SECTION.test(mark.rest) || mark.rest.split(/\s+/).length > 8) return null;
  return mark;
}

interface RequirementMark {
  rest: string;
  optional: boolean;
}

/** The text before its requirement mark, and whether the mark makes it optional; null without a mark. */
function requirementMark(text: string): RequirementMark | null {
  const m = REQUIREMENT_MARK.exec(text);
  if (!m || m.index === 0) return null;
  return { rest: text.slice(0, m.index).trim(), optional: m[1] ? OPTIONAL_SECTION.test(m[1]) : m[2].toUpperCase() === "O" };
}

/**
 * The candidates with their requirement marks taken off their titles, optional where the mark says so; a mark that
 * tells two criteria apart ("Experience (essential)", "Experience (desirable)") stays in their names.
 */
function unmarked(found: Candidate[]): Candidate[] {
  const marks = found.map((c) => requirementMark(c.title));
  const bare = found.map((c, i) => marks[i]?.rest ?? c.title);
  return found.map((c, i) => {
    const mark = marks[i];
    if (!mark || bare.filter((t) => t.toLowerCase() === bare[i].toLowerCase()).length > 1) return c;
    return { ...c, title: mark.rest, ...(mark.optional ? { optional: true } : {}) };
  });
}

function finalize(found: Candidate[]): RubricCriterion[] {
  const merged = new Map<string, Candidate>();
  for (const c of unmarked(found)) {
    const key = c.title.toLowerCase();
    const prev = merged.get(key);
    if (prev) {
      prev.description = [prev.description, c.description].filter(Boolean).join("\n");
      prev.points ??= c.points;
    } else merged.set(key, { ...c });
  }
  const ids = new Set<string>();
  return [...merged.values()].slice(0, MAX_CRITERIA).map((raw, i) => {
    const c = asBonus(raw);
    let id = slug(c.title) || `criterion_${i + 1}`;
    if (ids.has(id)) id = `${id}_${i + 1}`;
    ids.add(id);
    return {
      id,
      title: c.title.length > 120 ? `${c.title.slice(0, 119)}…` : c.title,
      description: c.description,
      maxScore: c.points ?? DEFAULT_MAX_SCORE,
      hasPoints: c.points !== null,
      ...(c.levels ? { levels: c.levels } : {}),
      // (A weight that is the criterion's points says nothing more.)
      ...(c.weight !== undefined && c.weight !== c.points ? { weight: c.weight } : {}),
      ...(c.optional ? { optional: true } : {}),
      ...(c.bonus ? { bonus: true } : {}),
    };
  });
}

const BONUS = /^(?:bonus|extra credit)\b/i;
const BONUS_POINTS = /\(\s*\+\s*(\d{1,3})\b|\bup to (\d{1,3}) (?:extra|bonus) (?:points?|marks?)/i;

/** A bonus criterion worth the points its text gives it ("+5", "up to 5 extra points"), not a level scale's top. */
function asBonus(c: Candidate): Candidate & { bonus?: boolean } {
  if (!BONUS.test(c.title)) return c;
  const stated = BONUS_POINTS.exec(`${c.title} ${c.description}`);
  const points = stated ? Number(stated[1] ?? stated[2]) : c.points;
  return { ...c, points, levels: stated && points !== c.points ? undefined : c.levels, bonus: true };
}

function slug(title: string): string {
  return title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 48)
    .replace(/_+$/, "");
}
