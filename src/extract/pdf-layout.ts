// Tables in PDF text. A PDF has no table structure, only text drawn at positions, and PDFium's text of a table comes
// out cell by cell in drawing order: a rubric's row of "Claim | A precise claim | A clear claim | …" arrives as the
// criterion, then each descriptor's wrapped lines, with nothing to say where a row or a column ends. This rebuilds the
// rows from where the text runs sit, the way the eye reads them, so a table reads as DOCX tables do (" | " between
// cells, a line per row). Pages without a table keep PDFium's own text.

import { isEnglishWord } from "../lib/english-words.ts";
import { cellParagraphs, rowLine } from "./document.ts";

/** Where a run of text sits on the page, as PDFium's text rectangles give it (PDF units, y grows upwards). */
export interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** A run of text on one line of the page. */
export interface TextRun extends Box {
  text: string;
  /** How many of its characters are letters, digits or marks, and whether its font is bold, when known. */
  letters?: number;
  bold?: boolean;
  /** Its font's size in points, when known. */
  size?: number;
}

interface Cell<R extends Box = TextRun> {
  left: number;
  right: number;
  runs: R[];
  /** cellText(), once worked out. */
  text?: string;
}

interface Band<R extends Box = TextRun> {
  top: number;
  bottom: number;
  runs: R[];
  /** Whether drawn borders run just above and below it: a row of a ruled table. */
  framed?: boolean;
}

/** PDFium's mark for a hyphen that ends a line inside a word: the next line goes on the same word, without a space. */
export const LINE_END_HYPHEN = 0xfffe;
const HYPHEN_MARK = String.fromCharCode(LINE_END_HYPHEN);

// A run that is only a list bullet, a dash or a number label is part of a list, not a column of a table.
const MARKER_ONLY = /^[\s\p{P}\p{S}\p{N}]{0,4}$/u;
/** Cells a table's row has at least, or two when every cell is short (a "Criterion | Points" table). */
const MIN_COLUMNS = 3;
const SHORT_CELL_WORDS = 25;
/** A cell longer than this is running text beside other running text (a two-column page), not a table's cell. */
const MAX_CELL_WORDS = 80;
/** The white between two columns, in line heights: a table's cells have padding; two runs of one line touch. */
const MIN_GUTTER = 0.3;
/** A two-column table is labels beside text ("Skewness | 7.4", "Claim | A precise claim"), three rows or more. */
const LABEL_WORDS = 8;

/**
 * Whether the page's text boxes could hold a table (two strips in a row with the same two or more columns), from
 * where they are alone: the text of each run is read only for the pages where this is true.
 */
export function mayHoldTable(boxes: Box[], carried: Columns | null = null, rules: Box[] = []): boolean {
  const page = strips(boxes, carried !== null, rules);
  if (page === null) return false;
  const holds = (gutter: number) => {
    const { bands, cells } = layout(page, gutter);
    return tableBands(bands, cells, (i) => cells[i].length >= 2, gutter, carried).size > 0;
  };
  // Without the text it cannot be told whether the runs are words or lines: either way of reading them may find one
  // (the second only when the page's word spacing makes it another).
  const least = MIN_GUTTER * page.lineHeight;
  if (holds(least)) return true;
  const words = wordGutter(page.bands, page.lineHeight);
  return words !== least && holds(words);
}

/**
 * A table's columns where a page ends with one of its rows: the next page may go on with the table, a row or two at
 * its top that alone would not make one.
 */
export type Columns = Cell<Box>[];

/**
 * The page's text with its tables as " | " rows, or null when it has no table (the caller keeps PDFium's text); and
 * the columns of a table the page ends with (for the next page), else null.
 */
