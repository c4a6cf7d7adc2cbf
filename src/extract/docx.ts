// DOCX: body via mammoth (headings, lists, tables, text boxes, footnotes, endnotes), plus the parts mammoth
// leaves out (headers, footers, comments) read straight from the package.

import { buildDocument, cellParagraphs, describeError, rowLine, unprocessable } from "./document.ts";
import type { ExtractedDocument, Section } from "./types.ts";
import { attrOf, childrenOf, decodeEntities, findAll, parseXml, tagOf, textLines, type XmlNode } from "./xml.ts";
import { isType, mainPart, type Parts, partText, readPackage, readRels, repack } from "./zip.ts";

export async function extractDocx(bytes: Uint8Array): Promise<ExtractedDocument> {
  const parts = readPackage(bytes, "docx");
  const docPath = mainPart(parts, "word/document.xml");
  if (!parts[docPath]) throw unprocessable("the file is not a valid DOCX file (no main document part)");

  const { default: mammoth } = await import("mammoth");
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(repack(parts)) },
      {
        // Images are irrelevant to text and would bloat the HTML with base64.
        convertImage: mammoth.images.imgElement(async () => ({ src: "" })),
        ignoreEmptyParagraphs: true,
      },
    );
    html = result.value;
  } catch (err) {
    throw unprocessable(`the DOCX file could not be read (${describeError(err)})`);
  }

  const body = htmlSections(parseXml(`<root>${html}</root>`));
  const rels = [...readRels(parts, docPath).values()].filter((r) => !r.external && parts[r.target]);
  const partsOf = (type: string) => rels.filter((r) => isType(r.type, type)).map((r) => r.target);
  const sections: Section[] = [
    ...body,
    ...commentSections(parts, partsOf("comments")),
    ...uniqueParts(parts, partsOf("header"), "header"),
    ...uniqueParts(parts, partsOf("footer"), "footer"),
  ];
  return buildDocument("docx", sections, null);
}

/** Headers and footers repeat (first page, even pages, per section): keep each distinct text once. */
function uniqueParts(parts: Parts, paths: string[], name: string): Section[] {
  const seen = new Set<string>();
  const out: Section[] = [];
  for (const path of [...new Set(paths)].sort()) {
    const text = textLines(parseXml(partText(parts, path) ?? "")).join("\n");
    if (!text.trim() || seen.has(text)) continue;
    seen.add(text);
    out.push({ location: { section: name }, text });
  }
  return out;
}

function commentSections(parts: Parts, paths: string[]): Section[] {
  return paths.map((path) => {
    const comments = findAll(parseXml(partText(parts, path) ?? ""), "comment");
    const lines = comments.map((c) => {
      const text = textLines(childrenOf(c)).join(" ");
      const author = attrOf(c, "w:author");
      return author ? `${author}: ${text}` : text;
    });
    return { location: { section: "comments" }, text: lines.join("\n") };
  });
}

interface Draft {
  heading?: string;
  level?: number;
  lines: string[];
}

/**
 * Turns mammoth's HTML into sections split at headings. Tables become " | " rows, list items "- " lines, and
 * the trailing footnote/endnote lists become their own sections.
 */
function htmlSections(nodes: XmlNode[]): Section[] {
  const root = childrenOf(nodes.find((n) => tagOf(n) === "root") ?? {});
  const drafts: Draft[] = [{ lines: [] }];
  const notes: Record<"footnotes" | "endnotes", string[]> = { footnotes: [], endnotes: [] };
  const sink = {
    line: (l: string) => drafts[drafts.length - 1].lines.push(l),
    heading: (h: string, level: number) => drafts.push({ heading: h, level, lines: [h] }),
    note: (kind: "footnotes" | "endnotes", text: string) => notes[kind].push(`[${notes[kind].length + 1}] ${text}`),
  };
  blocks(root, sink, "");
  const sections: Section[] = drafts.map((d) => ({
    location: d.heading ? { heading: d.heading } : {},
    text: d.lines.join("\n"),
    ...(d.level ? { level: d.level } : {}),
  }));
  for (const kind of ["footnotes", "endnotes"] as const) {
    if (notes[kind].length > 0) sections.push({ location: { section: kind }, text: notes[kind].join("\n") });
  }
  return sections;
}

interface Sink {
  line(l: string): void;
  heading?(h: string, level: number): void;
  note?(kind: "footnotes" | "endnotes", text: string): void;
}

