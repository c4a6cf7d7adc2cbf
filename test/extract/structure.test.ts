// The structure evaluation relies on: page counts, and sections located by page, slide, sheet, heading or path.
import { describe, expect, test } from "bun:test";
import { Document, Packer, Paragraph, Table, TableCell, TableRow } from "docx";
import { zipSync } from "fflate";
import { extract } from "../../src/extract/index.ts";
import { readSheetXml } from "../../src/extract/xlsx.ts";
import { readPackage } from "../../src/extract/zip.ts";
import { STRONG_ESSAY, STRONG_LETTER } from "../engine/fixtures.ts";
import { corpusBytes, makePdf, textPage } from "./helpers.ts";

const read = async (file: string) => extract(await corpusBytes(file), { filename: file.split("/").pop() });
const utf8 = (s: string) => new TextEncoder().encode(s);

describe("page_count", () => {
  const cases: Array<[string, number | null]> = [
    ["pdf/tika-testPDF.pdf", 1],
    ["pdf/pdfjs-file-pdfjs-test.pdf", 5],
    ["pdf/tika-testPDF-bad-page-303226.pdf", 19],
    ["pdf/tika-testPDF-protected.pdf", 41],
    ["pptx/tika-testPPT.pptx", 3],
    ["pptx/tika-testPPT-various2.pptx", 10],
    ["xlsx/tika-testEXCEL.xlsx", 3],
    ["xlsx/tika-testEXCEL-strict.xlsx", 3],
    ["xls/tika-testEXCEL.xls", 3],
    ["docx/tika-testWORD.docx", null],
    ["csv/tika-testCSV.csv", null],
  ];
  for (const [file, pages] of cases) test(`${file} has ${pages} pages`, async () => expect((await read(file)).page_count).toBe(pages));
});

