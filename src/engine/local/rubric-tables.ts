// Reads a rubric's tables, however they were written or printed: a criterion per row, its levels in columns or in
// its own ratings ("Criteria | Ratings | Pts"), a scale of levels for one criterion, forms and checklists to tick,
// and the rows a page break, a merged header or a PDF's wrapped cell left apart.
import {
  type Candidate,
  type CandidateSet,
  cellPoints,
  HOLISTIC_TITLE,
  isLevelTitle,
  JOB_FACT,
  LEADING_POINTS,
  type Level,
  type Line,
  levelWordRank,
  NAMED_POINTS,
  namedFirst,
  OPTIONAL_SECTION,
  organising,
  POINTS_RANGE,
  parsePoints,
  REQUIREMENT_SECTION,
  runInName,
  TOTAL_ROW,
  tidyTitle,
  titleLike,
} from "./rubric-words";

export function tableSets(lines: Line[]): CandidateSet[] {
  const sets: CandidateSet[] = [];
  let rows: string[][] = [];
  // The heading (or, in a PDF, the short line) above the table: a one-scale table ("Score | Description") under
  // "Ideas" is the Ideas criterion's scale, as a list of levels under it is.
  let above: string | undefined;
  let notes = false;
  // The table just ended by lines of text (a PDF's wrapped cells), for a row that goes on with it.
  let ended = null as { header: string[]; last: string[] } | null;
  const flush = () => {
    // (Its last row that names something: the rows under it with no name are the rest of its cells.)
    const named = rows.findLast((r, k) => k > 0 && (r[0] ?? "") !== "");
    if (rows.length > 0) ended = named && (levelHeader(rows[0]) || namedHeader(rows[0])) ? { header: rows[0], last: named } : null;
    // (A header repeated at the top of each page the table runs onto is no row of it, even with the rest of the row
    // the page break cut run into its cells.)
    const head = rows[0] ?? [];
    const repeat = (r: string[]) => r.length === head.length && r[0] === head[0] && r.every((c, k) => c === head[k] || c.startsWith(`${head[k]} `));
    rows = rows.filter((r, k) => k === 0 || !repeat(r));
    rows = fromHeader(pageBreaksJoined(subCriteria(withMergedHeader(labelledCells(rows)))));
    // (A job advert's key facts, "Salary | £36,500", "Closing date | …", say what the job is, not what it asks for; an
    // assignment brief's, "Task | …", "Submission | …", "Pass mark | …", how the work is set.)
    const facts = rows.filter((r) => JOB_FACT.test((r[0] ?? "").trim())).length;
    const brief = rows.filter((r) => r.length === 2 && organising((r[0] ?? "").trim())).length;
    if (rows.length >= 3 && (facts * 5 >= rows.length * 3 || (brief >= 3 && rows.every((r) => r.length === 2)))) rows = [];
    // (A table under "Indicative content" lists what an answer may say, credited within the rubric's own criteria.)
    if (rows.length >= 2 && !notes) {
      const items = tableCandidates(rows);
      if (items.length === 1 && items[0].title === HOLISTIC_TITLE && above && !organising(above)) items[0].title = tidyTitle(parsePoints(above).rest);
      // A table under "Desirable" (or "Nice to have", "Optional") lists requirements a candidate may lack.
      if (above && OPTIONAL_SECTION.test(above) && REQUIREMENT_SECTION.test(above.trim().replace(/:$/, ""))) for (const c of items) c.optional = true;
      const [first = "", second = ""] = rows[0];
      const breakdown =
        (BREAKDOWN_FIRST.test(first.trim()) && /^(?:weight(?:ing)?|%|percent(?:age)?|share)\b/i.test(second.trim())) || gradeBands(rows);
      // (A person specification's table, "Criteria | Essential/Desirable", lists an advert's requirements.)
      const requirements = rows[0].some((h) => REQUIRED_HEADER.test(h.trim()));
      if (items.length > 0) sets.push({ kind: "table", items, ...(breakdown ? { breakdown } : {}), ...(requirements ? { requirements } : {}) });
    }
    rows = [];
  };
  for (const [i, line] of lines.entries()) {
    // A few words between two rows as wide are the last line of a cell that a PDF set apart ("essay." under "… controls
    // the whole"): they go on the one cell of the row above left unfinished, and the table goes on.
    const last = rows.at(-1);
    // Under a form's header ("Item | Met | Partially met | Not met | Comments", "Statement | Strongly disagree | …"), a
    // spreadsheet's or a CSV's row whose cells to tick are empty comes as its item alone: it is a row of the form.
    // (Not a label over a space to write in, "Comments" over "______": a field of the page, not an item.)
    const fieldLabel = () => {
      const next = lineAfter(lines, i, ["blank"]);
      return next?.kind === "text" && /^[_.\s]{8,}$/.test(next.text);
    };
    if (
      line.kind === "text" &&
      last &&
      formOpen(rows) &&
      /\p{L}/u.test(line.text) &&
      !TOTAL_ROW.test(line.text) &&
      !/_{3,}/.test(line.text) &&
      !fieldLabel()
    ) {
      rows.push([line.text, ...rows[0].slice(1).map(() => "")]);
      continue;
    }
    if (line.kind === "text" && last) {
      // A rule drawn in characters between a plain-text table's rows ("+------+-----+") is no line of text.
      if (!/\p{L}/u.test(line.text)) continue;
      const next = lineAfter(lines, i, ["blank"]);
      // (A cell's wrapped line a PDF printed with the table's rule before it, "| database, and all administrator …",
      // goes on with the row above's unfinished cell, however long.)
      if (next?.kind === "row" && next.cells.length === last.length && /^\s*\|/.test(line.text)) {
        const open = [...last.keys()].filter((k) => k > 0 && last[k] !== "" && !/[.!?;:)]$/.test(last[k]));
        // (The cell cut mid-phrase, "… the source code, the", before a short one, "Must".)
        const cut = open.filter((k) => /(?:,|\b(?:the|a|an|and|or|of|to|in|for|with|on|by|at|from))$/i.test(last[k]));
        const into = cut.length === 1 ? cut[0] : open.length === 1 ? open[0] : -1;
        if (into > 0) {
          last[into] = `${last[into]} ${line.text.replace(/^[\s|]+/, "")}`;
          continue;
        }
      }
      // A grade's section row between rows as wide ("PASS", "MERIT", "DISTINCTION" over a vocational brief's criteria):
      // the table goes on.
      if (next?.kind === "row" && next.cells.length >= 2 && rows.length >= 1 && GRADE_SECTION.test(line.text.trim())) continue;
      if (next?.kind === "row" && next.cells.length === last.length && line.text.split(/\s+/).length <= 4) {
        const open = [...last.keys()].filter((k) => k > 0 && last[k] !== "" && !/[.!?;:)]$/.test(last[k]));
        if (open.length === 1) {
          last[open[0]] = `${last[open[0]]} ${line.text}`;
          continue;
        }
        // (Under a row whose cells are finished, it is a heading over the next table: "Organization".)
      }
      // A table's header at a page's top (repeated, or alone), then lines of text (the rest of the row the page break
      // cut), then rows: the table goes on below them.
      const atHeader = last.join("|") === rows[0].join("|") && (levelHeader(rows[0]) || namedHeader(rows[0]));
      if (atHeader && lineAfter(lines, i, ["blank", "text"])?.kind === "row") continue;
      // Lines of a row's cells run together (a PDF's wrapped cells) before the rest of that row, whose name cell goes
      // on in lower case: the table goes on (the lines cannot be told apart by column; the rows keep their cells).
      const resumed = lineAfter(lines, i, ["blank", "text"]);
      if (resumed?.kind === "row" && resumed.cells.length >= 2 && /^\p{Ll}/u.test(resumed.cells[0]?.trim() ?? "")) continue;
    }
    if (line.kind !== "row" && line.kind !== "blank") {
      flush();
      if (line.kind === "heading") ended = null;
      // (Nor is a scale every criterion is marked on, "Mark scale (used for every criterion)", a criterion of its own.)
      notes = NOTES_LABEL.test(line.text.trim()) || SHARED_SCALE.test(line.text);
      // ("1. Argument Structure (15 marks)", numbered as a list item in a PDF's text, is such a heading too; so is one a
      // PDF wrapped inside its brackets, "A. Levels of response (AO2: analyse …" over "… belief) — 12 marks".)
      const previous = lines[i - 1];
      const wrapped =
        previous?.kind === "text" && /\([^)]*$/.test(previous.text) && /^\p{Ll}[^(]*\)/u.test(line.text) ? `${previous.text} ${line.text}` : null;
      const named = (text: string) => titleLike(parsePoints(text).rest.replace(/\s*\([^)]*\)/g, ""));
      if (line.kind === "heading" || ((line.kind === "text" || line.kind === "item") && named(line.text))) above = line.text;
      else if (wrapped && named(wrapped)) above = wrapped;
      continue;
    }
    if (line.kind === "row") {
      const cells = line.cells.map((c) =>
        c
          .replace(/\*\*|__/g, "")
          .replace(/(?<![\p{L}\d*])\*([^*]+)\*(?![\p{L}\d*])/gu, "$1")
          .trim(),
      );
      // A header of other levels inside a table ("Part B – Presentation" across it, then "Criterion | Strong (3) | …")
      // begins a table of its own: its criteria are on its levels.
      const section = rows.at(-1)?.filter((c) => c !== "") ?? [];
      if (
        rows.length >= 3 &&
        section.length === 1 &&
        HEADER_TITLE.test(cells[0] ?? "") &&
        levelHeader(cells) &&
        cells.join("|") !== rows[0].join("|")
      ) {
        rows.pop();
        flush();
        above = section[0];
      }
      // The next criterion of a table a few lines of text ended ("B. Content …" after "A. Provenance …"), as wide, goes
      // on with that table.
      if (rows.length === 0 && ended && cells.length === ended.header.length && follows(ended.last[0] ?? "", cells[0] ?? "")) rows.push(ended.header);
      // A row whose name cell goes on in lower case ("purpose (25%) | type of source and | …" under "A. Provenance: |
      // 22–25: Uses author, | …") is the rest of the row above, which a PDF's line breaks cut: joined to it cell by cell
      // (its name only, when the PDF left out empty cells and the columns cannot be told).
      const last = rows.at(-1);
      // (Open: its name ends on a colon or a joining word, or is a short name cut off, "3. Close" over "reading and evidence".)
      const name = last?.[0] ?? "";
      const open =
        /[:,]$|\b(?:and|or|of|the)$/.test(name) ||
        (/^[\p{Lu}\d]/u.test(name) && name.split(/\s+/).length <= 3 && !/[.!?)]$/.test(name) && (cells[0] ?? "").split(/\s+/).length <= 5);
      if (last && rows.length >= 2 && cells.length >= 2 && /^\p{Ll}/u.test(cells[0] ?? "") && open) {
        rows[rows.length - 1] = last.map((c, k) => (k === 0 || cells.length === last.length ? [c, cells[k]].filter(Boolean).join(" ") : c));
        continue;
      }
      rows.push(cells);
    }
  }
  flush();
  return sets;
}

