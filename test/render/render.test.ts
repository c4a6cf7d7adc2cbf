// Renders an evaluation (and a generic output) in every format and reads each file back with an independent reader.
import { describe, expect, test } from "bun:test";
import ExcelJS from "exceljs";
import { unzipSync } from "fflate";
import mammoth from "mammoth";
import Papa from "papaparse";
import type { Evaluation, OutputFormat } from "../../src/engine/types";
import { formatLocation } from "../../src/lib/location";
import { isEvaluation, type RenderMeta, render } from "../../src/render";
import { guardFormula } from "../../src/render/csv";

// Evidence points at real corpus documents (names and phrases from test/fixtures/corpus/manifest.json).
const RATIONALE_TRICKY = 'Lists "Mötley Crüe", "Bring Me The Horizon", and others;\nthe second day is "TBA", so, partial credit.';

const evaluation: Evaluation = {
  summary: "The line-up review is mostly complete: 日本語 notes included, Mötley Crüe confirmed.",
  score: 82,
  verdict: "pass",
  criteria: [
    {
      id: "c1",
      title: "Headliners named",
      score: 8.5,
      max_score: 10,
      rationale: RATIONALE_TRICKY,
      evidence: [
        { document_id: "doc_pdf", quote: "Mötley Crüe", location: { page: 3 } },
        { document_id: "doc_pdf", quote: "Bring Me The Horizon", location: { page: 1 } },
      ],
    },
    {
      id: "c2",
      title: "日本語の要約 | summary in Japanese",
      score: 4,
      max_score: 5,
      rationale: "@team: the slides cover it.",
      evidence: [{ document_id: "doc_pptx", quote: "Here is a numbered list", location: { slide: 2 } }],
    },
    {
      id: "c3",
      title: "=SUM(A1:A3) totals add up",
      score: 3,
      max_score: 10,
      rationale: "-2 points: the squares sheet stops early.",
      evidence: [{ document_id: "doc_xlsx", quote: "Numbers and their Squares", location: { sheet: "Scores", row: 4 } }],
    },
    {
      id: "c4",
      title: "Sources cited",
      score: 0,
      max_score: 5,
      rationale: "No citation found.",
      evidence: [],
    },
  ],
};

const meta: RenderMeta = {
  title: "=Festival line-up review",
  workflowName: "Line-up check",
  runId: "run_01HZX",
  generatedAt: new Date("2025-03-01T10:15:30Z"),
  documents: [
    { id: "doc_pdf", name: "pdfjs-issue840.pdf" },
    { id: "doc_pptx", name: "tika-testPPT-various.pptx" },
    { id: "doc_xlsx", name: "tika-testEXCEL.xlsx" },
  ],
};

const generic = {
  candidate: "Mötley Crüe",
  total: 42,
  passed: true,
  notes: null,
  tags: ["rock", "日本語"],
  details: { stage: "Main", day: 1 },
  empty: [{}],
  items: [
    { name: "日本語", qty: 2 },
    { name: "=cmd|' /C calc'!A0", qty: 3, extra: 'say "hi", then\nleave' },
  ],
};

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes); // strips a UTF-8 BOM

async function docxText(bytes: Uint8Array): Promise<string> {
  return (await mammoth.extractRawText({ buffer: Buffer.from(bytes) })).value;
}

async function loadXlsx(bytes: Uint8Array): Promise<ExcelJS.Workbook> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(Buffer.from(bytes) as unknown as ArrayBuffer);
  return wb;
}

function parseCsv(bytes: Uint8Array): string[][] {
  const result = Papa.parse<string[]>(decode(bytes), { skipEmptyLines: true });
  expect(result.errors).toEqual([]);
  return result.data;
}

/** The CSV text with quoted fields removed: what remains are separators and record ends only. */
function outsideQuotes(csv: string): string {
  return csv.replace(/"(?:[^"]|"")*"/g, "");
}

