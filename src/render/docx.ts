// DOCX renderer (docx package): title, overall score and verdict, summary, and a criteria table; or the generic layout as tables.
import { Document, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow, TextRun, WidthType } from "docx";
import type { Evaluation, RenderedFile } from "../engine/types";
import { evidenceSource, generatedAt, isEvaluation, type RenderMeta, verdictLabel, xmlSafe } from "./common";
import { type GenericModel, scalarText, toGenericModel } from "./generic";

/** Text width of an A4 page with the docx package's default 1-inch margins, in twips; tables fill it. */
const CONTENT_WIDTH = 9026;

export async function renderDocx(value: unknown, meta: RenderMeta): Promise<RenderedFile> {
  const body = isEvaluation(value) ? evaluationBody(value, meta) : genericBody(toGenericModel(value));
  const doc = new Document({
    creator: "Assay",
    title: xmlSafe(meta.title),
    description: meta.workflowName ? xmlSafe(meta.workflowName) : undefined,
    sections: [{ children: [new Paragraph({ heading: HeadingLevel.TITLE, children: runs(meta.title) }), ...metaParagraphs(meta), ...body] }],
  });
  return {
    bytes: new Uint8Array(await Packer.toArrayBuffer(doc)),
    mime_type: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    extension: "docx",
  };
}

function evaluationBody(ev: Evaluation, meta: RenderMeta): (Paragraph | Table)[] {
  const out: (Paragraph | Table)[] = [
    new Paragraph({
      children: [
        new TextRun({ text: "Overall score: ", bold: true }),
        new TextRun(`${ev.score}/100`),
        new TextRun({ text: "    Verdict: ", bold: true }),
        new TextRun(verdictLabel(ev.verdict)),
      ],
    }),
    new Paragraph({ heading: HeadingLevel.HEADING_1, text: "Summary" }),
    ...paragraphs(ev.summary),
  ];
  if (ev.criteria.length === 0) return out;
  out.push(new Paragraph({ heading: HeadingLevel.HEADING_1, text: "Criteria" }));
  const header = headerRow(["Criterion", "Score", "Rationale", "Evidence"]);
  const rows = ev.criteria.map(
    (c) =>
      new TableRow({
        children: [
          new TableCell({ children: paragraphs(c.title) }),
          new TableCell({ children: paragraphs(`${c.score} / ${c.max_score}`) }),
          new TableCell({ children: paragraphs(c.rationale) }),
          new TableCell({
            // Each quote in italics with its source after it, one paragraph per piece of evidence.
            children: c.evidence.length
              ? c.evidence.map(
                  (e) =>
                    new Paragraph({
                      children: [...runs(`“${e.quote}”`, { italics: true }), new TextRun(xmlSafe(` (${evidenceSource(e, meta)})`))],
                    }),
                )
              : [new Paragraph("")],
          }),
        ],
      }),
  );
  out.push(table([header, ...rows], [2200, 900, 3263, 2663]));
  return out;
}

function genericBody(model: GenericModel): (Paragraph | Table)[] {
  const out: (Paragraph | Table)[] = [];
  if (model.fields.length > 0) {
    const rows = model.fields.map((f) => bodyRow([f.key, scalarText(f.value)]));
    out.push(table([headerRow(["Field", "Value"]), ...rows], [2700, CONTENT_WIDTH - 2700]));
  }
  for (const t of model.tables) {
    out.push(new Paragraph({ heading: HeadingLevel.HEADING_1, children: runs(t.key) }));
    const width = Math.floor(CONTENT_WIDTH / Math.max(1, t.columns.length));
    const rows = t.rows.map((r) => bodyRow(r.map(scalarText)));
    out.push(
      table(
        [headerRow(t.columns), ...rows],
        t.columns.map(() => width),
      ),
    );
  }
  return out;
}

function metaParagraphs(meta: RenderMeta): Paragraph[] {
  const parts: string[] = [];
  if (meta.workflowName) parts.push(`Workflow: ${meta.workflowName}`);
  if (meta.runId) parts.push(`Run: ${meta.runId}`);
  parts.push(`Generated: ${generatedAt(meta).toISOString()}`);
  return [new Paragraph({ children: [new TextRun({ text: xmlSafe(parts.join("  ·  ")), color: "666666", size: 18 })] })];
}

// Explicit column widths: LibreOffice lays a table out from its grid, and squeezes it without one.
function table(rows: TableRow[], columnWidths: number[]): Table {
  return new Table({ rows, columnWidths, width: { size: CONTENT_WIDTH, type: WidthType.DXA } });
}

/** A bold header row, repeated at the top of every page the table spans. */
function headerRow(labels: string[]): TableRow {
  return new TableRow({
    tableHeader: true,
    children: labels.map((l) => new TableCell({ children: [new Paragraph({ children: runs(l, { bold: true }) })] })),
  });
}

function bodyRow(cells: string[]): TableRow {
  return new TableRow({ children: cells.map((c) => new TableCell({ children: paragraphs(c) })) });
}

/** Blank-line-separated blocks become paragraphs; single newlines inside a block become line breaks. */
function paragraphs(text: string): Paragraph[] {
  const blocks = text.split(/(?:\r\n|\r|\n)[ \t]*(?:\r\n|\r|\n)/);
  return blocks.map((b) => new Paragraph({ children: runs(b) }));
}

/** Text runs for one paragraph; a Word run cannot hold a newline, so each line after the first starts with a break. */
function runs(text: string, style: { bold?: boolean; italics?: boolean } = {}): TextRun[] {
  return xmlSafe(text)
    .split(/\r\n|\r|\n/)
    .map((line, i) => new TextRun({ text: line, break: i > 0 ? 1 : undefined, ...style }));
}