/** Whether name cell `b` is numbered or lettered right after `a`: "A. Provenance" then "B. Content", "2." then "3.". */
function follows(a: string, b: string): boolean {
  const mark = (s: string) => /^\s*([A-Z]|\d{1,2})[.)]\s/.exec(s)?.[1];
  const [x, y] = [mark(a), mark(b)];
  if (x === undefined || y === undefined) return false;
  return /\d/.test(x) ? Number(y) === Number(x) + 1 : y.charCodeAt(0) === x.charCodeAt(0) + 1;
}

/**
 * A header with empty cells that no row fills ("Criterion | Description |  | Max points" over rows of three cells, a
 * PDF's column of white): the empty cells go, so each label stands over its column.
 */
function withoutEmptyHeaderCells(rows: string[][]): string[][] {
  const [header, ...data] = rows;
  const empty = header.filter((c, i) => i > 0 && c === "").length;
  if (empty === 0 || data.length === 0 || !data.every((r) => r.length === header.length - empty)) return rows;
  return [header.filter((c, i) => i === 0 || c !== ""), ...data];
}

/**
 * Levels listed in one cell, "15 excellent / 11 good / 6 weak / 0 missing" (or Canvas's ratings copied as text, "15 pts
 * Full Marks / 10 pts Partial / 0 pts No Marks"), lowest first; null unless two or more.
 */
function listedLevels(cell: string): Level[] | null {
  const parts = cell.split(/\s*[/;]\s*/);
  const levels = parts.map((p) => /^(\d{1,3}(?:\.\d+)?)\s+(?:(?:pts?|points?|marks?)\.?\s+)?(\p{L}.{0,40})$/iu.exec(p.trim()));
  if (levels.length < 2 || levels.some((m) => m === null)) return null;
  const out = levels.map((m) => ({ value: Number(m?.[1]), descriptor: m?.[2] ?? "" }));
  return new Set(out.map((l) => l.value)).size === out.length ? out.sort((a, b) => a.value - b.value) : null;
}

/**
 * Rows whose every cell names its field, the same in each row ("Criterion: Evidence | Max: 25 | Levels: 25 excellent /
 * 18 good / …"): the fields' names are the table's header.
 */
function labelledCells(rows: string[][]): string[][] {
  const field = /^(\p{L}[\p{L} ]{1,20}):\s*(\S.*)$/u;
  const parsed = rows.map((r) => r.map((c) => field.exec(c)));
  const names = parsed[0]?.map((m) => m?.[1].toLowerCase());
  const same = parsed.every((r) => r.length === names.length && r.every((m, k) => m !== null && m[1].toLowerCase() === names[k]));
  if (rows.length < 2 || names.length < 2 || !same) return rows;
  return [parsed[0].map((m) => m?.[1] ?? ""), ...parsed.map((r) => r.map((m) => m?.[2] ?? ""))];
}

/** The first line after `lines[at]` of a kind other than those skipped. */
function lineAfter(lines: Line[], at: number, skipped: Line["kind"][]): Line | undefined {
  for (let k = at + 1; k < lines.length; k++) if (!skipped.includes(lines[k].kind)) return lines[k];
  return undefined;
}

/**
 * A row with no first cell under a row as wide goes on with it: a PDF row cut by a page break. Not when most rows have
 * none: a single-point rubric ("Concerns | Criteria | Advanced") leaves its first column empty for the marker.
 */
function pageBreaksJoined(rows: string[][]): string[][] {
  const blankFirst = rows.slice(1).filter((r) => r[0] === "").length;
  if (blankFirst * 2 >= rows.length - 1) return rows;
  const out: string[][] = [];
  for (const cells of rows) {
    const last = out.at(-1);
    // (" | Total | 100", under a column that numbers the rows, is the sum, not the rest of the row above.)
    if (last && cells[0] === "" && cells.length === last.length && cells.slice(1).some(Boolean) && !TOTAL_ROW.test(cells.find(Boolean) ?? ""))
      out[out.length - 1] = last.map((c, i) => [c, cells[i]].filter(Boolean).join(" "));
    else out.push(cells);
  }
  return out;
}

/**
 * A header over two rows, as merged cells leave it in a DOCX: "Criteria | Performance levels" over "Exemplary (4) |
 * … | Beginning (1)", the first cell spanning both rows, so the second row is one cell short of the data rows (two
 * short under "Criterion | Indicator | Performance levels"). Its cells get the spanning cells in front, and the row
 * above (a title over the level columns) goes.
 */
function withMergedHeader(rows: string[][]): string[][] {
  const width = Math.max(0, ...rows.map((r) => r.length));
  const firstFull = rows.findIndex((r) => r.length === width);
  if (firstFull < 2 || width < 3) return rows;
  const short = rows[firstFull - 1];
  const above = rows[firstFull - 2];
  const spanning = above.slice(0, width - short.length);
  // (The short row names the levels: a row of ratings one fewer than the next row's is a criterion, Canvas's print.)
  if (spanning.length < 1 || spanning.length > 2 || above.length <= spanning.length) return rows;
  if (!HEADER_TITLE.test(above[0] ?? "") || !levelHeader([above[0], ...short])) return rows;
  return [[...spanning, ...short], ...rows.slice(firstFull)];
}