const INLINE_SKIP_HREF = /^#(footnote|endnote|comment)-ref-/;

function inline(nodes: XmlNode[]): string {
  let out = "";
  for (const n of nodes) {
    if ("#text" in n) {
      out += decodeEntities(String(n["#text"]));
      continue;
    }
    const tag = tagOf(n);
    if (tag === "br") out += "\n";
    else if (tag === "a" && INLINE_SKIP_HREF.test(attrOf(n, "href") ?? ""))
      continue; // "↑" back-links
    else if (tag && tag !== "img") out += inline(childrenOf(n));
  }
  return out;
}

const clean = (s: string) => s.replace(/[ \t\u00a0]+/g, " ").trim();

function blocks(nodes: XmlNode[], sink: Sink, indent: string) {
  let pending = "";
  const flush = () => {
    if (clean(pending)) sink.line(indent + clean(pending));
    pending = "";
  };
  for (const n of nodes) {
    const tag = tagOf(n);
    if (!tag || "#text" in n) {
      pending += inline([n]);
      continue;
    }
    const kids = childrenOf(n);
    if (/^h[1-6]$/.test(tag)) {
      flush();
      const text = clean(inline(kids));
      if (text) sink.heading ? sink.heading(text, Number(tag[1])) : sink.line(text);
    } else if (tag === "p") {
      flush();
      const text = clean(inline(kids));
      if (text) sink.line(indent + text);
    } else if (tag === "ul" || tag === "ol") {
      flush();
      listItems(kids, sink, indent);
    } else if (tag === "table") {
      flush();
      const rows = findAll(kids, "tr").map((row) => childrenOf(row).filter((c) => tagOf(c) === "td" || tagOf(c) === "th"));
      if (layoutTable(rows)) {
        // A page laid out in a table (a two-column CV: a sidebar beside the body) is read cell by cell, each cell's
        // paragraphs its own lines, as a reader takes one column and then the next.
        for (const cell of rows.flat()) blocks(childrenOf(cell), sink, indent);
        continue;
      }
      const wide = rows.some((cells) => cells.length >= 2);
      for (const cells of rows) {
        const line = rowLine(cells.map((cell) => cellParagraphs(cellLines(cell))));
        // A row whose other cells are empty (a checklist's "Term | | |", to be ticked) stays a row: it keeps a separator.
        // So does one cell merged across the table ("Qualifications and registration" over its requirements' rows).
        if (line) sink.line(indent + line + (wide && !line.includes(" | ") ? " |" : ""));
      }
    } else if (["div", "blockquote", "dl", "dd", "dt", "section"].includes(tag)) {
      flush();
      blocks(kids, sink, indent);
    } else {
      pending += inline([n]);
    }
  }
  flush();
}

/** A table cell's paragraphs, each a line. */
function cellLines(cell: XmlNode): string[] {
  const lines: string[] = [];
  blocks(childrenOf(cell), { line: (l) => lines.push(l) }, "");
  return lines;
}

/**
 * A table that lays out a page rather than holding data: a row or two whose cells are columns of a page, one of them
 * a dozen paragraphs or more (a CV's sidebar beside its body). A data table's cell, even a rubric's level descriptor
 * with its bullets, holds a few.
 */
function layoutTable(rows: XmlNode[][]): boolean {
  return rows.length <= 2 && rows.some((cells) => cells.length >= 2 && cells.some((cell) => cellLines(cell).length >= LAYOUT_CELL_LINES));
}
const LAYOUT_CELL_LINES = 12;

function listItems(items: XmlNode[], sink: Sink, indent: string) {
  for (const li of items) {
    if (tagOf(li) !== "li") continue;
    const id = attrOf(li, "id") ?? "";
    const kids = childrenOf(li);
    const own = kids.filter((k) => tagOf(k) !== "ul" && tagOf(k) !== "ol");
    const lines: string[] = [];
    blocks(own, { line: (l) => lines.push(l) }, "");
    const text = lines.join(" ");
    const note = /^(footnote|endnote)-/.exec(id)?.[1];
    if (note && sink.note) {
      sink.note(`${note}s` as "footnotes" | "endnotes", text);
      continue;
    }
    if (text) sink.line(`${indent}- ${text}`);
    const nested = kids.filter((k) => tagOf(k) === "ul" || tagOf(k) === "ol");
    for (const list of nested) listItems(childrenOf(list), sink, `${indent}  `);
  }
}