export function textWithTables(runs: TextRun[], carried: Columns | null = null, rules: Box[] = []): { text: string; last: Columns | null } | null {
  const visible = runs.filter((r) => r.text.trim() !== "");
  const found = strips(visible, carried !== null, rules);
  if (found === null) return null;
  const gutter = wordByWord(visible) ? wordGutter(found.bands, found.lineHeight) : MIN_GUTTER * found.lineHeight;
  const { lineHeight, bands, cells } = layout(found, gutter);
  // A strip whose last line is in larger type than the strip under it ends in a heading: no row of a table, nor its
  // header ("Criterion 4: | Citation Form | (10 points)" was taken for the header of the table under it).
  const heading = (i: number) => i + 1 < bands.length && largerType(rowsOf(bands[i].runs, lineHeight).at(-1) ?? [], bands[i + 1].runs);
  const tableRows = tableBands(bands, cells, (i) => isRow(cells[i], bands[i].framed), gutter, carried);
  for (const i of tableRows) if (heading(i)) tableRows.delete(i);
  if (tableRows.size === 0) return null;
  const rowText = (i: number) => {
    // The rest of a row the previous page began: its first cell (the criterion's name) stayed there, empty here, and
    // the row opens with its separator as a DOCX row with an empty first cell does. So does the rest of a row under
    // the header the page repeats, one cell in a later column.
    if (i === 0 && carried !== null && cells[0].length === carried.length - 1) return `| ${cells[0].map(cellText).join(" | ")}`;
    // The rest of a cut row in some of its columns only (those whose text ran over the page): each under its column.
    const rest = i === 0 && carried !== null ? restOfCut(carried, cells[0]) : null;
    if (rest) return rowLine(["", ...rest.map((c) => (c ? cellText(c) : ""))]);
    // A row under a cell merged down from a wider row above: its first cell is empty, as a DOCX row's is.
    for (let k = i - 1; k >= 0 && tableRows.has(k); k--) {
      if (cells[k].length === cells[i].length + 1 && mergedDown(cells[k], cells[i], gutter)) return ` | ${cells[i].map(cellText).join(" | ")}`;
      if (cells[k].length <= cells[i].length) continue;
      break;
    }
    const below = cells[i + 1];
    if (cells[i].length === 1 && below && below.length > 1) {
      const column = below.findIndex((c) => cells[i][0].left < c.right && cells[i][0].right > c.left);
      if (column > 0) return `${" |".repeat(column)} ${cellText(cells[i][0])}`;
    }
    return cells[i].map(cellText).join(" | ");
  };
  // A table is a block of its own, as a DOCX table is between paragraphs: a blank line before and after it (a heading
  // over it, "Criterion A (maximum 8)", is the heading of what follows). A header rebuilt over the table's columns is
  // the table's first line.
  const lines: string[] = [];
  let inTable = false;
  bands.forEach((band, i) => {
    const header =
      !tableRows.has(i) && tableRows.has(i + 1) && !heading(i) ? headerOver(band, tableColumns(cells, tableRows, i + 1), gutter, lineHeight) : null;
    const table = tableRows.has(i) || header !== null;
    if (lines.length > 0 && table !== inTable && lines.at(-1) !== "") lines.push("");
    if (tableRows.has(i)) lines.push(rowText(i));
    else lines.push(...(header ?? linesOf(band.runs, lineHeight)));
    inTable = table;
  });
  const text = lines.join("\n");
  const lastBand = bands.length - 1;
  return { text, last: tableRows.has(lastBand) ? cells[lastBand] : null };
}

/**
 * A page's text with a blank line where a paragraph begins: where the white above a line is wider than between the
 * lines of a paragraph by half a line or more (paragraph spacing, a heading's), or where a line is indented after a
 * short one (a paragraph's first line after the last line of the one before). PDFium's text has a line break at
 * every line's end and nothing more, so a ten-paragraph essay read as one block. `boxes` are the page's runs in text
 * order; the text is left as it is when its lines and the boxes' lines do not pair one to one.
 */