describe("formatLocation", () => {
  test.each([
    [{ page: 3 }, "p. 3"],
    [{ slide: 2 }, "slide 2"],
    [{ sheet: "Scores", row: 4 }, "sheet Scores, row 4"],
    [{ row: 7 }, "row 7"],
    [{ heading: "Introduction" }, "“Introduction”"],
    [{ page: 2, section: "footnotes" }, "p. 2, footnotes"],
    [{}, ""],
  ])("%o -> %p", (location, expected) => {
    expect(formatLocation(location)).toBe(expected);
  });
});

describe("isEvaluation", () => {
  test("accepts the standard evaluation object", () => {
    expect(isEvaluation(evaluation)).toBe(true);
    expect(isEvaluation(JSON.parse(JSON.stringify(evaluation)))).toBe(true);
  });
  test.each([
    ["an arbitrary object", generic],
    ["an unknown verdict", { ...evaluation, verdict: "maybe" }],
    ["a score given as text", { ...evaluation, score: "82" }],
    ["a criterion without evidence", { ...evaluation, criteria: [{ ...evaluation.criteria[0], evidence: undefined }] }],
    ["an array", [evaluation]],
    ["null", null],
  ])("rejects %s", (_name, value) => {
    expect(isEvaluation(value)).toBe(false);
  });
});

describe("render: file types", () => {
  test.each([
    ["json", "application/json", "json"],
    ["markdown", "text/markdown", "md"],
    ["csv", "text/csv", "csv"],
    ["docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx"],
    ["xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx"],
  ] as [OutputFormat, string, string][])("%s -> %s, .%s", async (format, mime, ext) => {
    const file = await render(format, evaluation, meta);
    expect(file.mime_type).toBe(mime);
    expect(file.extension).toBe(ext);
    expect(file.bytes.length).toBeGreaterThan(0);
  });
});