/**
 * "Criterion | Sub-criterion | Marks": a criterion's cell merged over the rows of its sub-criteria, each with its own
 * marks. The sub-criteria are what is marked; the rows under the first of a group come without the merged cell (a
 * DOCX) or with it empty (Markdown, a sheet). Read as the table of sub-criteria: the rows under the first are no rest
 * of a row cut by a page break, and no sub-criterion is lost.
 */
function subCriteria(rows: string[][]): string[][] {
  const [header, ...data] = rows;
  const width = header?.length ?? 0;
  if (width < 3) return rows;
  // (A PDF may print the header's first two cells as a line of their own above the table: a blank corner two cells
  // wide over level columns, the groups in the first column, every row's sub-criterion in the second.)
  const named = HEADER_TITLE.test(header[0]) && /sub|element|indicator|aspect|component|item/i.test(header[1]);
  const corner =
    header[0] === "" && header[1] === "" && levelHeader(["", ...header.slice(2)]) && data[0]?.[0] !== "" && data.every((r) => (r[1] ?? "") !== "");
  if (!named && !corner) return rows;
  const under = (r: string[]) => r.length === width - 1 || (r.length === width && r[0] === "");
  if (!data.some(under) || !data.every((r) => under(r) || r.length === width)) return rows;
  // (A "Total | | 60" row has no sub-criterion: it is no row of the table.)
  return [header.slice(1), ...data.map((r) => (r.length === width ? r.slice(1) : r)).filter((r) => r[0] !== "")];
}

/**
 * Rows above a table's header are notes about the rubric, not its rows: a spreadsheet puts "Prompt | Write about …"
 * in the rows right over "Trait | 3 | 2 | 1 | 0", or "Candidate | | Interviewer" over "Competency | Weight | Rating",
 * with nothing between to part them.
 */
function fromHeader(rows: string[][]): string[][] {
  const isHeader = (r: string[]) => levelHeader(r) || namedHeader(r);
  // A table that opens with its header keeps every row: a criterion whose cells read "Incomplete | Missing" is a row
  // of it, not a second header.
  if (rows[0] && isHeader(rows[0])) return rows;
  const at = rows.findIndex((r, i) => i > 0 && isHeader(r));
  return at > 0 && rows.length - at >= 3 ? rows.slice(at) : rows;
}

/**
 * A form being read: its header, then rows whose cells to tick are empty (or marks, or the same numbers on every
 * row). Not a rubric whose level cells describe each level: a line of text among its rows is the rest of a cut row.
 */
function formOpen(rows: string[][]): boolean {
  const [header, ...data] = rows;
  const blank = (c: string) => c === "" || /^[☐☑☒✓✔✗xX]$/.test(c) || /^\d{1,2}$/.test(c);
  return formHeader(header) && data.every((r) => r.join("|") === header.join("|") || r.slice(1).every(blank));
}

/** A form's header: items, then two or more columns to tick (answers or levels), and perhaps one for notes. */
function formHeader(row: string[]): boolean {
  const [first, ...rest] = row;
  const tick = (c: string) => ANSWER_COLUMN.test(c) || isLevelTitle(c);
  return (
    row.length >= 3 && first !== "" && !tick(first) && rest.filter(tick).length >= 2 && rest.every((c) => c === "" || tick(c) || HEADER_DESC.test(c))
  );
}

/** A header that names its columns: "Competency | Weight | Rating (1-5)", "Clause | Present (Y/N)", "Item | Yes | No". */
function namedHeader(row: string[]): boolean {
  return (
    HEADER_TITLE.test(row[0] ?? "") &&
    row.every((c) => cellPoints(c) === null) &&
    row
      .slice(1)
      .some(
        (c) =>
          HEADER_POINTS.test(c) ||
          HEADER_DESC.test(c) ||
          ANSWER_COLUMN.test(c) ||
          REQUIRED_HEADER.test(c.trim()) ||
          ASSESSED_BY.test(c.trim()) ||
          /^(?:essential|desirable)(?: criteria)?$/i.test(c.trim()),
      )
  );
}

/** A header over level columns: "Trait | 3 | 2 | 1 | 0", or two or more named levels ("Excellent (4)", "Proficient"). */
function levelHeader(row: string[]): boolean {
  return (
    numberedLevels(row) ||
    (row.every((c) => cellPoints(c) === null) && row.slice(1).filter((c) => isLevelTitle(c) || LEVEL_COLUMN_POINTS.test(c)).length >= 2)
  );
}

/** "| Trait | 3 | 2 | 1 | 0 |": a criterion column's name (or a blank corner) over level columns numbered only. */
function numberedLevels(row: string[]): boolean {
  return (
    (HEADER_TITLE.test(row[0] ?? "") || row[0] === "") &&
    row.slice(1).filter((c) => !HEADER_DESC.test(c)).length >= 2 &&
    // (A "Comments" column beside the ratings to tick is not a level, nor one for the marker to fill, "Mark | Weighted".)
    // (Nor is a weight beside them: "Criterion | Weight | 5 | 3 | 1 | Weighted points".)
    row
      .slice(1)
      .every(
        (c) =>
          HEADER_DESC.test(c) || TO_FILL.test(c.trim()) || WEIGHT_COLUMN.test(c) || /^\d{1,3}(?:\.\d+)?(?:\s*(?:points?|pts?|marks?))?$/i.test(c),
      )
  );
}
/**
 * A column saying whether a row is required: "Required?", "Mandatory (Y/N)", "Must/Should", "Essential/Desirable" (a
 * person specification's), "E/D".
 */
const REQUIRED_HEADER =
  /^(?:required|mandatory|must[- ]have|must\s*(?:\/|or)\s*should|essential(?:\s*\(e\))?\s*(?:\/|or)\s*desirable(?:\s*\(d\))?|e\s*\/\s*d)\??\s*(?:\(\s*(?:y\s*\/\s*n|yes\s*\/\s*no)\s*\))?$/i;