export function withParagraphBreaks(text: string, boxes: Box[]): string {
  const lines = text.split(/\r\n|\n/);
  const visible = boxes.filter((b) => b.top > b.bottom);
  if (lines.length < 3 || visible.length === 0) return text;
  const lineHeight = lineHeightOf(visible);
  // The boxes' lines, in text order: a box whose middle is not on the line before starts the next.
  const rows: Box[] = [];
  for (const b of visible) {
    const row = rows.at(-1);
    const middle = (b.top + b.bottom) / 2;
    if (row && middle <= row.top && middle >= row.bottom) {
      row.top = Math.max(row.top, b.top);
      row.bottom = Math.min(row.bottom, b.bottom);
    } else rows.push({ ...b });
  }
  const textLines = lines.filter((l) => l.trim() !== "");
  if (rows.length !== textLines.length) return text;
  const gaps = rows.slice(1).map((r, i) => rows[i].bottom - r.top);
  const at = (values: number[], share: number) => [...values].sort((a, b) => a - b)[Math.floor(values.length * share)];
  // The median gap between lines that follow each other down the page (text that goes back up, to a next column,
  // has no gap to measure).
  const usual =
    at(
      gaps.filter((g) => g >= 0),
      0.5,
    ) ?? 0;
  const margin = at(
    rows.map((r) => r.left),
    0.2,
  );
  const full = at(
    rows.map((r) => r.right),
    0.8,
  );
  // A first line indented after a paragraph's last line, which ends a sentence (or a salutation, short and ending in
  // a comma): paragraphs set apart by indents, not white. A list's wrapped item, or a table cell's second line, is
  // indented after a line that goes on, and stays one.
  const indented = (k: number) => {
    const before = textLines[k - 1].trim();
    return rows[k].left > margin + lineHeight && (/[.!?:"”’]$/.test(before) || (before.endsWith(",") && rows[k - 1].right < full - 2 * lineHeight));
  };
  const out: string[] = [];
  let row = 0;
  for (const line of lines) {
    if (line.trim() === "") {
      out.push(line);
      continue;
    }
    if (row > 0 && (gaps[row - 1] > usual + 0.5 * lineHeight || indented(row)) && out.at(-1)?.trim() !== "") out.push("");
    out.push(line);
    row++;
  }
  return out.join("\n");
}

/**
 * The page's strips, or null when too few runs are drawn to hold a table. `rules` are the page's horizontal lines
 * (a table's borders, an underline).
 */
function strips<R extends Box>(runs: R[], continued: boolean, rules: Box[]): { lineHeight: number; bands: Band<R>[] } | null {
  const visible = runs.filter((r) => r.top > r.bottom);
  // A page that goes on with a table may hold only its last row: a label and a cell.
  if (visible.length < (continued ? 2 : 4)) return null;
  const boxHeight = lineHeightOf(visible);
  // Runs of one glyph each (Chromium's print) are as tall as their letters: "a" and "o" are half a line. Their line is
  // as tall as its lines are, from the highest letter to the lowest; between such lines is then the usual leading.
  const glyphs = visible.filter((r) => r.right - r.left < r.top - r.bottom).length >= 0.6 * visible.length;
  const lineHeight = glyphs ? Math.max(boxHeight, lineHeightOf(rowsOf(visible, boxHeight).map(spanOf))) : boxHeight;
  // An underline is a rule too, under its own words: only rules the text above does not cover part rows.
  const borders = rules.filter((rule) => {
    const above = visible.filter(
      (r) => r.bottom >= rule.bottom && r.bottom - rule.top <= 0.4 * lineHeight && r.left < rule.right && r.right > rule.left,
    );
    const covered = above.reduce((n, r) => n + Math.min(r.right, rule.right) - Math.max(r.left, rule.left), 0);
    return covered < 0.8 * (rule.right - rule.left);
  });
  const bands = bandsOf(visible, lineHeight, borders);
  for (const band of bands) {
    const over = (b: Box) => band.runs.some((r) => b.left < r.right && b.right > r.left);
    // (The last strip of a page may be a row the page break cuts: its bottom border is on the next page.)
    band.framed =
      borders.some((b) => b.bottom >= band.top - 1 && b.bottom - band.top <= lineHeight && over(b)) &&
      (band === bands.at(-1) || borders.some((b) => b.top <= band.bottom + 1 && band.bottom - b.top <= lineHeight && over(b)));
  }
  return { lineHeight, bands };
}

/** The page's strips, each split into cells at `gutter` (the white that parts two columns); `page` is left as it was. */
function layout<R extends Box>(
  page: { lineHeight: number; bands: Band<R>[] },
  gutter: number,
): { lineHeight: number; bands: Band<R>[]; cells: Cell<R>[][] } {
  const { lineHeight } = page;
  // A strip of one cell just under a row, inside one of its columns, is that cell's last lines: a wrapped line of
  // short letters ("every paragraph.") sits further below the line above than the strip's own lines do.
  const bands: Band<R>[] = [];
  const cells: Cell<R>[][] = [];
  for (const band of page.bands) {
    const own = cellsOf(band.runs, gutter);
    const row = cells.at(-1);
    const above = bands.at(-1);
    // (A cell's wrapped lines are set as the cell is: plain lines under a bold header are the rest of a row a page
    // break cut, under the header the next page repeats.)
    const inside =
      own.length === 1 &&
      row &&
      row.length >= 2 &&
      row.some((c) => own[0].left >= c.left - gutter && own[0].right <= c.right + gutter && boldLine(c.runs) === boldLine(own[0].runs));
    if (above && inside && above.bottom - band.top < 0.8 * lineHeight) {
      above.runs.push(...band.runs);
      above.bottom = Math.min(above.bottom, band.bottom);
      cells[cells.length - 1] = cellsOf(above.runs, gutter);
      continue;
    }
    bands.push({ ...band, runs: [...band.runs] });
    cells.push(own);
  }
  return { lineHeight, bands, cells };
}

/**
 * Whether the page's runs are its words or glyphs, each drawn on its own (Chromium prints text of 10 or 11 pt so,
 * glyph by glyph, with no box for a space), rather than lines or phrases with their spaces, as most PDFs have them.
 */
function wordByWord(runs: TextRun[]): boolean {
  return runs.length >= 20 && runs.filter((r) => /\S\s+\S/.test(r.text.trim())).length < 0.1 * runs.length;
}

/**
 * The white that parts a table's columns when each word is a run of its own: wider than the space between two words
 * of a line (one and a half times its usual width), which there is wider than the third of a line that parts columns
 * of runs holding their spaces.
 */
function wordGutter(bands: Band<Box>[], lineHeight: number): number {
  const least = MIN_GUTTER * lineHeight;
  const gaps: number[] = [];
  for (const band of bands) {
    for (const line of rowsOf(band.runs, lineHeight)) {
      for (let i = 1; i < line.length; i++) {
        const gap = line[i].left - line[i - 1].right;
        // (Glyphs of one word sit closer than the usual gutter, and are joined by it anyway.)
        if (gap > least && gap < 1.2 * lineHeight) gaps.push(gap);
      }
    }
  }
  if (gaps.length < 10) return least;
  const usual = gaps.sort((a, b) => a - b)[Math.floor(gaps.length / 2)];
  return Math.min(lineHeight, Math.max(least, 1.25 * usual));
}

/**
 * Runs on the same line, each line left to right, lines top to bottom. A run is on a line when their middles are within
 * half a line, or when it shares half its height with the line: a title's "g" and "y", drawn on their own, sit lower
 * than half a line of the body's text.
 */
function rowsOf<R extends Box>(runs: R[], lineHeight: number): R[][] {
  const lines: { middle: number; top: number; bottom: number; runs: R[] }[] = [];
  for (const run of [...runs].sort((a, b) => b.top - a.top)) {
    const middle = (run.top + run.bottom) / 2;
    const shared = (l: { top: number; bottom: number }) => Math.min(l.top, run.top) - Math.max(l.bottom, run.bottom);
    const line = lines.find((l) => Math.abs(l.middle - middle) < lineHeight / 2 || shared(l) >= 0.5 * (run.top - run.bottom));
    if (line) {
      line.runs.push(run);
      line.top = Math.max(line.top, run.top);
      line.bottom = Math.min(line.bottom, run.bottom);
    } else lines.push({ middle, top: run.top, bottom: run.bottom, runs: [run] });
  }
  return lines.map((l) => l.runs.sort((a, b) => a.left - b.left));
}

/** The box around runs. */
function spanOf(runs: Box[]): Box {
  return {
    left: Math.min(...runs.map((r) => r.left)),
    right: Math.max(...runs.map((r) => r.right)),
    top: Math.max(...runs.map((r) => r.top)),
    bottom: Math.min(...runs.map((r) => r.bottom)),
  };
}

/** A line's height: the upper quartile of the boxes' heights (runs of one small glyph, "e" or ".", are shorter). */
function lineHeightOf(boxes: Box[]): number {
  const heights = boxes.map((r) => r.top - r.bottom).sort((a, b) => a - b);
  return heights[Math.floor(heights.length * 0.75)];
}

/**
 * Horizontal strips of the page that text fills without a gap: the lines of a paragraph (a line's spacing leaves a
 * small gap) or a table's row (its cells' wrapped lines side by side), set apart from the next by a wider gap. A line
 * without tall letters has a shorter box, so the gap between two lines of one cell reaches 0.4 of a line (LibreOffice's
 * table cells); a table's rows are further apart (padding and a border). Where no white parts two rows (cells without
 * padding or paragraph spacing), the border drawn between them does.
 */
function bandsOf<R extends Box>(runs: R[], lineHeight: number, borders: Box[] = []): Band<R>[] {
  const gap = 0.45 * lineHeight;
  const bands: Band<R>[] = [];
  const over = (b: Box, run: R) => b.left < run.right && b.right > run.left;
  const ruled = (band: Band<R>, run: R) => borders.some((b) => b.top <= band.bottom + 1 && b.bottom >= run.top - 1 && over(b, run));
  // Between a row's borders the white between its lines says less: a cell's line of short letters ("every outcome.")
  // sits further below the line above than the white that parts paragraphs elsewhere, and is still the cell's.
  // (The row's top border just above its first line: a frame around the page holds every line.)
  const framed = (band: Band<R>, run: R) =>
    borders.some((b) => b.bottom >= band.top - 1 && b.bottom - band.top <= lineHeight && over(b, run)) &&
    borders.some((b) => b.top <= run.bottom + 1 && over(b, run));
  for (const run of [...runs].sort((a, b) => b.top - a.top)) {
    const band = bands.at(-1);
    if (band && !ruled(band, run) && (run.top >= band.bottom - gap || (run.top >= band.bottom - lineHeight && framed(band, run)))) {
      band.runs.push(run);
      band.bottom = Math.min(band.bottom, run.bottom);
    } else bands.push({ top: run.top, bottom: run.bottom, runs: [run] });
  }
  return bands;
}

/**
 * A band's runs grouped into cells: runs that share horizontal space, or leave less room between them than a column's
 * gutter (a word PDFium hands over in pieces, a full stop on its own), are one cell's text.
 */
function cellsOf<R extends Box>(runs: R[], near: number): Cell<R>[] {
  // (After a comma drawn on its own, a narrow glyph, the white to the next word is wider than between words: a
  // phrase goes on after it. A column's text seldom ends with a comma.)
  const cells: (Cell<R> & { reach: number })[] = [];
  const reachAfter = (run: R) => (/[,;]\s*$/.test((run as Partial<TextRun>).text ?? "") ? 1.4 * near : near);
  for (const run of [...runs].sort((a, b) => a.left - b.left)) {
    const cell = cells.find((c) => run.left < c.right + c.reach && run.right > c.left - near);
    if (cell) {
      cell.runs.push(run);
      cell.left = Math.min(cell.left, run.left);
      if (run.right > cell.right) {
        cell.right = run.right;
        cell.reach = reachAfter(run);
      }
    } else cells.push({ left: run.left, right: run.right, runs: [run], reach: reachAfter(run) });
  }
  return cells.sort((a, b) => a.left - b.left);
}

/**
 * Indexes of bands that are rows of a table: bands in a row with the same columns that each pass `isRow`, two or more
 * of them (three for two columns). The band above them with the same columns is the table's header even when its
 * cells are only numbers ("Trait | 3 | 2 | 1 | 0"), which alone would not make a row.
 */
function tableBands<R extends Box>(
  bands: Band<R>[],
  cells: Cell<R>[][],
  isRow: (band: number) => boolean,
  gutter: number,
  carried: Columns | null,
): Set<number> {
  const rows = new Set<number>();
  const framed = (k: number) => bands[k].framed === true;
  if (cells.length === 0) return rows;
  let start = 0;
  // The rows at the top of a page that go on with the previous page's table count as part of it, and so does the rest
  // of a row the page break cut, all its columns but the first.
  const goesOn =
    carried !== null &&
    ((isRow(0) && (sameColumns(carried, cells[0], gutter) || (carried.length >= 3 && sameColumns(carried.slice(1), cells[0], gutter)))) ||
      restOfCut(carried, cells[0]) !== null);
  // A strip of one cell inside a column, between two rows of the same columns, goes on with the table: the rest of a
  // row a page break cut, under the header the next page repeats.
  const bridge = (k: number) =>
    k >= 1 &&
    k + 1 < cells.length &&
    cells[k].length === 1 &&
    [...cells[k - 1], ...cells[k + 1]].some((c) => cells[k][0].left >= c.left - gutter && cells[k][0].right <= c.right + gutter) &&
    isRow(k + 1) &&
    sameColumns(cells[k - 1], cells[k + 1], gutter);
  // (Not a header, bold over the rows: a merged "Performance levels" over some of the columns is laid over them.)
  const plain = (k: number) => !boldLine(cells[k].flatMap((c) => c.runs));
  // The widest row of the run so far: a row under it without its first cell goes on with the table (that cell merged
  // down over it, "Design process" over its sub-criteria), and so does the next full row.
  let widest = 0;
  for (let i = 1; i <= cells.length; i++) {
    if (cells[i - 1].length > cells[widest].length) widest = i - 1;
    const continues =
      i < cells.length &&
      (bridge(i) ||
        (isRow(i) &&
          (sameColumns(cells[i - 1], cells[i], gutter) ||
            (framed(i - 1) && framed(i) && plain(i - 1) && plain(i) && sameEnds(cells[i - 1], cells[i], gutter)) ||
            // (A row under the rest of the row the page break cut has the previous page's columns.)
            (i === 1 && goesOn && carried !== null && sameColumns(carried, cells[i], gutter)) ||
            (i >= 2 && bridge(i - 1) && sameColumns(cells[i - 2], cells[i], gutter)) ||
            mergedDown(cells[widest], cells[i], gutter) ||
            (cells[i].length === cells[widest].length && cells[i].length >= MIN_COLUMNS && sameColumns(cells[widest], cells[i], gutter)))));
    if (continues) continue;
    const needed = start === 0 && goesOn ? 1 : cells[start].length >= MIN_COLUMNS ? 2 : 3;
    const header = isRow(start) ? 0 : 1;
    if (i - start - header >= needed) for (let j = start; j < i; j++) rows.add(j);
    start = i;
    widest = i;
  }
  return rows;
}

/**
 * The rest of the row a page break cut, at the top of the next page with no header repeated: its lines only in the
 * columns whose text ran over ("the essay, most of | general statements. | writer's purpose."), each under one of the
 * previous page's last row's columns but the first. The cells in those columns' places (null where a column's text
 * ended on the previous page), or null when the strip is not such a rest.
 */
function restOfCut<R extends Box>(carried: Columns, strip: Cell<R>[]): (Cell<R> | null)[] | null {
  if (carried.length < 3 || strip.length === 0 || strip.length >= carried.length) return null;
  const placed: (Cell<R> | null)[] = carried.slice(1).map(() => null);
  for (const cell of strip) {
    const over = carried.slice(1).flatMap((c, j) => (cell.left < c.right && cell.right > c.left ? [j] : []));
    if (over.length !== 1 || placed[over[0]] !== null) return null;
    placed[over[0]] = cell;
  }
  return placed;
}

/** Whether `row` lies under all the columns of `wide` but its first: a row whose first cell is merged down from above. */
function mergedDown(wide: Cell<Box>[], row: Cell<Box>[], gutter: number): boolean {
  return wide.length >= MIN_COLUMNS && row.length === wide.length - 1 && row[0].left > wide[0].right && sameColumns(wide.slice(1), row, gutter);
}

/** The columns of the table whose first row is `first`: each the widest its cells reach down the table. */
function tableColumns<R extends Box>(cells: Cell<R>[][], rows: Set<number>, first: number): Box[] {
  const columns = cells[first].map((c) => ({ left: c.left, right: c.right, top: 0, bottom: 0 }));
  for (let k = first + 1; rows.has(k) && cells[k].length === columns.length; k++) {
    cells[k].forEach((c, j) => {
      columns[j].left = Math.min(columns[j].left, c.left);
      columns[j].right = Math.max(columns[j].right, c.right);
    });
  }
  return columns;
}

/**
 * Whether a line is set in larger type than the strip under it: a heading over a table ("Criterion 1: Issue
 * identification (10 points)" at 13 pt over an 11 pt table), not its header, whose labels are the rows' size or near it.
 */
function largerType(line: TextRun[], row: TextRun[]): boolean {
  const largest = (runs: TextRun[]) => Math.max(0, ...runs.map((r) => r.size ?? 0));
  return largest(row) > 0 && largest(line) > 1.15 * largest(row);
}

/**
 * The lines of a table's header that did not come out as a row: a header whose merged cell ("Performance Levels" over
 * the level columns, or "Criteria" aligned to the top of two rows) touches the row of level names under it is one
 * strip with fewer cells than the table. Each phrase that lies over one column is that column's header; a phrase
 * over several stays a line above. Null when the strip is not such a header: its phrases are labels, and fill all the
 * columns but one at most, or two or more of a bold strip drawn as a row.
 */
function headerOver(band: Band, columns: Box[], gutter: number, lineHeight: number): string[] | null {
  const { runs } = band;
  if (columns.length < 2) return null;
  // Each column reaches halfway to the next: a header label is centred over its column, wider or narrower than its text.
  const edges = columns.slice(1).map((c, j) => (columns[j].right + c.left) / 2);
  const columnOf = (x: number) => edges.filter((e) => x > e).length;
  // A phrase goes on over white narrower than half the table's own between columns: a heading in larger type above
  // the table has wider spaces between its words than the body text's gutter.
  const white = Math.min(...columns.slice(1).map((c, j) => c.left - columns[j].right));
  const near = Math.max(gutter, 0.5 * white);
  const under: TextRun[][] = columns.map(() => []);
  const spanning: TextRun[] = [];
  // Past the last column's text: the headers of columns the rows leave empty ("Rating (1–5)", "Comments").
  const beyond: TextRun[] = [];
  const lastRight = columns[columns.length - 1].right + gutter;
  for (const line of rowsOf(runs, lineHeight)) {
    for (const phrase of cellsOf(line, near)) {
      if (phrase.left > lastRight) {
        beyond.push(...phrase.runs);
        continue;
      }
      // Over one column: its middle in the column's reach, and no other column's text under it.
      const j = columnOf((phrase.left + phrase.right) / 2);
      const others = columns.filter((c, k) => k !== j && c.left < phrase.right && c.right > phrase.left);
      if (others.length === 0) under[j].push(...phrase.runs);
      else spanning.push(...phrase.runs);
    }
  }
  const labels = [...under.map((r) => (r.length ? cellText({ left: 0, right: 0, runs: r }) : "")), ...cellsOf(beyond, gutter).map(cellText)];
  const filled = labels.slice(0, columns.length).filter((l) => l !== "").length;
  // (A header row drawn as one, bold between borders, may leave columns under a merged cell: "Ratings" over three.)
  const headerRow = band.framed && boldLine(runs);
  if (filled < 2 || (filled < columns.length - 1 && !headerRow) || labels.some((l) => l.split(/\s+/).length > LABEL_WORDS)) return null;
  return [...(spanning.length ? linesOf(spanning, lineHeight) : []), labels.join(" | ")];
}

/**
 * Whether a strip's cells are a table's row. Between a table's drawn borders, a label beside a number ("Summary | 25")
 * is one, and so is a label beside a long description (two columns of prose side by side have no borders).
 */
function isRow(cells: Cell[], framed = false): boolean {
  const words = cells.map((c) => cellText(c).split(/\s+/).length);
  const worded = cells.filter((c) => !MARKER_ONLY.test(cellText(c))).length;
  if (worded < (framed && cells.length >= 2 ? 1 : 2) || words.some((n) => n > MAX_CELL_WORDS)) return false;
  return cells.length >= MIN_COLUMNS || (words[0] <= LABEL_WORDS && words.every((n) => n <= (framed ? MAX_CELL_WORDS : SHORT_CELL_WORDS)));
}

/**
 * Two rows of a ruled table whose middle is a table of its own in each row, as many cells as the row has and each as
 * wide as its text (a learning platform's printed rubric: "Criteria | Ratings | Pts", three ratings in one row and
 * four in the next): their first and last columns line up, and their other cells lie between those.
 */
function sameEnds(a: Cell<Box>[], b: Cell<Box>[], gutter: number): boolean {
  if (a.length < MIN_COLUMNS || b.length < MIN_COLUMNS) return false;
  const ends = (row: Cell<Box>[]) => [row[0], row[row.length - 1]];
  const [first, last] = [Math.max(a[0].right, b[0].right), Math.min(ends(a)[1].left, ends(b)[1].left)];
  return sameColumns(ends(a), ends(b), gutter) && [a, b].every((row) => row.slice(1, -1).every((c) => c.left > first && c.right < last));
}

/**
 * Two bands have the same columns when each cell lies over the one in the same place of the other and the gaps
 * between columns line up: a table's columns leave a channel of white down the page. (A justified line that PDFium
 * hands over in two runs splits it at a different place on every line.)
 */
function sameColumns(a: Cell<Box>[], b: Cell<Box>[], gutter: number): boolean {
  if (a.length !== b.length) return false;
  return a.every((c, i) => {
    if (!(c.left < b[i].right && c.right > b[i].left)) return false;
    if (i === a.length - 1) return true;
    return Math.min(a[i + 1].left, b[i + 1].left) - Math.max(c.right, b[i].right) >= gutter;
  });
}

/**
 * A cell's lines, top to bottom, as one line of text. A paragraph ends, rather than wraps, where paragraph spacing
 * follows or where bold lines give way to plain ones: a name over its description keeps a colon, as DOCX cells do.
 * (Where a line ends says nothing: a line of a narrow column ends short whenever the next word is long.)
 */
function cellText(cell: Cell): string {
  if (cell.text !== undefined) return cell.text;
  const height = Math.max(...cell.runs.map((r) => r.top - r.bottom));
  const lines = rowsOf(cell.runs, height);
  // The lines of one paragraph are the closest; paragraph spacing (Word's, after each paragraph) leaves more. Measured
  // from baseline to baseline (most letters sit on it): the white between glyphs' boxes depends on their letters.
  const baseline = (line: TextRun[]) => line.map((r) => r.bottom).sort((a, b) => a - b)[Math.floor(line.length / 2)];
  const gaps = lines.slice(1).map((line, k) => baseline(lines[k]) - baseline(line));
  const tightest = Math.min(...gaps);
  const span = spanOf(cell.runs);
  const paragraphs: string[] = [];
  lines.forEach((line, k) => {
    const text = lineText(line, height);
    const last = paragraphs.length - 1;
    const before = lines[k - 1];
    const ended = before !== undefined && (gaps[k - 1] > tightest + 0.5 * height || (boldLine(before) && !boldLine(line)));
    const hyphenated = last >= 0 && paragraphs[last].endsWith(HYPHEN_MARK);
    if (last < 0 || (ended && !hyphenated)) paragraphs.push(text);
    else paragraphs[last] += hyphenated || brokenWord(before, paragraphs[last], line, text, span) ? text : ` ${text}`;
  });
  cell.text = cellParagraphs(paragraphs.map((p) => p.replace(/\s+/g, " ").trim()))
    .replace(/\s+/g, " ")
    .trim();
  return cell.text;
}

/**
 * Whether a cell's line ends inside a word that goes on at the next line's start, with no hyphen: Word and LibreOffice
 * break a word wider than a narrow column where the line runs out ("Differentiatio" over "n", "consisten" over "t,").
 * Such a line reaches the cell's right edge, the word would not fit on a line of the cell, and its two parts make a
 * word of the English word list where one of them alone is none, or a long word and its ending ("in" over "to", or
 * "Strategies" over "loosely" in a narrow column, are two words). The list is loaded only for a word that does not
 * fit its column.
 */
function brokenWord(above: TextRun[], before: string, line: TextRun[], text: string, cell: Box): boolean {
  const end = /(\p{L}+)$/u.exec(before)?.[1];
  const start = /^(\p{Ll}+)/u.exec(text)?.[1];
  if (!end || !start) return false;
  // A letter's width on a line, from its span and its letters (a run holds a phrase, not each letter's box).
  const letterOf = (runs: TextRun[]) => {
    const { left, right } = spanOf(runs);
    return (
      (right - left) /
      Math.max(
        1,
        runs.reduce((n, r) => n + r.text.trim().length, 0),
      )
    );
  };
  const [upper, lower] = [letterOf(above), letterOf(line)];
  if (spanOf(above).right < cell.right - 2 * upper) return false;
  // (A line starts where the word would have had to: after a list's bullet, a hanging indent.)
  if (end.length * upper + start.length * lower < 0.8 * (cell.right - spanOf(line).left)) return false;
  const [head, tail] = [end.toLowerCase(), start];
  if (!isEnglishWord(head + tail)) return false;
  // (A long word's ending cut off, "Outstand" over "ing", "summar" over "y", is two words of the list too.)
  return !(isEnglishWord(head) && isEnglishWord(tail)) || (head.length >= 6 && tail.length <= 3);
}

/** Whether a line is set in bold: most of its characters are. */
function boldLine(line: (Box & Pick<TextRun, "letters" | "bold">)[]): boolean {
  const letters = line.reduce((n, r) => n + (r.letters ?? 0), 0);
  return letters > 0 && line.reduce((n, r) => n + (r.bold ? (r.letters ?? 0) : 0), 0) > 0.5 * letters;
}

/**
 * Room for a space on a line, measured against the line's own letters: a title's, drawn glyph by glyph, sit further
 * apart than a third of the body's line. Between two letters of a line drawn glyph by glyph (Chromium's print) a space
 * is also wherever they stand three times as far apart as usual: a kerned pair ("d j") leaves less than a third of a
 * line. (Not between digits: a "1" stands far from its neighbours, and "11" is one number.)
 */
function spaceOf(line: TextRun[], lineHeight: number): { letters: number; other: number } {
  const height = Math.max(lineHeight, ...line.map((r) => r.top - r.bottom));
  const other = MIN_GUTTER * height;
  if (line.length < 6 || line.filter((r) => r.text.trim().length === 1).length < 0.7 * line.length) return { letters: other, other };
  const gaps = line
    .slice(1)
    .map((r, i) => r.left - line[i].right)
    .sort((a, b) => a - b);
  return { letters: Math.min(other, Math.max(0.15 * height, 3 * gaps[Math.floor(gaps.length / 2)])), other };
}

/** Whether the i-th run of a line starts a new word. */
function spaced(line: TextRun[], i: number, space: { letters: number; other: number }): boolean {
  const [before, run] = [line[i - 1], line[i]];
  if (/\s$/.test(before.text) || /^\s/.test(run.text)) return true;
  const letters = /\p{L}$/u.test(before.text) && /^\p{L}/u.test(run.text);
  // (A digit drawn on its own stands apart by its glyph's wide sides: "11" and "0–11:" hold no space unless far apart.)
  const digits = /\d$/.test(before.text) && /^[\d:;,.)%]/.test(run.text);
  return run.left - before.right > (letters ? space.letters : digits ? 1.6 * space.other : space.other);
}

/** One line's runs, left to right, joined with a space where there is room for one (PDFium also splits a line inside a word). */
function lineText(line: TextRun[], lineHeight: number): string {
  const space = spaceOf(line, lineHeight);
  return line.map((r, i) => (i > 0 && spaced(line, i, space) ? " " : "") + r.text.trim()).join("");
}

/** Running text: runs on the same line (their middles within half a line) joined left to right, lines top to bottom. */
function linesOf(runs: TextRun[], lineHeight: number): string[] {
  return rowsOf(runs, lineHeight).map((line) => lineText(line, lineHeight));
}