describe("render: evaluation", () => {
  test("json parses back to the same object", async () => {
    const file = await render("json", evaluation, meta);
    expect(JSON.parse(decode(file.bytes))).toEqual(evaluation);
    expect(decode(file.bytes)).toContain("Mötley Crüe"); // UTF-8, not \u escapes
  });

  test("markdown is a readable report", async () => {
    const md = decode((await render("markdown", evaluation, meta)).bytes);
    expect(md.startsWith("# =Festival line-up review\n")).toBe(true);
    expect(md).toContain("**Verdict:** Pass");
    expect(md).toContain("**Score:** 82/100");
    expect(md).toContain(evaluation.summary);
    for (const c of evaluation.criteria) expect(md).toContain(`### ${c.title} (${c.score} / ${c.max_score})`);
    // In the criteria table a pipe in a title is escaped so it does not split the column.
    expect(md).toContain("| c2 | 日本語の要約 \\| summary in Japanese | 4 / 5 | 1 |");
    expect(md).toContain(RATIONALE_TRICKY);
    expect(md).toContain("> Mötley Crüe\n>\n> — pdfjs-issue840.pdf, p. 3");
    expect(md).toContain("> — tika-testPPT-various.pptx, slide 2");
    expect(md).toContain("> — tika-testEXCEL.xlsx, sheet Scores, row 4");
    expect(md).toContain("Run: `run_01HZX`");
  });

  test("docx is a Word file with the report and a criteria table", async () => {
    const file = await render("docx", evaluation, meta);
    const zip = unzipSync(file.bytes);
    expect(Object.keys(zip)).toContain("word/document.xml");
    expect(Object.keys(zip)).toContain("[Content_Types].xml");
    const xml = decode(zip["word/document.xml"]!);
    expect(xml).toContain("<w:tbl>");
    expect(xml).toContain("<w:tblHeader/>");

    const text = await docxText(file.bytes);
    expect(text).toContain("=Festival line-up review");
    expect(text).toContain(evaluation.summary);
    expect(text).toContain("82/100");
    expect(text).toContain("Pass");
    for (const header of ["Criterion", "Score", "Rationale", "Evidence"]) expect(text).toContain(header);
    for (const c of evaluation.criteria) {
      expect(text).toContain(c.title);
      expect(text).toContain(`${c.score} / ${c.max_score}`);
    }
    // The rationale's newline is a line break inside its cell: both lines survive.
    for (const line of RATIONALE_TRICKY.split("\n")) expect(text).toContain(line);
    expect(text).toContain("“Mötley Crüe” (pdfjs-issue840.pdf, p. 3)");
    expect(text).toContain("“Numbers and their Squares” (tika-testEXCEL.xlsx, sheet Scores, row 4)");
  });

  test("xlsx has a typed Summary sheet and a Criteria sheet", async () => {
    const file = await render("xlsx", evaluation, meta);
    const wb = await loadXlsx(file.bytes);
    expect(wb.worksheets.map((w) => w.name)).toEqual(["Summary", "Criteria"]);

    const summary = wb.getWorksheet("Summary")!;
    const pairs = new Map<string, ExcelJS.Cell>();
    summary.eachRow((row) => pairs.set(String(row.getCell(1).value), row.getCell(2)));
    expect(pairs.get("Title")!.value).toBe("=Festival line-up review");
    expect(pairs.get("Title")!.type).toBe(ExcelJS.ValueType.String); // text, not a formula
    expect(pairs.get("Verdict")!.value).toBe("pass");
    expect(pairs.get("Score")!.value).toBe(82);
    expect(pairs.get("Score")!.type).toBe(ExcelJS.ValueType.Number);
    expect(pairs.get("Summary")!.value).toBe(evaluation.summary);
    expect(pairs.get("Workflow")!.value).toBe("Line-up check");
    expect(pairs.get("Run")!.value).toBe("run_01HZX");
    const generated = pairs.get("Generated")!;
    expect(generated.type).toBe(ExcelJS.ValueType.Date);
    expect((generated.value as Date).toISOString()).toBe("2025-03-01T10:15:30.000Z");

    const sheet = wb.getWorksheet("Criteria")!;
    expect(sheet.getRow(1).values).toEqual([undefined, "id", "title", "score", "max_score", "rationale", "evidence"]);
    expect(sheet.getRow(1).getCell(1).font?.bold).toBe(true);
    expect(sheet.views[0]).toMatchObject({ state: "frozen", ySplit: 1 });
    expect(sheet.getColumn(5).width).toBeGreaterThanOrEqual(40);
    expect(sheet.rowCount).toBe(1 + evaluation.criteria.length);
    evaluation.criteria.forEach((c, i) => {
      const row = sheet.getRow(i + 2);
      expect(row.getCell(1).value).toBe(c.id);
      expect(row.getCell(2).value).toBe(c.title);
      expect(row.getCell(2).type).toBe(ExcelJS.ValueType.String);
      expect(row.getCell(3).value).toBe(c.score);
      expect(row.getCell(3).type).toBe(ExcelJS.ValueType.Number);
      expect(row.getCell(4).value).toBe(c.max_score);
      expect(row.getCell(5).value).toBe(c.rationale);
      for (const e of c.evidence) expect(String(row.getCell(6).value ?? "")).toContain(e.quote);
    });
    expect(sheet.getRow(2).getCell(6).value).toBe("“Mötley Crüe” (pdfjs-issue840.pdf, p. 3)\n“Bring Me The Horizon” (pdfjs-issue840.pdf, p. 1)");

    // No cell anywhere in the package is a formula.
    const zip = unzipSync(file.bytes);
    const sheets = Object.keys(zip).filter((p) => p.startsWith("xl/worksheets/sheet"));
    expect(sheets.length).toBe(2);
    for (const p of sheets) expect(decode(zip[p]!)).not.toMatch(/<f[ >]/);
  });

  test("csv is RFC 4180 with a BOM, CRLF records and exact fields", async () => {
    const file = await render("csv", evaluation, meta);
    expect([...file.bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const raw = decode(file.bytes);
    const structure = outsideQuotes(raw);
    expect(structure).not.toMatch(/[^\r]\n|\r[^\n]/); // every record ends with CRLF
    expect(raw.endsWith("\r\n")).toBe(true);
    // A field with a quote, comma or newline is quoted, with quotes doubled.
    expect(raw).toContain(`"Lists ""Mötley Crüe"", ""Bring Me The Horizon"", and others;\nthe second day`);

    const rows = parseCsv(file.bytes);
    expect(rows[0]).toEqual(["criterion_id", "title", "score", "max_score", "rationale", "evidence"]);
    expect(rows.length).toBe(1 + evaluation.criteria.length);
    expect(rows[1]).toEqual([
      "c1",
      "Headliners named",
      "8.5",
      "10",
      RATIONALE_TRICKY,
      "“Mötley Crüe” (pdfjs-issue840.pdf, p. 3)\n“Bring Me The Horizon” (pdfjs-issue840.pdf, p. 1)",
    ]);
    expect(rows[2]![1]).toBe("日本語の要約 | summary in Japanese");
    expect(rows[4]).toEqual(["c4", "Sources cited", "0", "5", "No citation found.", ""]);
    // Formula guard: text starting with = @ - gets a leading apostrophe.
    expect(rows[3]![1]).toBe("'=SUM(A1:A3) totals add up");
    expect(rows[2]![4]).toBe("'@team: the slides cover it.");
    expect(rows[3]![4]).toBe("'-2 points: the squares sheet stops early.");
  });

  test("guardFormula follows OWASP's list of dangerous first characters", () => {
    for (const t of ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"]) expect(guardFormula(t)).toBe(`'${t}`);
    for (const t of ["plain", "a=b", " =1", "", "'quoted"]) expect(guardFormula(t)).toBe(t);
  });

  test("characters XML forbids do not break docx or xlsx", async () => {
    const dirty: Evaluation = { ...evaluation, summary: "bell\u0007 and\u0000null\uFFFE kept out" };
    // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters the test looks for
    const forbidden = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
    const docx = await render("docx", dirty, meta);
    expect(decode(unzipSync(docx.bytes)["word/document.xml"]!)).not.toMatch(forbidden);
    expect(await docxText(docx.bytes)).toContain("bell and" + "null kept out");
    const xlsx = await render("xlsx", dirty, meta);
    expect(decode(unzipSync(xlsx.bytes)["xl/sharedStrings.xml"]!)).not.toMatch(forbidden);
    const wb = await loadXlsx(xlsx.bytes);
    const values: unknown[] = [];
    wb.getWorksheet("Summary")!.eachRow((row) => values.push(row.getCell(2).value));
    expect(values).toContain("bell andnull kept out");
  });
});

describe("render: generic output (own output_schema)", () => {
  test("json parses back to the same object", async () => {
    expect(JSON.parse(decode((await render("json", generic, meta)).bytes))).toEqual(generic);
  });

  test("markdown shows fields as a table and arrays of objects as tables", async () => {
    const md = decode((await render("markdown", generic, meta)).bytes);
    expect(md).toContain("| candidate | Mötley Crüe |");
    expect(md).toContain("| total | 42 |");
    expect(md).toContain('| tags | ["rock","日本語"] |');
    expect(md).toContain('| details | {"stage":"Main","day":1} |');
    expect(md).toContain("## items");
    expect(md).toContain("| name | qty | extra |");
    expect(md).toContain("| 日本語 | 2 |   |");
    expect(md).toContain("| =cmd\\|' /C calc'!A0 | 3 | say \"hi\", then<br>leave |");
  });

  test("docx holds every field and table cell", async () => {
    const file = await render("docx", generic, meta);
    expect(Object.keys(unzipSync(file.bytes))).toContain("word/document.xml");
    const text = await docxText(file.bytes);
    for (const s of [
      "candidate",
      "Mötley Crüe",
      "42",
      "true",
      '["rock","日本語"]',
      '{"stage":"Main","day":1}',
      "items",
      "日本語",
      "extra",
      "=cmd|' /C calc'!A0",
    ]) {
      expect(text).toContain(s);
    }
  });

  test("xlsx keeps types: numbers, booleans, text; arrays of objects get their own sheet", async () => {
    const wb = await loadXlsx((await render("xlsx", generic, meta)).bytes);
    expect(wb.worksheets.map((w) => w.name)).toEqual(["Summary", "items"]);
    const pairs = new Map<string, unknown>();
    wb.getWorksheet("Summary")!.eachRow((row) => pairs.set(String(row.getCell(1).value), row.getCell(2).value));
    expect(pairs.get("candidate")).toBe("Mötley Crüe");
    expect(pairs.get("total")).toBe(42);
    expect(pairs.get("passed")).toBe(true);
    expect(pairs.get("tags")).toBe('["rock","日本語"]');
    expect(pairs.has("notes")).toBe(true);

    const items = wb.getWorksheet("items")!;
    expect(items.getRow(1).values).toEqual([undefined, "name", "qty", "extra"]);
    expect(items.getRow(2).getCell(2).value).toBe(2);
    expect(items.getRow(3).getCell(1).value).toBe("=cmd|' /C calc'!A0");
    expect(items.getRow(3).getCell(1).type).toBe(ExcelJS.ValueType.String);
    expect(items.getRow(3).getCell(3).value).toBe('say "hi", then\nleave');
    expect(items.views[0]).toMatchObject({ state: "frozen", ySplit: 1 });
  });

  test("csv flattens to field,value rows without losing a value", async () => {
    const rows = parseCsv((await render("csv", generic, meta)).bytes);
    expect(rows[0]).toEqual(["field", "value"]);
    const byField = new Map(rows.slice(1).map(([k, v]) => [k, v]));
    expect(byField.get("candidate")).toBe("Mötley Crüe");
    expect(byField.get("total")).toBe("42");
    expect(byField.get("notes")).toBe("");
    expect(byField.get("details")).toBe('{"stage":"Main","day":1}');
    expect(byField.get("empty")).toBe("[{}]");
    expect(byField.get("items[0].name")).toBe("日本語");
    expect(byField.get("items[1].name")).toBe("'=cmd|' /C calc'!A0");
    expect(byField.get("items[1].extra")).toBe('say "hi", then\nleave');
  });

  test("xlsx sheet names are made valid and unique", async () => {
    const value = { summary: [{ a: 1 }], "scores/by:team*?[all] of the very long names": [{ b: 2 }] };
    const wb = await loadXlsx((await render("xlsx", value, meta)).bytes);
    const names = wb.worksheets.map((w) => w.name);
    expect(names[0]).toBe("Summary");
    expect(names.length).toBe(3);
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(3);
    for (const n of names) expect(n).toMatch(/^[^:\\/?*[\]]{1,31}$/);
    expect(wb.worksheets[2]!.getRow(2).getCell(1).value).toBe(2);
  });

  test("xlsx cuts text over Excel's 32,767-character cell limit", async () => {
    const long: Evaluation = { ...evaluation, criteria: [{ ...evaluation.criteria[0]!, rationale: "x".repeat(40_000) }] };
    const wb = await loadXlsx((await render("xlsx", long, meta)).bytes);
    const text = String(wb.getWorksheet("Criteria")!.getRow(2).getCell(5).value);
    expect(text.length).toBeLessThanOrEqual(32_767);
    expect(text.endsWith("(truncated)")).toBe(true);
  });

  test("csv of an output that is one list of objects is that table", async () => {
    const rows = parseCsv((await render("csv", { rows: generic.items }, meta)).bytes);
    expect(rows).toEqual([
      ["name", "qty", "extra"],
      ["日本語", "2", ""],
      ["'=cmd|' /C calc'!A0", "3", 'say "hi", then\nleave'],
    ]);
  });

  test("an evaluation-like object missing criteria gets the generic layout", async () => {
    const partial = { summary: "s", score: 50, verdict: "fail" };
    const rows = parseCsv((await render("csv", partial, meta)).bytes);
    expect(rows).toEqual([
      ["field", "value"],
      ["summary", "s"],
      ["score", "50"],
      ["verdict", "fail"],
    ]);
  });
});