/** A label over a marker's notes, not over criteria: "Indicative content", "Notes for markers", "Guidance for examiners". */
const NOTES_LABEL =
  /^(?:indicative (?:content|answers?)|notes? (?:for|to) (?:markers|examiners)|(?:markers?|examiners?)['’]? notes|guidance (?:for|to) (?:markers|examiners))\b/i;
/** A band of percentages or marks in a cell of its own: "85–100%", "0 - 49 %", "80–100". */
const PERCENT_BAND = /^(\d{1,3})\s*%?\s*[-–]\s*(\d{1,3})\s*%?$/;
/** A band open at the top or bottom of a percentage scale: "70 % and above", "70+ %", "below 40 %, or …". */
const OPEN_TOP = /^(\d{1,3})\s*(?:%\s*(?:and|or)\s+(?:above|over|more)|\+\s*%|%\s*\+)$/i;
const OPEN_BOTTOM = /^(?:below|under|less than)\s+(\d{1,3})\s*%/i;
function bandOf(cell: string): { low: number; high: number } | null {
  const t = cell.trim();
  const m = PERCENT_BAND.exec(t);
  if (m) return { low: Number(m[1]), high: Number(m[2]) };
  const top = OPEN_TOP.exec(t);
  if (top) return { low: Number(top[1]), high: 100 };
  const bottom = OPEN_BOTTOM.exec(t);
  return bottom ? { low: 0, high: Number(bottom[1]) - 1 } : null;
}
/**
 * A table of grade bands, "High Distinction | 85–100% | Outstanding …" down to "Fail | 0–49% | …" (or "80–100 | A |
 * Excellent", or "First | 70 % and above | 56–80"): each row a grade's short name and its band, the bands of one column
 * tiling the scale without gaps. It says how a mark is placed or converted, not what the criteria are. ("Thesis |
 * 0–10", bands that all start at 0, are points; "Strong | 13–15" down to "Weak | 0–7" under a criterion are its levels.)
 */
function gradeBands(rows: string[][]): boolean {
  const width = Math.max(0, ...rows.map((r) => r.length));
  for (let at = 0; at < width; at++) {
    const bands = rows.flatMap((r) => {
      const band = r[at] === undefined ? null : bandOf(r[at]);
      const named = r.some((c, k) => k !== at && c.trim() !== "" && c.trim().split(/\s+/).length <= 3);
      return band && named ? [band] : [];
    });
    if (bands.length < 3 || bands.length < rows.length - 1) continue;
    // (Bands up to 100, a whole mark in per cent: a criterion's own levels, "Strong | 13–15", are worth its marks.)
    const sorted = bands.sort((a, b) => b.low - a.low);
    if (sorted[0].high === 100 && sorted.every((b, k) => k === 0 || [0, 1].includes(sorted[k - 1].low - b.high))) return true;
  }
  return false;
}
// The first header cell of a course's grade breakdown: "Component | Weight", "Assessment | %".
const BREAKDOWN_FIRST = /^(?:(?:grade |course |assessment )?components?|assessments?|assignments?|coursework|activit(?:y|ies)|tasks?)$/i;
const GRADE_SECTION = /^(?:pass|merit|distinction|high distinction|credit)(?:\s+(?:criteria|grade|level))?:?$/i;
// A criterion named only by its code ("A.P1", "AB.D1", "P3", "E2"): its description says what it is.
const CODE_ONLY = /^[A-Z]{1,3}(?:\.[A-Z]{0,2}\d{1,2}|\d{1,2})$/;
const CLASS_ROW = /^(?:(?:degree |overall )?classification(?: band)?|overall (?:grade|band)|grade band)$/i;
const GRADE_ROW =
  /^(?:grades?|points?|marks?|boundar(?:y|ies)|ranges?|percent(?:age)?s?|(?:minimum|min\.?|lowest|grade) (?:marks?|scores?|points?|boundar(?:y|ies)))(?:\s*\([^)]*\))?$/i;
const TO_FILL = /^(?:marks?|score|weighted(?:\s+(?:score|marks?|points?))?|total|points?\s+awarded|awarded)$/i;
// A criterion's multiplier in its name, "Content (×3)": its weight in the overall score.
const MULTIPLIER = /\s*\(\s*[×x]\s*(\d{1,2}(?:\.\d+)?)\s*\)/i;
// "Excellent (4)", "Proficient (3 pts)", and "Not present 0 pts" (a wiki's cell, "<br/>" before its points).
const LEVEL_COLUMN_POINTS = /\(\s*\d+(?:[.,]\d+)?(?:\s*[-–]\s*\d+)?\s*(?:points?|pts)?\s*\)|^\p{L}[\p{L} ]{0,30}\s\d{1,3}\s*(?:points?|pts?)$/iu;

const HEADER_TITLE =
  /criteri|categor|dimension|aspect|trait|element|area|component|skill|requirement|item|question|task|objective|standard|competenc|topic|feature|section|indicator|clause|provision|marked for|assessed|^i can\b|target/i;
const HEADER_POINTS =
  /^(?:max(?:imum)?\.?\s*)?(?:points?|marks?|pts|score|rating(?=\s*(?:\(|\d|$))|weight(?:ing)?|value|max|%|possible|out of)\b|points?\s*(?:possible|available)|^weight/i;
/** The top of a scale a column's header states: "Rating (1–5)", "Score (0-4)", "Mark out of 10", "Points /20". */
const HEADER_SCALE = /(?:\b[01]\s*[-–]\s*|out of\s*|max(?:imum)?\s*|\/\s*)(\d{1,3})\b/i;
/** A criterion's weight: "Weight", "Weighting", "Weight (%)", "%". */
const WEIGHT_COLUMN = /^\s*(?:weight(?:ing)?s?\b(?!ed)|%)/i;
/** "Rating (1–5)", "Score 0-4": a rating scale of whole numbers from 0 or 1. */
const RATING_RANGE = /\b([01])\s*[-–]\s*(\d{1,2})\b/;
/** A checklist's column to tick: "Yes", "No", "N/A", "Present (Y/N)", "Done", "Met". */
const ANSWER_COLUMN = /^(?:yes|no|n\/?a|y\/n|done|met|not met|ok|[✓✔☐x])$|\((?:y\/n|yes\/no)\)/i;
const HEADER_DESC = /descri|detail|expect|look(?:ing)? for|guidance|requirement|what|explanation|definition|notes?|comments?/i;

/** A level's label with its number: "4 - Expert", "4: Exceeds", "Expert (4)". */
const NAMED_POINT_LABEL = /^(?:(\d{1,2})\s*[-–:.]\s*\p{L}[\p{L} ]{0,30}|\p{L}[\p{L} ]{0,30}?\s*\(\s*(\d{1,2})\s*(?:points?|pts?)?\s*\))$/u;
/** A cell of marks: "15", "13–15", "8-12 marks". */
const POINT_BAND = /^(\d{1,3})(?:\s*[-–]\s*(\d{1,3}))?\s*(?:points?|pts|marks?)?$/i;
const LEVEL_MARKS = /^(?:(?:level|band|tier)\s*\d{1,2}|\p{L}[\p{L} ]{0,30}?)?\s*[-–—:(]?\s*(?:(\d{1,2})\s*[-–]\s*)?(\d{1,2})\s*marks?\)?$/iu;
const POINT_LABEL = /^(?:(?:band|level|score)\s*)?(?:(\d{1,2})\s*[-–]\s*)?(\d{1,2})$/i;

/**
 * A table whose rows are the points of a scale ("6 | An exceptional letter …" … "1 | …"): one holistic criterion. With
 * named columns beside the points ("Score | Ideas | Organization | Conventions"), each column is a criterion on that
 * scale, its levels the column's cells.
 */
function scaleTable(given: string[][]): Candidate[] | null {
  // (A last row of maxima or totals, "Max | 10 | 10 | 5 | 5", is no level; nor is a row of boxes to fill, "Score | __ / 4".)
  const boxes = (r: string[]) => r.length > 1 && r.slice(1).every((c) => /^(?:_+\s*)?(?:\/\s*\d{1,3})?$/.test(c.trim()));
  const rows = given.filter((r, i) => i === 0 || !(/^(?:max(?:imum)?|total|sum)\b/i.test(r[0] ?? "") || boxes(r)));
  // The points are numbers ("4"), or level names ("Exemplary" … "Beginning"), worth as many points as there are rows
  // below them, best first whichever way the table runs.
  const ranks = rows.slice(1).map((r) => levelWordRank(r[0] ?? ""));
  const named = rows.length >= 3 && ranks.every((r) => r !== null) && new Set(ranks).size === ranks.length;
  // ("6", "Band 9", or a band of an achievement scale, "7–8", worth its top; "4 - Expert" or "Expert (4)", its number.)
  const pointOf = (label: string) => {
    const plain = POINT_LABEL.exec(label);
    if (plain) return Number(plain[2]);
    // "Level 4 10–12 marks", "High — 3 marks", "0 marks": a level worth its marks (a band its top).
    const marked = LEVEL_MARKS.exec(label.trim());
    if (marked) return Number(marked[2]);
    const labelled = NAMED_POINT_LABEL.exec(label);
    return labelled ? Number(labelled[1] ?? labelled[2]) : null;
  };
  const isPoint = (r: string[]) => (named ? levelWordRank(r[0] ?? "") !== null : pointOf(r[0] ?? "") !== null);
  const data = rows.filter((r) => isPoint(r) && r.slice(1).some((c) => c.length > 0));
  const header = rows[0] && !isPoint(rows[0]) ? rows[0] : null;
  if (data.length < 2 || data.length + (header ? 1 : 0) !== rows.length) return null;
  if (
    (header || named) &&
    !/^(?:achievement\s+|performance\s+)?(?:score|level|band|points?|marks?|grade|rating|performance)s?\b/i.test(header?.[0] ?? "")
  )
    return null;
  // "Points | Criterion | Description": the points of criteria the next column names, not the levels of one scale.
  if (header?.slice(1).some((h) => /^(?:criteri(?:on|a)|categor(?:y|ies)|dimensions?|traits?|requirements?|items?)$/i.test(h))) return null;
  const byRank = [...(ranks as number[])].sort((a, b) => a - b);
  let values = named ? (ranks as number[]).map((r) => data.length - byRank.indexOf(r)) : data.map((r) => pointOf(r[0]) as number);
  // "Level | Marks | Descriptor" ("Strong | 13–15 | …", "Level 5 | 17-20 | …"): the levels are worth their marks (a band
  // its top), not their rank or their number.
  const marksAt = header ? header.findIndex((h, i) => i > 0 && HEADER_POINTS.test(h)) : -1;
  const marks = marksAt > 0 ? data.map((r) => POINT_BAND.exec(r[marksAt] ?? "")) : [];
  if (marks.length > 0 && marks.every((m) => m !== null)) values = marks.map((m) => Number(m?.[2] ?? m?.[1]));
  if (new Set(values).size !== values.length) return null;
  const scale = (column: (r: string[]) => string) =>
    data.map((r, i) => ({ value: values[i], descriptor: column(r) })).sort((a, b) => a.value - b.value);
  // (A column of the levels' descriptions is named so, "Description", "Descriptor"; "Explanation" beside "Strategy" and
  // "Accuracy" is a criterion.)
  const columns = header
    ? header.slice(1).filter((h) => h !== "" && !/^(?:level\s+)?(?:descriptions?|descriptors?|details?|notes?|comments?)$/i.test(h))
    : [];
  if (header && columns.length >= 2 && columns.length === header.length - 1) {
    return columns.map((title, i) => {
      // A column of numbers holds each level's points for that criterion ("Strong | 10 | 10 | 5 | 5").
      const own = data.map((r) => BARE_NUMBER.exec(r[i + 1] ?? ""));
      const levels =
        own.every((m) => m !== null) && new Set(own.map((m) => m?.[1])).size === own.length
          ? data.map((r, k) => ({ value: Number(own[k]?.[1]), descriptor: r[0] })).sort((a, b) => a.value - b.value)
          : scale((r) => r[i + 1] ?? "");
      return { title: tidyTitle(title), description: levels[levels.length - 1].descriptor, points: levels[levels.length - 1].value, levels };
    });
  }
  const levels = scale((r) => r.filter((c, k) => k > 0 && k !== marksAt && c !== "").join(" | "));
  const top = levels[levels.length - 1];
  return [{ title: HOLISTIC_TITLE, description: top.descriptor, points: top.value, levels }];
}

// A rating's cell in a learning platform's print: "10 pts Full Marks …", "10.0 pts", or a range "10 to >7.0 pts".
const RATING_POINTS = /^\s*(\d{1,3}(?:\.\d+)?)(?:\s*to\s*>\s*\d{1,3}(?:\.\d+)?)?\s*pts?\b\s*[:\-–—.]?\s*/i;

/**
 * Rows of ratings, as many as each row has ("Claim | 10 pts Full Marks Precise | 7 pts Partial … | 0 pts No Marks … |
 * 10 pts"; the next row with four): Canvas prints a rubric so, "Criteria | Ratings | Pts", each row's ratings a table
 * of its own. Each row is a criterion on its own ratings, out of its "Pts" cell (else its best rating). Null unless
 * every row with a title holds two ratings or more, and the ratings do not line up as columns (those are level
 * columns, read by `tableCandidates`).
 */
function ratingRows(rows: string[][]): Candidate[] | null {
  const body = rows.filter((r, i) => (i > 0 || r.some((c) => RATING_POINTS.test(c))) && r[0] && !TOTAL_ROW.test(r[0]) && cellPoints(r[0]) === null);
  const rated = body.map((r) => r.flatMap((c, i) => (i > 0 && cellPoints(c) === null && RATING_POINTS.test(c) ? [i] : [])));
  if (body.length < 2 || rated.some((at) => at.length < 2)) return null;
  if (rated.every((at) => at.join() === rated[0].join()) && body.every((r) => r.length === rows[0].length)) return null;
  return body.map((row, k) => {
    const levels = rated[k]
      .map((i) => {
        const m = RATING_POINTS.exec(row[i]) as RegExpExecArray;
        return { value: Number(m[1]), descriptor: row[i].slice(m[0].length).trim() };
      })
      .sort((a, b) => a.value - b.value);
    const stated =
      row
        .slice(1)
        .map(cellPoints)
        .findLast((v) => v !== null) ?? null;
    const named = namedFirst(row[0]);
    const top = levels[levels.length - 1];
    return {
      title: tidyTitle(named?.title ?? row[0]),
      description: [named?.description, top.descriptor].filter(Boolean).join("\n"),
      points: stated ?? top.value,
      levels: new Set(levels.map((l) => l.value)).size === levels.length && (stated ?? top.value) === top.value ? levels : undefined,
    };
  });
}

// Looser forms of a level cell's own points, taken only when every level cell of the row has one and they run the
// way the levels do: "23–25 Accurate, deep …" (a band, no unit), "Clear thesis stated early (4)" (at the end), "20".
const BARE_BAND = /^\s*\d{1,3}(?:\.\d+)?\s*[-–]\s*(\d{1,3}(?:\.\d+)?)\s+(?=\p{L})/u;
const TRAILING_POINTS = /\(\s*(\d{1,3}(?:\.\d+)?)\s*(?:points?|pts?|marks?)?\s*\)\s*$/i;
// A level cell that is its points alone, "20 | 15 | 10 | 5" under "Excellent | Good | Fair | Poor".
const BARE_NUMBER = /^\s*(\d{1,3}(?:\.\d+)?)\s*(?:points?|pts?|marks?)?\s*$/i;

/** The points a row's level cells open with ("10 points: …", "Strong (5) ● …"), or NaN where a cell has none. */
function cellValues(cells: string[], headerValues: (number | null)[]): number[] {
  const strict = cells.map((c) => {
    const m = LEADING_POINTS.exec(c) ?? POINTS_RANGE.exec(c) ?? NAMED_POINTS.exec(c);
    return m ? Number(m[1]) : Number.NaN;
  });
  if (strict.every((v) => !Number.isNaN(v))) return strict;
  for (const form of [BARE_BAND, TRAILING_POINTS, BARE_NUMBER]) {
    const loose = cells.map((c) => Number(form.exec(c)?.[1] ?? Number.NaN));
    if (loose.some((v) => Number.isNaN(v))) continue;
    // ("0–2 errors | 3–5 errors | …" rises as the levels fall: counts, not points.)
    const order = (i: number, j: number) => {
      const [hi, hj] = [headerValues[i], headerValues[j]];
      return hi === null || hj === null || Math.sign(loose[i] - loose[j]) === Math.sign(hi - hj);
    };
    if (loose.every((_, i) => loose.every((_, j) => order(i, j)))) return loose;
  }
  return strict;
}

/**
 * A job's person specification, "Criteria | Essential | Desirable": each row's cell under each column is a requirement
 * ("Experience (essential)": "Minimum 4 years' post-qualification experience …"), the desirable ones optional.
 */
function personSpecification(rows: string[][]): Candidate[] | null {
  const header = rows[0].map((c) => c.trim());
  const essential = header.findIndex((c, i) => i > 0 && /^(?:essential|required|must have)(?: criteria| requirements)?$/i.test(c));
  const desirable = header.findIndex((c, i) => i > 0 && /^(?:desirable|preferred|nice to have)(?: criteria| requirements)?$/i.test(c));
  if (essential < 0 || desirable < 0) return null;
  return rows.slice(1).flatMap((row) =>
    [essential, desirable].flatMap((k) => {
      const text = row[k]?.trim() ?? "";
      if (!text || !row[0]?.trim()) return [];
      const optional = k === desirable;
      return [
        {
          title: `${tidyTitle(row[0])} (${optional ? "desirable" : "essential"})`,
          description: text,
          points: null,
          ...(optional ? { optional } : {}),
        },
      ];
    }),
  );
}

/** A label over the scale every criterion is marked on: "Mark scale (used for every criterion)", "… for all criteria". */
const SHARED_SCALE = /\b(?:used |applies )?(?:for|to) (?:every|each|any|all)(?: the)? criteri(?:on|a)\b/i;

/** A person specification's column of how each requirement is assessed ("Assessed by" over "A, I"): no level, no points. */
const ASSESSED_BY =
  /^(?:how (?:assessed|identified|evidenced|tested)|assessed (?:by|through|via|at)|(?:method of )?assessment(?: method|stage)?|evidence(?:d)? (?:by|from|source))$/i;

function withoutAssessmentColumn(rows: string[][]): string[][] {
  const at = rows[0]?.findIndex((c, i) => i > 0 && ASSESSED_BY.test(c.trim())) ?? -1;
  return at < 0 ? rows : rows.map((r) => r.filter((_, i) => i !== at));
}

function tableCandidates(given: string[][]): Candidate[] {
  const rows = withoutAssessmentColumn(withoutEmptyHeaderCells(given));
  // A table of measurements ("Day | Dish A mL | Dish B mL" over rows of numbers) is data the task gives, no rubric.
  const numeric = (c: string) => c.trim() === "" || /^[-+]?\d[\d.,]*\s*(?:%|[a-zµ°]{1,3})?$/i.test(c.trim());
  if (rows.length >= 3 && rows.slice(1).every((r) => r.every(numeric))) return [];
  // Nor is a survey's results or a price list ("Q2. … | Under £1.20: 22% | …", "Sampling stall | £180 per day"): cells
  // after the first that state a share or a price, in every row.
  // (A bare percentage, "30%", is a criterion's weight; "Points Range: 0 (0%) - 5 (12.5%)", a level's points.)
  const figure = (c: string) =>
    !/\b(?:points?|pts|marks?)\b/i.test(c) && (/[£$€]\s?\d/.test(c) || (/\d\s*%/.test(c) && !/^\s*\d+(?:[.,]\d+)?\s*%\s*$/.test(c)));
  const figures = rows.filter(
    (r) => r.length >= 2 && r.slice(1).some((c) => c.trim() !== "") && r.slice(1).every((c) => c.trim() === "" || figure(c)),
  );
  if (rows.length >= 3 && figures.length >= rows.length - 1) return [];
  const specification = personSpecification(rows);
  if (specification) return specification;
  const scale = scaleTable(rows) ?? ratingRows(rows);
  if (scale) return scale;
  // A total's bands and what each is called ("0–11 | Working towards …", "3.5 – 4.0 | Advanced", "below 1.0 |
  // Incomplete"), or a grade beside its marks ("9 | 29–32" … "U | 0–2"): how a total is judged, not what is marked.
  const band = (c: string) => /^(?:\d{1,3}(?:\.\d+)?\s*[-–]\s*\d{1,3}(?:\.\d+)?|(?:below|under|less than)\s+\d)/i.test(c.trim());
  const gradeAndBand = (r: string[]) => r.length === 2 && /^(?:[0-9]|[A-F][+*-]?|U)$/.test(r[0]?.trim() ?? "") && band(r[1] ?? "");
  const bandRows = rows.slice(1).filter((r) => band(r[0] ?? "") || gradeAndBand(r));
  if (rows.length >= 3 && bandRows.length === rows.length - 1) return [];
  // Nor the grades a total's bands give ("Total /15 | 0–3 | 4–6 | …" over "Grade guide | U–1 | 2–3 | …").
  if (TOTAL_ROW.test(rows[0]?.[0]?.trim() ?? "") && rows.length >= 2 && rows.slice(1).every((r) => /^grades?\b/i.test(r[0]?.trim() ?? ""))) return [];
  // Nor an outcome's colours ("RAG | Outcome | When" over "GREEN | Approve for signature | Every item passes"): what
  // the review concludes, not what it checks.
  const colours = rows.filter((r) => /^(?:green|amber|red|yellow)\b/i.test(r[0]?.trim() ?? ""));
  if (colours.length >= 2 && colours.length >= rows.length - 1) return [];
  // (Or named so: "Outcome | When | Next step" over "Sign", "Sign after referral", "Do not sign".)
  if (rows.length >= 3 && /^(?:outcomes?|results?|decisions?|verdicts?|recommendations?|rag(?: rating| status)?)$/i.test(rows[0]?.[0]?.trim() ?? ""))
    return [];
  const width = Math.max(...rows.map((r) => r.length));
  const first = rows[0];
  const isHeader =
    numberedLevels(first) ||
    (first.every((c) => cellPoints(c) === null) &&
      (first.some((c) => HEADER_TITLE.test(c) || HEADER_POINTS.test(c) || HEADER_DESC.test(c)) ||
        first.filter((c) => isLevelTitle(c) || /\(\s*\d+\s*(?:points?|pts)?\s*\)/i.test(c)).length >= 2));
  const header = isHeader ? first : [];
  // A row of points under a header of level names ("Points | 4 | 3 | 2 | 1" under "Category | Excellent | Good | …")
  // gives the levels their values; it is no criterion.
  const pointsRow = isHeader && /^(?:points?|pts|scores?|values?|marks?)$/i.test(rows[1]?.[0]?.trim() ?? "") ? rows[1] : null;
  const valuesRow = pointsRow?.slice(1).every((c) => c === "" || cellPoints(c) !== null) ? pointsRow : null;
  const data = isHeader ? rows.slice(valuesRow ? 2 : 1) : rows;
  const col = (i: number) => data.map((r) => r[i] ?? "");

  // Level columns: "Excellent (4)", "4", "Proficient 3 pts" in the header.
  const levels: { index: number; value: number | null }[] = [];
  header.forEach((h, i) => {
    if (i === 0) return;
    // "★★★★ | ★★★ | ★★ | ★": as many points as stars.
    if (/^★{1,10}$/.test(h.trim())) {
      levels.push({ index: i, value: h.trim().length });
      return;
    }
    if (isLevelTitle(h) || LEVEL_COLUMN_POINTS.test(h)) {
      // "Level 3 (70–79%)" is level 3 of the scale: the percentages are what it stands for in a final mark.
      const named = /^(?:level|band|tier)\s*(\d{1,2})\b/i.exec(h);
      // (A decimal comma, "Good (1,5)" in a European sheet, is a half point, not points 1 and 5.)
      const nums = named ? [Number(named[1])] : (h.replace(/(\d),(\d{1,2})(?!\d)/g, "$1.$2").match(/\d+(?:\.\d+)?/g) ?? []).map(Number);
      levels.push({ index: i, value: cellPoints(valuesRow?.[i] ?? "") ?? (nums.length ? Math.max(...nums) : null) });
    }
  });
  // Columns each named by a word and its points, one of them a level's name: "Missing 0 | Attempted 0.5 | Partial 1 |
  // Nearly complete 1.5 | Complete 2" (a schedule's "Week 1 | Week 2 | Week 3" names no level).
  const labelled = header.slice(1).map((h) => /^\p{L}[\p{L} ]{0,30}\s(\d{1,3}(?:\.\d+)?)$/u.exec(h.trim()));
  if (labelled.length >= 3 && labelled.every((m) => m !== null) && header.slice(1).some((h) => isLevelTitle(h))) {
    levels.splice(0, levels.length, ...labelled.map((m, k) => ({ index: k + 1, value: Number(m?.[1]) })));
  }
  // Columns whose every cell opens with a level and its points ("Strong (5) ● …", "10 points: …") under a header that
  // names none ("Criteria | Ratings | | | Comments", a merged "Ratings" over them): each row's own scale.
  if (levels.length < 2) {
    const own = [...Array(width).keys()].filter(
      (i) =>
        i > 0 &&
        data.length > 0 &&
        data.every((r) => cellPoints(r[i] ?? "") === null && (NAMED_POINTS.test(r[i] ?? "") || LEADING_POINTS.test(r[i] ?? ""))),
    );
    if (own.length >= 2) levels.splice(0, levels.length, ...own.map((index) => ({ index, value: null })));
  }
  const isLevelTable = levels.length >= 2;
  // Level columns named only in words ("Exemplary | Proficient | Developing | Beginning") are a scale of as many
  // points as columns: the best is worth the most, whichever side it is on.
  if (isLevelTable && levels.every((l) => l.value === null)) {
    const ranks = levels.map((l) => levelWordRank(header[l.index] ?? ""));
    const [first, last] = [ranks[0], ranks[ranks.length - 1]];
    const ascending = first !== null && last !== null && first > last;
    // A worst level that names nothing done ("Not met", "Missing", "None") is worth nothing.
    const worst = header[levels[ascending ? 0 : levels.length - 1].index];
    const from = /^(?:not\b|missing|absent|none|no\b)/i.test(worst) ? 0 : 1;
    levels.forEach((l, i) => {
      l.value = (ascending ? i : levels.length - 1 - i) + from;
    });
    // Numbers in the level columns, the same on every row ("1 | 2 | 3 | 4 | 5" under "Strongly disagree … Strongly
    // agree"), are the levels' values.
    const numbers = data.map((r) => levels.map((l) => cellPoints(r[l.index] ?? "")));
    if (numbers.length > 0 && numbers.every((row) => row.every((v, k) => v !== null && v === numbers[0][k]))) {
      levels.forEach((l, k) => {
        l.value = numbers[0][k];
      });
    }
  }

  // (A points column may come first: "Points | Criterion | Description".)
  let pointsCol = header.findIndex(
    (h, i) => HEADER_POINTS.test(h) && !(isLevelTable && levels.some((l) => l.index === i)) && (i > 0 || !HEADER_TITLE.test(h)),
  );
  // A weight column beside the criteria's own scale ("Criterion | Weight | Score (1–5)", "Weight | 4 – Exemplary … 1 –
  // Beginning"): the criterion is scored on that scale and weighs its weight in the overall score. Without a scale in
  // the table, the weight is the criterion's points (a scale stated once in the text may still come: findCriteria).
  const weightCol = header.findIndex((h, i) => i > 0 && WEIGHT_COLUMN.test(h) && !(isLevelTable && levels.some((l) => l.index === i)));
  if (weightCol >= 0 && pointsCol === weightCol) {
    pointsCol = header.findIndex(
      (h, i) => i > 0 && i !== weightCol && /score|rating|mark|grade/i.test(h) && !/weighted/i.test(h) && HEADER_SCALE.test(h),
    );
  }
  // A column that states each row's scale ("Scale" over "1-5"): the criterion is rated on it.
  const scaleCol = header.findIndex((h, i) => i > 0 && /^(?:rating\s+)?(?:scale|range)$/i.test(h.trim()) && col(i).some((c) => RATING_RANGE.test(c)));
  const levelsCol = header.findIndex(
    (h, i) => i > 0 && /^(?:levels?|bands?|ratings?)$/i.test(h.trim()) && col(i).some((c) => listedLevels(c) !== null),
  );
  // A scale its header states ("Rating (1–5)", "Score out of 4") for rows whose cell is left to fill.
  const stated = pointsCol >= 0 ? HEADER_SCALE.exec(header[pointsCol]) : null;
  // (Beside a weight, the stated scale's column holds a rating to give, "7" in a sheet filled in: no maximum.)
  const toRate = weightCol >= 0 && stated !== null;
  if (pointsCol < 0 && weightCol < 0) {
    for (let i = 1; i < width; i++) {
      if (isLevelTable && levels.some((l) => l.index === i)) continue;
      const cells = col(i).filter((c) => c !== "");
      if (cells.length > 0 && cells.filter((c) => cellPoints(c) !== null).length * 5 >= cells.length * 3) {
        pointsCol = i;
        break;
      }
    }
  }
  // (A column left empty for the marker, "Areas for growth" in a single-point rubric, names no criteria; nor does an
  // "Item" column that numbers the rows.)
  // (Nor does a "Part" column of "(a)", "(b)": a question's parts, named in the next column.)
  const named = (c: string) => c !== "" && !/^\d{1,3}[.)]?$/.test(c) && !/^\(?[a-h]\)?$|^\(?[ivx]{1,4}\)$/i.test(c);
  const holdsNames = (i: number) => col(i).some(named);
  // A header that is its column's name ("Criteria (the standard)") names the criteria before one that only mentions a
  // criteria word in its note ("Concerns (working toward the standard)").
  const namesColumn = (h: string, i: number) => HEADER_TITLE.test(h) && !HEADER_POINTS.test(h) && holdsNames(i);
  const headerNames = (h: string, i: number) => namesColumn(h.replace(/\s*\([^)]*\)/g, ""), i);
  let titleCol = header.some(headerNames) ? header.findIndex(headerNames) : header.findIndex(namesColumn);
  const scoreCols = [pointsCol, weightCol, scaleCol, levelsCol];
  if (titleCol < 0 || scoreCols.includes(titleCol)) {
    titleCol = [...Array(width).keys()].find((i) => !scoreCols.includes(i) && col(i).some((c) => named(c) && cellPoints(c) === null)) ?? 0;
  }
  let descCol = header.findIndex((h, i) => i !== titleCol && !scoreCols.includes(i) && HEADER_DESC.test(h) && col(i).some((c) => c !== ""));
  if (descCol < 0 && !isLevelTable) {
    let best = -1;
    for (let i = 0; i < width; i++) {
      if (i === titleCol || scoreCols.includes(i)) continue;
      const avg = col(i).reduce((n, c) => n + c.length, 0) / Math.max(1, data.length);
      if (avg > best && avg > 0) {
        best = avg;
        descCol = i;
      }
    }
  }
  // The top level describes the work a criterion asks for: its cell is the description.
  const top = isLevelTable ? [...levels].sort((a, b) => (b.value ?? -1) - (a.value ?? -1) || a.index - b.index)[0] : undefined;
  const levelMax = isLevelTable ? Math.max(0, ...levels.map((l) => l.value ?? 0)) : 0;

  // An LMS's export repeats "Rating Name | Rating Description | Rating Points" for each level (Canvas's CSV).
  const ratings = [...header.keys()].filter((i) => i >= 2 && /^(?:rating )?points$/i.test(header[i].trim()) && /\bname$/i.test(header[i - 2].trim()));
  // "Clause | Required | Notes", "Mandatory (Y/N)": a row marked "No" or "Optional" there is not required.
  const requiredCol = header.findIndex((h, i) => i !== titleCol && REQUIRED_HEADER.test(h.trim()));
  const optionalCol =
    requiredCol < 0 ? -1 : header.findIndex((h, i) => i !== titleCol && i !== requiredCol && /^(?:optional|desirable|nice to have)$/i.test(h.trim()));
  // A section's row among a marking sheet's criteria ("A | Requirements" over "A1 | User stories … | 10"): its code
  // opens the codes of the rows it heads.
  const section = (row: string[]) =>
    titleCol > 0 && /^[A-Z]$/.test(row[0] ?? "") && data.some((r) => new RegExp(`^${row[0]}\\.?\\d`).test(r[0] ?? ""));
  const out: Candidate[] = [];
  const zeroRows = new Set<Candidate>();
  for (const row of data) {
    const multiplied = MULTIPLIER.exec(row[titleCol] ?? "");
    const rawTitle = (row[titleCol] ?? "").replace(MULTIPLIER, "");
    // (A list's bullet set apart as a cell, "• | −2 per day late", names nothing; nor do a grade table's rows run on
    // under the rubric, "Grade | A | B | C" over "Points | 36–40 | 30–35 | 24–29".)
    if (!rawTitle || !/[\p{L}\p{N}]/u.test(rawTitle) || TOTAL_ROW.test(rawTitle) || cellPoints(rawTitle) !== null || section(row)) continue;
    // (Nor a row of notes for the marker under the criteria, "Marker notes".)
    if (NOTES_LABEL.test(rawTitle.trim())) continue;
    // (Nor is a heading row among the rows, its other cells empty or merged into it: "Experience" among a person
    // specification's requirements, "PASS" over a vocational brief's pass criteria.)
    const alone = row.every((c, k) => k === titleCol || c.trim() === "");
    if (alone && ((requiredCol >= 0 && data.some((r) => (r[requiredCol] ?? "").trim() !== "")) || GRADE_SECTION.test(rawTitle.trim()))) continue;
    // (Nor is a band's row, "30–39 Fail (marginal)", nor the row the overall mark's class is written in.)
    if (/^\d{1,3}\s*%?\s*[-–]\s*\d{1,3}\s*%?(?:\s|$)/.test(rawTitle.trim()) || CLASS_ROW.test(rawTitle.trim())) continue;
    // (Or a grade's boundary, "Grade | 9 | 8 | 7" over "Minimum mark (out of 15) | 14 | 13 | 12".)
    if (
      GRADE_ROW.test(rawTitle.trim()) &&
      row.slice(1).every((c) => c === "" || /^(?:[A-F][+-]?|\d{1,3}\s*[-–]\s*\d{1,3}%?|\d{1,3})$/.test(c.trim()))
    )
      continue;
    const parsed = parsePoints(rawTitle);
    // A criterion's cell may hold its description too: "Thesis — states a clear, arguable claim".
    // ("**1. Claim.** States a clear … 8:45 a.m. …": the bold run-in name is the name, not what runs to a colon.)
    const named =
      [namedFirst(parsed.rest), parsed.rest.length > 70 ? runInName(parsed.rest) : null]
        .filter((n) => n !== null)
        .sort((a, b) => a.title.length - b.title.length)[0] ?? null;
    const title = tidyTitle(named?.title ?? parsed.rest);
    if (!title) continue;
    // (A weight written as a multiplier, "×3" or "x 2", is that number.)
    const times = weightCol >= 0 ? /^[×x]\s*(\d{1,2}(?:\.\d+)?)$/i.exec((row[weightCol] ?? "").trim()) : null;
    const weight =
      weightCol >= 0 ? (times ? Number(times[1]) : (cellPoints(row[weightCol] ?? "") ?? undefined)) : multiplied ? Number(multiplied[1]) : undefined;
    let points = pointsCol >= 0 && !toRate ? cellPoints(row[pointsCol] ?? "") : null;
    points ??= parsed.points ?? (levelMax > 0 ? levelMax : stated ? Number(stated[1]) : (weight ?? null));
    const parts: string[] = named?.description ? [named.description] : [];
    if (top) parts.push(row[top.index] ?? "");
    if (descCol >= 0) parts.push(row[descCol] ?? "");
    if (!top && descCol < 0) parts.push(...row.filter((_, i) => i !== titleCol && !scoreCols.includes(i)));
    if (pointsCol >= 0 && pointsCol !== descCol && cellPoints(row[pointsCol] ?? "") === null) parts.push(row[pointsCol] ?? "");
    // Level columns with values are the criterion's scale when its points are the top level's. Cells that open with
    // their own points ("10 points: five sources") give this row's scale, whatever the header says.
    const ownValues = cellValues(
      levels.map((l) => row[l.index] ?? ""),
      levels.map((l) => l.value),
    );
    const rowScale = isLevelTable && ownValues.length >= 2 && ownValues.every((v) => v >= 0) && new Set(ownValues).size === ownValues.length;
    if (rowScale) points = Math.max(...ownValues);
    const valued = rowScale ? levels.map((l, i) => ({ ...l, value: ownValues[i] })) : levels.filter((l) => l.value !== null);
    const scale =
      isLevelTable && valued.length >= 2 && new Set(valued.map((l) => l.value)).size === valued.length && (rowScale || points === levelMax)
        ? valued
            .map((l) => ({ value: l.value as number, descriptor: [header[l.index], row[l.index]].filter(Boolean).join(": ") }))
            .sort((a, b) => a.value - b.value)
        : undefined;
    // ("No", "Optional", "Desirable", "If applicable": a row a contract may lack.)
    const mark = row[requiredCol]?.trim() ?? "";
    // ("Essential (E) or Desirable (D)" over "E" and "D": a "D" row is desirable.)
    const desirable = /desirable|^e\s*\/\s*d$/i.test(header[requiredCol]?.trim() ?? "") && /^d$/i.test(mark);
    // ("⭐ Challenge | add a 'Top tip'" beside numbered "I can" rows: an extra a pupil may leave out.)
    const extra = titleCol > 0 && /^(?:[⭐★*]\s*)?(?:challenge|extension|extra|bonus)\b/i.test(row[0]?.trim() ?? "");
    // ("Required | Optional" columns to tick: a tick under "Optional" is an optional row.)
    const tickedOptional = optionalCol >= 0 && /^(?:[✓✔☑xX]|yes|y)$/i.test(row[optionalCol]?.trim() ?? "") && !/^(?:[✓✔☑xX]|yes|y)$/i.test(mark);
    const optional =
      extra ||
      tickedOptional ||
      (requiredCol >= 0 && (/^(?:no|n|should|could)$/i.test(mark) || desirable || (OPTIONAL_SECTION.test(mark) && mark.split(/\s+/).length <= 4)));
    const rated = ratings
      .filter((i) => (row[i] ?? "").trim() !== "" && Number.isFinite(Number(row[i])))
      .map((i) => ({ value: Number(row[i]), descriptor: [row[i - 2], row[i - 1]].filter(Boolean).join(": ") }))
      .sort((a, b) => a.value - b.value);
    const exported = rated.length >= 2 && new Set(rated.map((l) => l.value)).size === rated.length ? rated : undefined;
    // A rating the header states as a range ("Rating (1–5)", "Score 0-4") over a cell left to fill: its whole numbers.
    // A column listing the row's levels, "15 excellent / 11 good / 6 weak / 0 missing".
    const listed = levelsCol >= 0 ? listedLevels(row[levelsCol] ?? "") : null;
    if (listed) points = listed[listed.length - 1].value;
    const ownRange = scaleCol >= 0 ? RATING_RANGE.exec(row[scaleCol] ?? "") : null;
    if (ownRange) points = Number(ownRange[2]);
    const range =
      ownRange ??
      (stated && (toRate || cellPoints(row[pointsCol] ?? "") === null) && points === Number(stated[1]) ? RATING_RANGE.exec(header[pointsCol]) : null);
    const ratingScale =
      range && Number(range[2]) <= 10
        ? Array.from({ length: Number(range[2]) - Number(range[1]) + 1 }, (_, i) => ({ value: Number(range[1]) + i, descriptor: "" }))
        : undefined;
    const description = parts.filter(Boolean).join("\n");
    // ("A.P1 | Describe the target market …": the code, then the first words of what it asks.)
    const words = description.split(/\s+/).filter(Boolean);
    const candidate: Candidate = {
      title: CODE_ONLY.test(title) && words.length > 0 ? `${title} ${tidyTitle(words.slice(0, 8).join(" "))}${words.length > 8 ? "…" : ""}` : title,
      description,
      points: exported ? exported[exported.length - 1].value : points,
      levels: exported ?? listed ?? scale ?? ratingScale,
      ...(weight !== undefined ? { weight } : {}),
      ...(optional ? { optional } : {}),
    };
    out.push(candidate);
    // (A row worth nothing, "Testing | Poor | 0 | No testing", is a level worth nothing if its name has others.)
    if (pointsCol >= 0 && /^\s*0(?:\.0+)?\s*(?:points?|pts?|marks?)?\s*$/i.test(row[pointsCol] ?? "")) zeroRows.add(candidate);
  }
  // A table of levels, one row each under its criterion's name ("criterion,level,points,descriptor", as a database or a
  // form tool exports it): the rows of one name are one criterion, their points its levels.
  const grouped: Candidate[] = [];
  for (const c of out) {
    const last = grouped.at(-1);
    const prev = last && last.title === c.title ? last : null;
    if (!prev) {
      grouped.push(c);
      continue;
    }
    const levelsOf = (x: Candidate) => {
      const value = zeroRows.has(x) ? 0 : x.points;
      return x.levels ?? (value !== null ? [{ value, descriptor: x.description }] : []);
    };
    const levels = [...levelsOf(prev), ...levelsOf(c)];
    grouped[grouped.length - 1] = {
      ...prev,
      points: Math.max(...levels.map((l) => l.value)),
      levels,
      description: [prev.description, c.description].join("\n"),
    };
  }
  if (grouped.length < out.length && grouped.every((c) => !c.levels || new Set(c.levels.map((l) => l.value)).size === c.levels.length)) {
    out.splice(0, out.length, ...grouped.map((c) => (c.levels ? { ...c, levels: [...c.levels].sort((a, b) => a.value - b.value) } : c)));
  }
  // A two-column table without points and with one-word "descriptions" is a key/value list, not a rubric; a checklist
  // ("Requirement | Yes | No") states each criterion in its title, under a header that names them so, or beside
  // columns to tick ("Clause | Present (Y/N)", "Item | Yes | No | N/A": then "Term" is one).
  const ticked = header.some((h, i) => i !== titleCol && ANSWER_COLUMN.test(h));
  const checklist = HEADER_TITLE.test(header[titleCol] ?? "") && out.length >= 2 && (ticked || out.every((c) => c.title.split(/\s+/).length >= 3));
  return checklist || out.some((c) => c.points !== null || c.description.length > 20) ? out : [];
}