describe("sections", () => {
  test("PDF: one section per page, in order", async () => {
    const doc = await extract(makePdf([textPage("Alpha page"), textPage("Beta page"), textPage("Gamma page")]), {});
    expect(doc.sections).toEqual([
      { location: { page: 1 }, text: "Alpha page" },
      { location: { page: 2 }, text: "Beta page" },
      { location: { page: 3 }, text: "Gamma page" },
    ]);
    expect(doc.text).toBe("Alpha page\n\nBeta page\n\nGamma page");
  });

  test("PDF: list bullets drawn with the Symbol font (private-use U+F0B7, as Word and LibreOffice write them) read as '•'", async () => {
    const file = "story-traits.pdf";
    const doc = await extract(await Bun.file(new URL(`../fixtures/rubrics/${file}`, import.meta.url)).bytes(), { filename: file });
    expect(doc.text).not.toMatch(/[\uF000-\uF0FF]/);
    expect(doc.text).toContain("• 3: A focused story with vivid, specific details.");
  });

  test("PDF: a table reads as rows of ' | ' cells, wrapped cells whole; the text around it as before", async () => {
    const rubric = "argument-levels-table.pdf";
    const doc = await extract(await Bun.file(new URL(`../fixtures/rubrics/${rubric}`, import.meta.url)).bytes(), { filename: rubric });
    expect(doc.text).toContain("Write an essay arguing whether schools should start later in the morning.\nCriteria\n");
    expect(doc.text).toContain("Criterion | Excellent (4) | Good (3) | Fair (2) | Poor (1)\n");
    expect(doc.text).toContain(
      "Counterargument | Names and answers an opposing view convincingly. | Names an opposing view and answers it. | Mentions an opposing view. | None.",
    );
    const various = await read("pdf/tika-testPDFVarious.pdf");
    expect(various.text).toContain("Row 1 Col 1 | Row 1 Col 2 | Row 1 Col 3\nRow 2 Col 1 | Row 2 Col 2 | Row 2 Col 3");
    // Words PDFium hands over in two runs stay one word.
    expect(various.text).toContain("Suddenly some Japanese text");
  });

  test("PDF: paragraphs set apart by white or by a first-line indent come out as paragraphs, a blank line between", async () => {
    // PDFium's text breaks every line and marks no paragraph: an essay of five paragraphs read as one block.
    const blocks = (text: string) =>
      text
        .split(/\n\s*\n/)
        .map((b) => b.replace(/\s+/g, " ").trim())
        .filter(Boolean);
    for (const [name, text] of [
      ["strong-letter", STRONG_LETTER],
      ["strong-essay", STRONG_ESSAY],
    ]) {
      for (const file of [`${name}.pdf`, `${name}-chromium.pdf`, `${name}-indent.pdf`, `${name}-double.pdf`]) {
        const doc = await extract(await Bun.file(new URL(`../fixtures/essays/${file}`, import.meta.url)).bytes(), { filename: file });
        expect([file, blocks(doc.text)]).toEqual([file, blocks(text)]);
      }
    }
  });

  test("PDF: a hyphen that ends a line inside a word is a hyphen (PDFium marks it U+FFFE, which is no character)", async () => {
    const doc = await read("pdf/tika-testPDF-protected.pdf");
    expect(doc.text).not.toContain("\uFFFE");
    expect(doc.text).toContain("neither self-regulating");
    expect(doc.text).toContain("degradation of eco-systems");
    // Inside a table's cell too, where the cell's lines are joined.
    const file = "merged-header-table.pdf";
    const table = await extract(await Bun.file(new URL(`../fixtures/rubrics/${file}`, import.meta.url)).bytes(), { filename: file });
    expect(table.text).toContain("| Three or more well-developed reasons with evidence. |");
  });

  test("PPTX: slides with their titles, and speaker notes as their own sections", async () => {
    const doc = await read("pptx/tika-testPPT-various2.pptx");
    const slide3 = doc.sections.filter((s) => s.location.slide === 3);
    expect(slide3[0].location).toEqual({ slide: 3, heading: "Slide3Header" });
    expect(slide3[0].text).toContain("This is some WordART");
    expect(slide3.find((s) => s.location.section === "notes")?.text).toBe("Notes for slide3");
    // Slide numbers and dates are layout chrome, not slide text.
    expect(slide3[0].text).not.toContain("12/16/2016");
    const inherit = await read("pptx/pptx-ph-inherit-props.pptx");
    expect(inherit.sections.filter((s) => s.location.section === "notes").map((s) => s.location.slide)).toEqual([1, 2]);
  });

  test("PPTX: text in grouped shapes and SmartArt is found", async () => {
    const doc = await read("pptx/tika-testPPT-groups.pptx");
    for (const phrase of ["Text box1", "Text box5 tika link", "WordArt2", "smart4"]) expect(doc.text).toContain(phrase);
  });

  test("XLSX: one section per non-empty sheet, rows as ' | ' lines, formulas as cached results", async () => {
    const doc = await read("xlsx/tika-testEXCEL-strict.xlsx");
    expect(doc.sections.map((s) => s.location)).toEqual([{ sheet: "First Sheet" }, { sheet: "Sheet Number 2" }]);
    expect(doc.sections[0].text.split("\n")).toContain("2nd row | 2nd row 2nd column");
    expect(doc.sections[1].text.split("\n")).toContain("1 | 10 | 2 | 13");
  });

  test("XLSX: a number formatted as a percentage reads as one, a formula's result too (a scorecard's weights)", async () => {
    const { default: ExcelJS } = await import("exceljs");
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet("Scorecard");
    ws.addRow(["Competency", "Weight", "Plain"]);
    ws.addRow(["SQL", 0.3, 0.3]);
    ws.addRow(["Total", { formula: "B2*2", result: 0.6 }, 12.5]);
    ws.getColumn(2).numFmt = "0%";
    const doc = await extract(new Uint8Array(await wb.xlsx.writeBuffer()), { filename: "scorecard.xlsx" });
    expect(doc.sections[0].text.split("\n")).toEqual(["Competency | Weight | Plain", "SQL | 30% | 0.3", "Total | 60% | 12.5"]);
  });

  test("XLSX fallback: the sheet XML reader (used when exceljs fails) reads Strict OOXML on its own", async () => {
    const sheets = readSheetXml(readPackage(await corpusBytes("xlsx/tika-testEXCEL-strict.xlsx"), "xlsx"), "xl/workbook.xml");
    expect(sheets.map((s) => s.name)).toEqual(["First Sheet", "Sheet Number 2", "Sheet3"]);
    expect(sheets[0].rows).toContainEqual(["2nd row", "2nd row 2nd column"]);
    expect(sheets[1].rows.flat()).toContain("I'm in bold blue, on a yellow background");
    expect(sheets[1].rows).toContainEqual(["1", "10", "2", "13"]); // cached formula result
  });

  test("XLS: sheets by name", async () => {
    const doc = await read("xls/tika-testEXCEL-labels-govdocs-515858.xls");
    expect(doc.sections[0].location).toEqual({ sheet: "Cabbage and other brassicas" });
    expect(doc.sections[0].text).toContain("Antigua and Barbuda | ");
  });

  test("DOCX: split at headings; tables, lists, footnotes, headers and footers kept", async () => {
    const doc = await read("docx/tika-testWORD.docx");
    const headed = doc.sections.filter((s) => s.location.heading);
    expect(headed.map((s) => s.location.heading)).toEqual(["Main Heading", "Heading Level 1", "Heading Level 2", "Heading Level 3"]);
    // Each heading's depth, for reading a rubric's structure (title, parts, criteria); not part of the API's location.
    expect(headed.map((s) => s.level)).toEqual([1, 1, 2, 3]);
    expect(doc.sections.find((s) => s.location.section === "header")?.text).toBe("This is the header for our document");
    expect(doc.sections.find((s) => s.location.section === "footer")?.text).toBe("This is the footer for our document");

    const various = await read("docx/tika-testWORD-various.docx");
    const lines = various.text.split("\n");
    expect(lines).toContain("Row 2 Col 1 | Row 2 Col 2 | Row 2 Col 3");
    expect(lines).toContain("- Bullet 2");
    expect(various.sections.find((s) => s.location.section === "footnotes")?.text).toBe("[1] This is a footnote.");
  });

  test("DOCX: text boxes in body, header and footer appear once, without drawing coordinates", async () => {
    const doc = await read("docx/tika-testWORD-text-box.docx");
    expect(doc.text.match(/inside of a text box in the body/g)?.length).toBe(1);
    expect(doc.sections.find((s) => s.location.section === "header")?.text).toBe("This text is inside of a text box in the header of the document.");
  });

  test("DOCX: comments are included", async () => {
    const comments = `<?xml version="1.0" encoding="UTF-8"?><w:comments xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:comment w:id="0" w:author="Ann"><w:p><w:r><w:t xml:space="preserve">Check this </w:t></w:r><w:r><w:t>figure</w:t></w:r></w:p></w:comment></w:comments>`;
    const doc = await extract(docxWith({ "word/comments.xml": comments }, "comments"), { filename: "c.docx" });
    expect(doc.sections.find((s) => s.location.section === "comments")?.text).toBe("Ann: Check this figure");
  });

  test("DOCX: a page laid out as a table (a two-column CV) is read a column at a time, a line a paragraph; a data table keeps a row a line", async () => {
    const cell = (lines: string[]) => new TableCell({ children: lines.map((l) => new Paragraph(l)) });
    const sidebar = [
      "Contact",
      "Mira Holt",
      "07700 900123",
      "Skills",
      "- Payroll",
      "- Excel",
      "- Sage 50",
      "Languages",
      "Welsh (fluent)",
      "Driving",
      "Full UK licence",
      "Interests",
    ];
    const body = [
      "Experience",
      "Payroll Officer, Dunmere Council",
      "Apr 2021 – Present",
      "- Monthly payroll for 900 staff",
      "Payroll Assistant, Carrow Ltd",
      "Jan 2018 – Apr 2021",
    ];
    const layout = new Table({ rows: [new TableRow({ children: [cell(sidebar), cell(body)] })] });
    const data = new Table({
      rows: [
        new TableRow({ children: [cell(["Criterion"]), cell(["Level 3"]), cell(["Level 2"])] }),
        new TableRow({ children: [cell(["Ideas"]), cell(["Clearly focused.", "Thoroughly developed."]), cell(["Somewhat focused."])] }),
      ],
    });
    const bytes = new Uint8Array(await Packer.toBuffer(new Document({ sections: [{ children: [layout, new Paragraph("Rubric"), data] }] })));
    const lines = (await extract(bytes, { filename: "cv.docx" })).text.split("\n").filter(Boolean);
    // Before: the whole page was one line, "Contact | Mira Holt | … | Experience Payroll Officer …", a role's dates run
    // into the sidebar's words.
    expect(lines).toContain("Payroll Officer, Dunmere Council");
    expect(lines).toContain("Apr 2021 – Present");
    expect(lines.indexOf("Interests")).toBeLessThan(lines.indexOf("Experience"));
    expect(lines).toContain("Ideas | Clearly focused. Thoroughly developed. | Somewhat focused.");
  });

  test("DOCX: a cell merged across a table's row (a section heading among its rows) keeps the row's separator", async () => {
    const cell = (text: string, columnSpan?: number) => new TableCell({ children: [new Paragraph(text)], ...(columnSpan ? { columnSpan } : {}) });
    const table = new Table({
      rows: [
        new TableRow({ children: [cell("Requirement"), cell("E/D"), cell("Assessed by")] }),
        new TableRow({ children: [cell("Experience", 3)] }),
        new TableRow({ children: [cell("Two years in statutory social work"), cell("E"), cell("A, I")] }),
      ],
    });
    const bytes = new Uint8Array(await Packer.toBuffer(new Document({ sections: [{ children: [table] }] })));
    const lines = (await extract(bytes, { filename: "spec.docx" })).text.split("\n").filter(Boolean);
    // (Before: "Experience" alone, a line of text that broke the table in two.)
    expect(lines).toEqual(["Requirement | E/D | Assessed by", "Experience |", "Two years in statutory social work | E | A, I"]);
  });

  test("Markdown: one section per heading, fenced code is not a heading", async () => {
    const md = "Intro line\n\n# First\ntext one\n```\n# not a heading\n```\nSecond\n------\ntext two\n";
    const doc = await extract(utf8(md), { filename: "a.md" });
    expect(doc.sections.map((s) => s.location)).toEqual([{}, { heading: "First" }, { heading: "Second" }]);
    expect(doc.sections[1].text).toContain("# not a heading");
  });

  test("CSV: rows as lines, header first, quoted commas and newlines kept in their cell", async () => {
    const csv = 'name,comment\n"Smith, Jane","line one\nline two"\n';
    const doc = await extract(utf8(csv), { filename: "a.csv" });
    expect(doc.sections).toEqual([{ location: { row: 1 }, text: "name | comment\nSmith, Jane | line one line two" }]);
  });

  test("JSON: flattened to path: value lines, one section per top-level key, escapes decoded", async () => {
    const doc = await extract(utf8('{"title":"Caf\\u00e9","tags":["a",{"k":true}],"empty":{}}'), { filename: "a.json" });
    expect(doc.sections).toEqual([
      { location: { section: "title" }, text: "title: Café" },
      { location: { section: "tags" }, text: "tags[0]: a\ntags[1].k: true" },
      { location: { section: "empty" }, text: "empty: {}" },
    ]);
  });

  test("XML data: path: value lines by local name, entities and CDATA decoded, comments dropped", async () => {
    const xml = `<?xml version="1.0"?><!-- note --><r:root xmlns:r="urn:x"><r:item><r:title>Fish &amp; chips &#233;t&#xE9;</r:title><r:body><![CDATA[a <raw> &amp; b]]></r:body></r:item></r:root>`;
    const doc = await extract(utf8(xml), { filename: "a.xml" });
    expect(doc.sections).toEqual([{ location: { section: "r:root/r:item" }, text: "item.title: Fish & chips été\nitem.body: a <raw> &amp; b" }]);
  });

  test("XML data: attributes are fields too, repeated records are numbered, indentation is not text", async () => {
    // Before, attributes were dropped: a rubric's criterion names and points ("<criterion name=… points=…>") were lost.
    const xml = `<?xml version="1.0"?>
<rubric title="Oral Presentation" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="r.xsd">
  <criterion name="Content" points="40">
    <level score="40">Accurate and
      thorough.</level>
    <level score="10">Superficial.</level>
  </criterion>
  <criterion name="Delivery" points="30"><level score="30">Clear.</level><empty/></criterion>
  <owner><name>Ann Lee</name></owner>
</rubric>`;
    const doc = await extract(utf8(xml), { filename: "r.xml" });
    expect(doc.sections.map((s) => s.text)).toEqual([
      "title: Oral Presentation",
      "criterion[0].name: Content\ncriterion[0].points: 40\ncriterion[0].level[0].score: 40\ncriterion[0].level[0].text: Accurate and\nthorough.\ncriterion[0].level[1].score: 10\ncriterion[0].level[1].text: Superficial.",
      "criterion[1].name: Delivery\ncriterion[1].points: 30\ncriterion[1].level.score: 30\ncriterion[1].level.text: Clear.",
      "owner.name: Ann Lee",
    ]);
  });

  test("XML documents (words mixed with markup) keep their text as written", async () => {
    const xml = `<?xml version="1.0"?><article><title>On tides</title><section id="s1"><para>The <emphasis>moon</emphasis> pulls the sea.</para><para>Twice a day.</para></section></article>`;
    const doc = await extract(utf8(xml), { filename: "a.xml" });
    expect(doc.sections).toEqual([
      { location: { section: "article" }, text: "On tides" },
      { location: { section: "article/section[s1]" }, text: "The moon pulls the sea.\nTwice a day." },
    ]);
  });

  test("TXT: Latin-1 bytes are decoded when the file is not UTF-8, and a UTF-8 BOM is dropped", async () => {
    const latin1 = new Uint8Array([0x6e, 0xe3, 0x6f, 0x20, 0x63, 0x61, 0x66, 0xe9]);
    expect((await extract(latin1, { filename: "a.txt" })).text).toBe("não café");
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8("héllo")]);
    expect((await extract(bom, { filename: "a.txt" })).text).toBe("héllo");
  });
});

/** A minimal DOCX (document.xml plus one extra part wired into the document's relationships). */
export function docxWith(extra: Record<string, string>, relType: string): Uint8Array {
  const w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
  const rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
  const [extraPath] = Object.keys(extra);
  const files: Record<string, string> = {
    "[Content_Types].xml": `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
    "_rels/.rels": `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/officeDocument" Target="word/document.xml"/></Relationships>`,
    "word/document.xml": `<?xml version="1.0"?><w:document xmlns:w="${w}"><w:body><w:p><w:r><w:t>Body text</w:t></w:r></w:p></w:body></w:document>`,
    "word/_rels/document.xml.rels": `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId9" Type="${rel}/${relType}" Target="${extraPath.replace("word/", "")}"/></Relationships>`,
    ...extra,
  };
  return zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, utf8(v)])));
}
